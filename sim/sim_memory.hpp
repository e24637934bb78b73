// Memory of the simulated KFD: every allocation is an anonymous host mapping (GPU and host share
// one address space here), recorded so pointers can be looked up and code objects found.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace hsad {
namespace isa {
class CachedRange;
class L2Cache;
}  // namespace isa
namespace sim {

// `node`: the topology node the memory belongs to (0: the host, 1..: the GPUs), as the KFD records it.
// `l2_cached`: GPU memory its GPU's L2 caches write-back (coarse-grained device memory), under
// the cache model.
void* allocate(std::uint64_t bytes, bool reserve_only, std::uint32_t node = 0, bool l2_cached = false);
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

// The cache model (sim_config.hpp): GPU `node`'s L2, or null where the model is off.
isa::L2Cache* l2_of(std::uint32_t node);
// The L2 lines of the allocation at `base` where GPU `node`'s L2 caches it; null otherwise.
isa::CachedRange* cached_range(std::uint32_t node, std::uint64_t base);
// What ROCr's blit copies by GPU `node` (done here as memmove) do to its L2. As the copy engine
// (the default: AMD's copies go to SDMA engines, outside the L2), nothing: they read and write
// memory, and only the fences around them make the L2 agree. As shader blits (HSAD_SIM_BLITS=
// shader, ROCr's HSA_ENABLE_SDMA=0 on a GPU): before, the source's dirty bytes go to memory and
// the destination's lines are let go of (their dirty bytes written first); after, again.
void before_engine_copy(std::uint32_t node, std::uint64_t dst, std::uint64_t src, std::uint64_t bytes);
void after_engine_copy(std::uint32_t node, std::uint64_t dst, std::uint64_t bytes);

// Called with each allocation about to be freed (the simulated GPU forgets code it decoded there).
void set_release_hook(void (*hook)(std::uint64_t base, std::uint64_t size));

}  // namespace sim
}  // namespace hsad
