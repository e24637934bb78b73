// The simulated GPU's queues: each AQL ring ROCr creates is drained by the cpu agent's packet
// processor, with kernels resolved from the code object ROCr's loader placed in memory and
// ROCr's own blit kernels (copies, fills) executed as memmove / fill.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "interpreter.hpp"

namespace hsad::sim {

// Returns the queue id; the doorbell address ROCr will store packet indices to. `error_reason`
// is where ROCr wants queue exceptions reported (the value of its exception signal), or null.
std::uint64_t create_aql_queue(std::uint32_t node, void* ring, std::uint64_t ring_bytes, std::uint64_t* read_index,
                               volatile std::int64_t* error_reason, std::uint64_t** doorbell);
bool destroy_queue(std::uint64_t id);

// What the simulated GPU attaches to each of its queues (WorkGroup::queue_context).
struct QueueContext {
  std::uint32_t node = 0;
  std::uint64_t id = 0;
  // Under --cache report: the writer_tag (l2_cache.hpp) of the queue's latest dispatch, which the
  // work-groups it runs leave on the lines they write.
  std::atomic<std::uint16_t> writer{0};
  std::atomic<isa::GlobalWaveSync*> gws{nullptr};  // the device's GWS while this queue holds them
};

// hsaKmtAllocQueueGWS: the queue's device's GWS to the queue (`count` > 0), or back (0).
enum class GwsResult { ok, no_queue, busy };
GwsResult allocate_gws(std::uint64_t queue_id, std::uint32_t count);

// Why the queue on `ring` stopped (a kernel's fault, with its kernel, pc and instruction): the
// message's length, its first bytes - 1 characters copied to `buffer`; 0 while it runs.
std::size_t queue_error(const void* ring, char* buffer, std::size_t bytes);

}  // namespace hsad::sim
