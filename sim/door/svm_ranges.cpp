// Disjoint intervals of SVM-registered user memory, each adopted into sim_memory as one range.
// A change adopts the new intervals before it forgets the old ones: an engine or kernel of another
// thread looking up memory registered earlier (a copy in flight) never finds it gone while
// another thread's registration merges with it (sim_memory's ranges may overlap meanwhile).
#include "door/svm_ranges.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

#include "sim_memory.hpp"

namespace hsad::sim::door {
namespace {
// Recursive: a change forgets ranges under it, and what that frees may reach munmap, which the
// door answers with svm_revoke on the same thread (a plain mutex deadlocked the sid stage once).
// Such a nested revoke is kept for the end of the change that caused it (`deferred`), so that
// no change ever runs inside another.
std::recursive_mutex mutex;
thread_local bool changing = false;
thread_local std::vector<std::pair<std::uint64_t, std::uint64_t>> deferred;
// start -> end. Never destroyed: libraries' destructors run after this file's would.
std::map<std::uint64_t, std::uint64_t>& intervals() {
  static auto* m = new std::map<std::uint64_t, std::uint64_t>();
  return *m;
}

// Under `mutex`: the intervals that overlap or touch [start, end), removed from the map (not yet
// from sim_memory: forget_all, once their replacements are adopted).
std::vector<std::pair<std::uint64_t, std::uint64_t>> take(std::uint64_t start, std::uint64_t end, bool touching) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  auto& m = intervals();
  auto it = m.upper_bound(start);
  if (it != m.begin()) --it;
  while (it != m.end() && it->first <= end) {
    const bool hit = touching ? (it->second >= start && it->first <= end) : (it->second > start && it->first < end);
    if (hit) {
      out.emplace_back(it->first, it->second);
      it = m.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

void put(std::uint64_t start, std::uint64_t end) {
  if (start >= end) return;
  intervals()[start] = end;
  adopt(start, end - start, 0, false);  // system memory: not in any GPU's L2
}

void forget_all(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& taken) {
  for (const auto& [s, e] : taken) forget(s, e - s);
}

void revoke_now(std::uint64_t start, std::uint64_t size) {
  const std::uint64_t end = start + size;
  const auto taken = take(start, end, false);
  for (const auto& [s, e] : taken) {
    put(s, std::min(e, start));
    put(std::max(s, end), e);
  }
  forget_all(taken);
}

// Runs `change` under the mutex, then the revokes it caused, each in turn.
template <class F>
void apply(F change) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  changing = true;
  change();
  while (!deferred.empty()) {
    const auto [start, size] = deferred.back();
    deferred.pop_back();
    revoke_now(start, size);
  }
  changing = false;
}
}  // namespace

void svm_grant(std::uint64_t start, std::uint64_t size) {
  apply([&] {
    std::uint64_t lo = start, hi = start + size;
    const auto taken = take(lo, hi, true);
    for (const auto& [s, e] : taken) lo = std::min(lo, s), hi = std::max(hi, e);
    put(lo, hi);
    forget_all(taken);
  });
}

void svm_revoke(std::uint64_t start, std::uint64_t size) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (changing) {  // from inside a change on this thread (a free that unmapped): after it
    deferred.emplace_back(start, size);
    return;
  }
  apply([&] { revoke_now(start, size); });
}

}  // namespace hsad::sim::door
