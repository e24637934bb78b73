// Large reservations (ROCr reserves 4 GiB of scratch) are MAP_NORESERVE: pages are committed
// only if something touches them, as with a real reservation of GPU address space.
#include "sim_memory.hpp"

#include <sys/mman.h>

#include <map>
#include <mutex>

namespace hsad::sim {
namespace {
std::mutex mutex;
std::map<std::uint64_t, std::uint64_t>& allocations() {
  static auto* m = new std::map<std::uint64_t, std::uint64_t>();  // never destroyed: ROCr frees at exit
  return *m;
}
}  // namespace

void* allocate(std::uint64_t bytes, bool reserve_only) {
  const std::uint64_t size = (bytes + 4095) & ~std::uint64_t(4095);
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | (reserve_only ? MAP_NORESERVE : 0),
                 -1, 0);
  if (p == MAP_FAILED) return nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  allocations()[reinterpret_cast<std::uint64_t>(p)] = size;
  return p;
}

bool release(void* ptr) {
  std::uint64_t size = 0;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = allocations().find(reinterpret_cast<std::uint64_t>(ptr));
    if (it == allocations().end()) return false;
    size = it->second;
    allocations().erase(it);
  }
  munmap(ptr, size);
  return true;
}

bool find_allocation(std::uint64_t address, std::uint64_t* base, std::uint64_t* size) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = allocations().upper_bound(address);
  if (it == allocations().begin()) return false;
  --it;
  if (address >= it->first + it->second) return false;
  *base = it->first;
  *size = it->second;
  return true;
}

}  // namespace hsad::sim
