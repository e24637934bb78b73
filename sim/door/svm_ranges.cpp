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
std::mutex mutex;
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
}  // namespace

void svm_grant(std::uint64_t start, std::uint64_t size) {
  std::lock_guard<std::mutex> lock(mutex);
  std::uint64_t lo = start, hi = start + size;
  const auto taken = take(lo, hi, true);
  for (const auto& [s, e] : taken) lo = std::min(lo, s), hi = std::max(hi, e);
  put(lo, hi);
  forget_all(taken);
}

void svm_revoke(std::uint64_t start, std::uint64_t size) {
  std::lock_guard<std::mutex> lock(mutex);
  const std::uint64_t end = start + size;
  const auto taken = take(start, end, false);
  for (const auto& [s, e] : taken) {
    put(s, std::min(e, start));
    put(std::max(s, end), e);
  }
  forget_all(taken);
}

}  // namespace hsad::sim::door
