// The map of GPU-reachable ranges, by base address. Lookups are frequent (every work-group's first
// access of a range, every copy) and changes rare (allocations, frees): one mutex. Ranges may
// overlap: ROCm 6's thunk registers locked user memory at its own address, one buffer object per
// lock, so two threads' pageable buffers that share a page give two objects over that page (at
// the same base, or one inside the other); each stays reachable until its own free.
#include "sim_memory.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "l2_cache.hpp"
#include "sim_cache_report.hpp"
#include "sim_config.hpp"

namespace hsad::sim {
namespace {

struct Range {
  std::uint64_t size = 0;
  std::uint64_t host = 0;  // where the bytes are in this process
  std::uint32_t node = 0;
  std::vector<std::uint32_t> mapped;
  isa::CachedRange* cached = nullptr;  // its GPU's L2 lines (cache model), owned by live_ranges()
};

std::mutex mutex;
std::multimap<std::uint64_t, Range>& ranges() {
  static auto* m = new std::multimap<std::uint64_t, Range>();  // never destroyed: ROCr frees at exit
  return *m;
}
std::uint64_t largest = 0;  // the largest range adopted: how far back a lookup need look (`mutex`)
std::atomic<void (*)(std::uint64_t, std::uint64_t)> release_hook{nullptr};

// Each GPU's L2 (nodes 1..8), and the cached ranges by base, alive until they are forgotten (a
// kernel still running on freed memory may use them until then). Never destroyed: ROCr frees at exit.
isa::L2Cache* l2_caches() {
  static auto* l2 = new isa::L2Cache[9];
  return l2;
}
std::map<std::uint64_t, std::unique_ptr<isa::CachedRange>>& live_ranges() {
  static auto* m = new std::map<std::uint64_t, std::unique_ptr<isa::CachedRange>>();
  return *m;
}
std::mutex ranges_mutex;  // live_ranges(); never held with `mutex`

void drop_range(std::uint64_t base) {
  std::unique_ptr<isa::CachedRange> range;
  {
    std::lock_guard<std::mutex> lock(ranges_mutex);
    auto it = live_ranges().find(base);
    if (it == live_ranges().end()) return;
    range = std::move(it->second);
    live_ranges().erase(it);
  }
  // What the L2 held dirty of freed memory never needs to reach it.
  range->l2().retire(range.get());
}

// A range holding all of [address, address + bytes), under `mutex`: the one with the highest base
// at or below `address` that does (usually the first looked at; where ranges overlap, an earlier
// one may hold what a later, smaller one does not).
const Range* holding(std::uint64_t address, std::uint64_t* base, std::uint64_t bytes = 1) {
  const std::uint64_t end = address + bytes;
  if (end < address) return nullptr;
  for (auto it = ranges().upper_bound(address); it != ranges().begin();) {
    --it;
    if (address - it->first >= largest) return nullptr;  // no range from here down reaches it
    if (end <= it->first + it->second.size) {
      *base = it->first;
      return &it->second;
    }
  }
  return nullptr;
}
}  // namespace

void adopt(std::uint64_t base, std::uint64_t size, std::uint32_t node, bool l2_cached, std::uint64_t host) {
  isa::CachedRange* cached = nullptr;
  if (isa::L2Cache* l2 = l2_cached ? l2_of(node) : nullptr) {
    auto range = std::make_unique<isa::CachedRange>(*l2, base, size);
    cached = range.get();
    std::lock_guard<std::mutex> lock(ranges_mutex);
    live_ranges()[base] = std::move(range);
  }
  std::lock_guard<std::mutex> lock(mutex);
  ranges().emplace(base, Range{size, host ? host : base, node, {}, cached});
  largest = std::max(largest, size);
}

bool forget(std::uint64_t base, std::uint64_t size) {
  bool last = false;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto [first, end] = ranges().equal_range(base);
    auto it = first;
    while (it != end && size != 0 && it->second.size != size) ++it;
    if (it == end) return false;
    size = it->second.size;
    ranges().erase(it);
    last = ranges().count(base) == 0;
  }
  if (last) drop_range(base);  // (cached ranges are device memory: one object per base)
  if (auto hook = release_hook.load()) hook(base, size);
  return true;
}

