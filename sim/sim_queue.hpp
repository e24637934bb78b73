// The simulated GPU's queues: each AQL ring ROCr creates is drained by the cpu agent's packet
// processor, with kernels resolved from the code object ROCr's loader placed in memory and
// ROCr's own blit kernels (copies, fills) executed as memmove / fill.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include <hsa/hsa.h>

#include "interpreter.hpp"

namespace hsad::sim {

// An AQL queue of GPU `node` on `ring` (ROCr's, at the same address for the GPU and the host),
// whose read index the processor advances at `read_index` (ROCr's amd_queue_t read_dispatch_id).
// `doorbell`: a signal (amd_signal_t layout) whose value is what ROCr stores to the queue's
// doorbell. `context_save_area`: the queue's CWSR area, whose header names where ROCr wants queue
// exceptions reported (KFD's protocol: the error-reason word at +24, the event at +32), or 0.
// Returns the queue's id.
std::uint64_t create_aql_queue(std::uint32_t node, void* ring, std::uint64_t ring_bytes, std::uint64_t* read_index,
                               std::uint64_t context_save_area, hsa_signal_t doorbell);
bool destroy_queue(std::uint64_t id);
// Whether the queue stopped on an error (UPDATE_QUEUE may then suspend it: nothing runs anyway).
bool queue_failed(std::uint64_t id);

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
