// Large reservations (ROCr reserves 4 GiB of scratch) are MAP_NORESERVE: pages are committed
// only if something touches them, as with a real reservation of GPU address space.
#include "sim_memory.hpp"

#include <sys/mman.h>

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>

#include "l2_cache.hpp"
#include "sim_cache_report.hpp"
#include "sim_config.hpp"

namespace hsad::sim {
namespace {
std::mutex mutex;
std::map<std::uint64_t, std::uint64_t>& allocations() {
  static auto* m = new std::map<std::uint64_t, std::uint64_t>();  // never destroyed: ROCr frees at exit
  return *m;
}
std::map<std::uint64_t, std::uint64_t>& registered() {
  static auto* m = new std::map<std::uint64_t, std::uint64_t>();
  return *m;
}
// By base address, for allocations and registered ranges alike: owner node and mapped nodes.
struct Placement {
  std::uint32_t node = 0;
  std::vector<std::uint32_t> mapped;
  isa::CachedRange* cached = nullptr;  // its GPU's L2 lines (cache model), owned by live_ranges()
};
std::map<std::uint64_t, Placement>& placements() {
  static auto* m = new std::map<std::uint64_t, Placement>();
  return *m;
}
std::atomic<void (*)(std::uint64_t, std::uint64_t)> release_hook{nullptr};

// Each GPU's L2 (nodes 1..8), and the cached ranges by base, alive until their memory is unmapped
// (a kernel still running on freed memory may use them). Never destroyed: ROCr frees at exit.
isa::L2Cache* l2_caches() {
  static auto* l2 = new isa::L2Cache[9];
  return l2;
}
std::map<std::uint64_t, std::unique_ptr<isa::CachedRange>>& live_ranges() {
  static auto* m = new std::map<std::uint64_t, std::unique_ptr<isa::CachedRange>>();
  return *m;
}
std::mutex ranges_mutex;  // live_ranges(); never held with `mutex`

// The memory at `ptr` is unmapped: its L2 lines go too.
void drop_range(void* ptr) {
  std::unique_ptr<isa::CachedRange> range;
  {
    std::lock_guard<std::mutex> lock(ranges_mutex);
    auto it = live_ranges().find(reinterpret_cast<std::uint64_t>(ptr));
    if (it == live_ranges().end()) return;
    range = std::move(it->second);
    live_ranges().erase(it);
  }
  range->l2().retire(range.get());
}

bool find_in(const std::map<std::uint64_t, std::uint64_t>& m, std::uint64_t address, std::uint64_t* base,
             std::uint64_t* size) {
  auto it = m.upper_bound(address);
  if (it == m.begin()) return false;
  --it;
  if (address >= it->first + it->second) return false;
  *base = it->first;
  *size = it->second;
  return true;
}
}  // namespace

void* allocate(std::uint64_t bytes, bool reserve_only, std::uint32_t node, bool l2_cached) {
  const std::uint64_t size = (bytes + 4095) & ~std::uint64_t(4095);
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | (reserve_only ? MAP_NORESERVE : 0),
                 -1, 0);
  if (p == MAP_FAILED) return nullptr;
  const auto base = reinterpret_cast<std::uint64_t>(p);
  isa::CachedRange* cached = nullptr;
  if (isa::L2Cache* l2 = l2_cached && !reserve_only ? l2_of(node) : nullptr) {
    auto range = std::make_unique<isa::CachedRange>(*l2, base, size);
    cached = range.get();
    std::lock_guard<std::mutex> lock(ranges_mutex);
    live_ranges()[base] = std::move(range);
  }
  std::lock_guard<std::mutex> lock(mutex);
  allocations()[base] = size;
  placements()[base] = {node, {}, cached};
  return p;
}

// Freed memory stays mapped a while: a kernel still running when its buffers are freed (the
// host gave up waiting) then reads stale bytes or is stopped by the interpreter's allocation
// check, as a GPU would fault, instead of taking the whole process down with SIGSEGV.
namespace {
constexpr std::uint64_t kQuarantineBytes = 512ull << 20;

void quarantine(void* ptr, std::uint64_t size) {
  // Never destroyed: ROCr frees memory from static destructors at exit, after ours would run.
  static auto* m = new std::mutex;
  static auto* held = new std::deque<std::pair<void*, std::uint64_t>>;
  static std::uint64_t bytes = 0;
  std::lock_guard<std::mutex> lock(*m);
  if (size > kQuarantineBytes / 2) {  // ROCr's scratch reservation: never touched by the interpreter
    drop_range(ptr);
    munmap(ptr, size);
    return;
  }
  held->emplace_back(ptr, size);
  bytes += size;
  while (bytes > kQuarantineBytes) {
    drop_range(held->front().first);
    munmap(held->front().first, held->front().second);
    bytes -= held->front().second;
    held->pop_front();
  }
}
}  // namespace

bool release(void* ptr) {
  std::uint64_t size = 0;
  isa::CachedRange* cached = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = allocations().find(reinterpret_cast<std::uint64_t>(ptr));
    if (it == allocations().end()) return false;
    size = it->second;
    allocations().erase(it);
    cached = placements()[reinterpret_cast<std::uint64_t>(ptr)].cached;
    placements().erase(reinterpret_cast<std::uint64_t>(ptr));
  }
  // What the L2 held dirty of freed memory never needs to reach it.
  if (cached) cached->l2().retire(cached);
  if (auto hook = release_hook.load()) hook(reinterpret_cast<std::uint64_t>(ptr), size);
  quarantine(ptr, size);
  return true;
}

bool find_allocation(std::uint64_t address, std::uint64_t* base, std::uint64_t* size) {
  std::lock_guard<std::mutex> lock(mutex);
  return find_in(allocations(), address, base, size);
}

void register_host(const void* ptr, std::uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex);
  registered()[reinterpret_cast<std::uint64_t>(ptr)] = bytes;
  placements()[reinterpret_cast<std::uint64_t>(ptr)] = {0, {}};
}

void deregister_host(const void* ptr) {
  std::lock_guard<std::mutex> lock(mutex);
  registered().erase(reinterpret_cast<std::uint64_t>(ptr));
  if (!allocations().count(reinterpret_cast<std::uint64_t>(ptr))) placements().erase(reinterpret_cast<std::uint64_t>(ptr));
}

bool find_region(std::uint64_t address, Region* region) {
  std::lock_guard<std::mutex> lock(mutex);
  std::uint64_t base = 0, size = 0;
  if (find_in(allocations(), address, &base, &size)) {
    region->registered = false;
  } else if (find_in(registered(), address, &base, &size)) {
    region->registered = true;
  } else {
    return false;
  }
  region->base = base;
  region->size = size;
  const Placement& p = placements()[base];
  region->node = p.node;
  region->mapped = p.mapped;
  return true;
}

void set_mapped(const void* ptr, std::vector<std::uint32_t> nodes) {
  std::lock_guard<std::mutex> lock(mutex);
  placements()[reinterpret_cast<std::uint64_t>(ptr)].mapped = std::move(nodes);
}

bool find_gpu_reachable(std::uint64_t address, std::uint64_t* base, std::uint64_t* size) {
  std::lock_guard<std::mutex> lock(mutex);
  return find_in(allocations(), address, base, size) || find_in(registered(), address, base, size);
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
  auto it = placements().find(base);
  if (it == placements().end() || !it->second.cached || &it->second.cached->l2() != l2) return nullptr;
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
