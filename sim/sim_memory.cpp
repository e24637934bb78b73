// Large reservations (ROCr reserves 4 GiB of scratch) are MAP_NORESERVE: pages are committed
// only if something touches them, as with a real reservation of GPU address space.
#include "sim_memory.hpp"

#include <sys/mman.h>

#include <atomic>
#include <deque>
#include <map>
#include <mutex>

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
};
std::map<std::uint64_t, Placement>& placements() {
  static auto* m = new std::map<std::uint64_t, Placement>();
  return *m;
}
std::atomic<void (*)(std::uint64_t, std::uint64_t)> release_hook{nullptr};

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

void* allocate(std::uint64_t bytes, bool reserve_only, std::uint32_t node) {
  const std::uint64_t size = (bytes + 4095) & ~std::uint64_t(4095);
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | (reserve_only ? MAP_NORESERVE : 0),
                 -1, 0);
  if (p == MAP_FAILED) return nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  allocations()[reinterpret_cast<std::uint64_t>(p)] = size;
  placements()[reinterpret_cast<std::uint64_t>(p)] = {node, {}};
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
    munmap(ptr, size);
    return;
  }
  held->emplace_back(ptr, size);
  bytes += size;
  while (bytes > kQuarantineBytes) {
    munmap(held->front().first, held->front().second);
    bytes -= held->front().second;
    held->pop_front();
  }
}
}  // namespace

bool release(void* ptr) {
  std::uint64_t size = 0;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = allocations().find(reinterpret_cast<std::uint64_t>(ptr));
    if (it == allocations().end()) return false;
    size = it->second;
    allocations().erase(it);
    placements().erase(reinterpret_cast<std::uint64_t>(ptr));
  }
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

}  // namespace hsad::sim
