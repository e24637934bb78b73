// Memory of the simulated KFD: every allocation is an anonymous host mapping (GPU and host share
// one address space here), recorded so pointers can be looked up and code objects found.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace hsad::sim {

// `node`: the topology node the memory belongs to (0: the host, 1..: the GPUs), as the KFD records it.
void* allocate(std::uint64_t bytes, bool reserve_only, std::uint32_t node = 0);
bool release(void* ptr);
// The allocation holding `address`: its base and size, or false.
bool find_allocation(std::uint64_t address, std::uint64_t* base, std::uint64_t* size);

// Host memory registered for the GPU (hsa_amd_memory_lock): reachable by kernels, not KFD's.
void register_host(const void* ptr, std::uint64_t bytes);
void deregister_host(const void* ptr);
// The allocation or registered range holding `address`: what a kernel may touch.
bool find_gpu_reachable(std::uint64_t address, std::uint64_t* base, std::uint64_t* size);

// What hsaKmtQueryPointerInfo reports of an allocation or a registered host range: which node
// owns it and which GPU nodes it is mapped to (hsa_amd_pointer_info's accessible agents).
struct Region {
  std::uint64_t base = 0, size = 0;
  std::uint32_t node = 0;
  bool registered = false;  // host memory registered (hsa_amd_memory_lock), not allocated
  std::vector<std::uint32_t> mapped;
};
bool find_region(std::uint64_t address, Region* region);
// hsaKmtMapMemoryToGPUNodes: the nodes the range at `ptr` is now mapped to (replacing the last list).
void set_mapped(const void* ptr, std::vector<std::uint32_t> nodes);

// Called with each allocation about to be freed (the simulated GPU forgets code it decoded there).
void set_release_hook(void (*hook)(std::uint64_t base, std::uint64_t size));

}  // namespace hsad::sim
