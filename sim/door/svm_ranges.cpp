// Disjoint intervals of SVM-registered user memory, each adopted into sim_memory as one range.
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

// Under `mutex`: the intervals that overlap or touch [start, end), removed from the map and from
// sim_memory.
std::vector<std::pair<std::uint64_t, std::uint64_t>> take(std::uint64_t start, std::uint64_t end, bool touching) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  auto& m = intervals();
  auto it = m.upper_bound(start);
  if (it != m.begin()) --it;
  while (it != m.end() && it->first <= end) {
    const bool hit = touching ? (it->second >= start && it->first <= end) : (it->second > start && it->first < end);
    if (hit) {
      out.emplace_back(it->first, it->second);
      forget(it->first);
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
}  // namespace

void svm_grant(std::uint64_t start, std::uint64_t size) {
  std::lock_guard<std::mutex> lock(mutex);
  std::uint64_t lo = start, hi = start + size;
  for (const auto& [s, e] : take(lo, hi, true)) lo = std::min(lo, s), hi = std::max(hi, e);
  put(lo, hi);
}

void svm_revoke(std::uint64_t start, std::uint64_t size) {
  std::lock_guard<std::mutex> lock(mutex);
  const std::uint64_t end = start + size;
  for (const auto& [s, e] : take(start, end, false)) {
    put(s, std::min(e, start));
    put(std::max(s, end), e);
  }
}

}  // namespace hsad::sim::door