std::size_t forget_overlapping(std::uint64_t base, std::uint64_t size) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> gone;
  {
    std::lock_guard<std::mutex> lock(mutex);
    // Ranges start at most `largest` below an address they hold.
    auto it = ranges().lower_bound(base > largest ? base - largest : 0);
    while (it != ranges().end() && it->first < base + size) {
      if (it->first + it->second.size > base) {
        gone.emplace_back(it->first, it->second.size);
        it = ranges().erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const auto& [b, bytes] : gone) {
    drop_range(b);
    if (auto hook = release_hook.load()) hook(b, bytes);
  }
  return gone.size();
}

bool find_allocation(std::uint64_t address, std::uint64_t* base, std::uint64_t* size) {
  std::lock_guard<std::mutex> lock(mutex);
  const Range* r = holding(address, base);
  if (!r) return false;
  *size = r->size;
  return true;
}

bool find_gpu_reachable(std::uint64_t address, std::uint64_t* base, std::uint64_t* size, std::uint64_t* host_base) {
  std::lock_guard<std::mutex> lock(mutex);
  const Range* r = holding(address, base);
  if (!r) return false;
  *size = r->size;
  *host_base = r->host;
  return true;
}

std::uint64_t host_address(std::uint64_t address, std::uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex);
  std::uint64_t base = 0;
  const Range* r = holding(address, &base, bytes);
  if (!r) return 0;
  return r->host + (address - base);
}

bool find_region(std::uint64_t address, Region* region) {
  std::lock_guard<std::mutex> lock(mutex);
  std::uint64_t base = 0;
  const Range* r = holding(address, &base);
  if (!r) return false;
  region->base = base;
  region->size = r->size;
  region->node = r->node;
  region->mapped = r->mapped;
  return true;
}

void set_mapped(std::uint64_t base, std::vector<std::uint32_t> nodes) {
  std::lock_guard<std::mutex> lock(mutex);
  auto [first, end] = ranges().equal_range(base);
  for (auto it = first; it != end; ++it) it->second.mapped = nodes;
}

void set_release_hook(void (*hook)(std::uint64_t, std::uint64_t)) { release_hook.store(hook); }

isa::L2Cache* l2_of(std::uint32_t node) {
  if (!config().cache_model || node == 0 || node > 8) return nullptr;
  return &l2_caches()[node];
}

isa::CachedRange* cached_range(std::uint32_t node, std::uint64_t base) {
  isa::L2Cache* l2 = l2_of(node);
  if (!l2) return nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = ranges().find(base);
  if (it == ranges().end() || !it->second.cached || &it->second.cached->l2() != l2) return nullptr;
  return it->second.cached;
}

namespace {
// GPU `node`'s own cached range holding [address, address + bytes), if any.
isa::CachedRange* own_range(std::uint32_t node, std::uint64_t address, std::uint64_t bytes) {
  std::uint64_t base = 0, size = 0;
  if (!l2_of(node) || !bytes || !find_allocation(address, &base, &size)) return nullptr;
  return cached_range(node, base);
}
}  // namespace

void before_engine_copy(std::uint32_t node, std::uint64_t dst, std::uint64_t src, std::uint64_t bytes) {
  if (config().blits_as_copy_engine) {  // memory only: the fences around the copy must do the rest
    report_engine_copy(node, dst, src, bytes);
    return;
  }
  if (isa::CachedRange* from = own_range(node, src, bytes)) from->write_back(src, src + bytes);
  if (isa::CachedRange* to = own_range(node, dst, bytes)) to->forget(dst, dst + bytes);
}

void after_engine_copy(std::uint32_t node, std::uint64_t dst, std::uint64_t bytes) {
  if (config().blits_as_copy_engine) return;
  if (isa::CachedRange* to = own_range(node, dst, bytes)) to->forget(dst, dst + bytes);
}

}  // namespace hsad::sim
