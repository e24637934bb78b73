// What a program under hsad-sim may ask the simulated GPU that no AMD driver answers, exported by
// the preloaded door (found with dlsym(RTLD_DEFAULT, ...)): why a queue stopped, what the cache
// model's L2s did, what memory the GPUs reach. The rocr backend, the benches and the tests use
// them where they are there.
#include <cstdint>
#include <cstring>

#include "l2_cache.hpp"
#include "sim_config.hpp"
#include "sim_memory.hpp"
#include "sim_queue.hpp"

#define HSAD_EXPORT extern "C" __attribute__((visibility("default")))

// The simulated GPU's account of why the queue on `ring` stopped (the kernel, pc and instruction),
// which a real driver does not give (ROCr only reports HSA_STATUS_ERROR_EXCEPTION): its length,
// the text copied to `buffer`; 0 while the queue runs.
HSAD_EXPORT std::size_t hsad_sim_queue_error(const void* ring, char* buffer, std::size_t bytes) {
  return hsad::sim::queue_error(ring, buffer, bytes);
}

// What the cache model's L2s did at fences so far, summed over GPU `node` (0: every GPU): releases,
// lines written back, acquires, lines invalidated. Returns 0 where the model is off. A model's
// count, which the benches report per rung (apps/common/sim_cache.*).
HSAD_EXPORT int hsad_sim_cache_counters(std::uint32_t node, std::uint64_t out[4]) {
  using hsad::sim::config;
  std::uint64_t sum[4] = {0, 0, 0, 0};
  bool any = false;
  for (std::uint32_t g = 1; g <= config().gpus; ++g) {
    const hsad::isa::L2Cache* l2 = (node == 0 || node == g) ? hsad::sim::l2_of(g) : nullptr;
    if (!l2) continue;
    const hsad::isa::L2Cache::Counters c = l2->counters();
    sum[0] += c.write_backs, sum[1] += c.lines_written_back, sum[2] += c.invalidations, sum[3] += c.lines_invalidated;
    any = true;
  }
  std::memcpy(out, sum, sizeof sum);
  return any ? 1 : 0;
}

// The allocation the simulated GPUs find at `address` (what a kernel's access or a copy there
// reaches): out[0] its base, out[1] its size, out[2] the node whose memory it is (0: system
// memory). Returns 0 where no GPU reaches `address`. For tests of the door's bookkeeping.
HSAD_EXPORT int hsad_sim_memory_at(std::uint64_t address, std::uint64_t out[3]) {
  hsad::sim::Region r;
  if (!hsad::sim::find_region(address, &r)) return 0;
  out[0] = r.base, out[1] = r.size, out[2] = r.node;
  return 1;
}
