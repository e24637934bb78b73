// What the simulated GPUs may touch: every range the thunk's driver calls made GPU-reachable (a
// buffer object at its GPU address, user memory registered for the GPUs), with the node that owns
// it, whether its GPU's L2 caches it, and where its bytes are in this process. The ranges' host
// mappings are the thunk's and the door's (sim/door); this only keeps the map.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hsad {
namespace isa {
class CachedRange;
class L2Cache;
}  // namespace isa
namespace sim {

// [base, base + size) becomes reachable by the GPUs. `node`: the topology node that owns it (0:
// the host, 1..: the GPUs). `l2_cached`: coarse-grained memory of that GPU, which its L2 caches
// write-back under the cache model. `host`: where the range's bytes are in this process: `base`
// itself (a buffer object mapped at its GPU address, user memory at its own address), or another
// address (user memory the ROCm 5.x thunk registered at a GPU address of its own choosing).
void adopt(std::uint64_t base, std::uint64_t size, std::uint32_t node, bool l2_cached, std::uint64_t host = 0);
// The range at `base` (of `size` bytes, where several start there; 0: any) is no longer reachable
// (the driver freed it); false where none starts there.
bool forget(std::uint64_t base, std::uint64_t size = 0);
// Every range overlapping [base, base + size) forgotten: the driver places a new buffer object
// there, so what they were (user memory unmapped where the door cannot see it, whose registration
// was never undone) is gone. How many there were.
std::size_t forget_overlapping(std::uint64_t base, std::uint64_t size);

// The range holding `address`: its base and size, or false.
bool find_allocation(std::uint64_t address, std::uint64_t* base, std::uint64_t* size);
// The same, for what a kernel may touch, and the host address of its base.
bool find_gpu_reachable(std::uint64_t address, std::uint64_t* base, std::uint64_t* size, std::uint64_t* host_base);
// Where [address, address + bytes) of GPU memory is in this process (itself, for every range
// but registered user memory at another GPU address); 0 where no one range holds it.
std::uint64_t host_address(std::uint64_t address, std::uint64_t bytes);

// What the driver knows of a range: which node owns it and which GPU nodes it is mapped to.
struct Region {
  std::uint64_t base = 0, size = 0;
  std::uint32_t node = 0;
  std::vector<std::uint32_t> mapped;
};
bool find_region(std::uint64_t address, Region* region);
// MAP_MEMORY_TO_GPU: the nodes the range at `base` is now mapped to (replacing the last list).
void set_mapped(std::uint64_t base, std::vector<std::uint32_t> nodes);

// The cache model (sim_config.hpp): GPU `node`'s L2, or null where the model is off.
isa::L2Cache* l2_of(std::uint32_t node);
// The L2 lines of the range at `base` where GPU `node`'s L2 caches it; null otherwise.
isa::CachedRange* cached_range(std::uint32_t node, std::uint64_t base);
// What ROCr's blit copies by GPU `node` (done here as memmove) do to its L2. As the copy engine
// (the default: AMD's copies go to SDMA engines, outside the L2), nothing: they read and write
// memory, and only the fences around them make the L2 agree. As shader blits (HSAD_SIM_BLITS=
// shader, ROCr's HSA_ENABLE_SDMA=0 on a GPU): before, the source's dirty bytes go to memory and
// the destination's lines are let go of (their dirty bytes written first); after, again.
void before_engine_copy(std::uint32_t node, std::uint64_t dst, std::uint64_t src, std::uint64_t bytes);
void after_engine_copy(std::uint32_t node, std::uint64_t dst, std::uint64_t bytes);

// Called with each range about to be forgotten (the simulated GPU forgets code it decoded there).
void set_release_hook(void (*hook)(std::uint64_t base, std::uint64_t size));

}  // namespace sim
}  // namespace hsad
