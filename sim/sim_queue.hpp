// The simulated GPU's queues: each AQL ring ROCr creates is drained by the cpu agent's packet
// processor, with kernels resolved from the code object ROCr's loader placed in memory and
// ROCr's own blit kernels (copies, fills) executed as memmove / fill.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hsad::sim {

// Returns the queue id; the doorbell address ROCr will store packet indices to. `error_reason`
// is where ROCr wants queue exceptions reported (the value of its exception signal), or null.
std::uint64_t create_aql_queue(std::uint32_t node, void* ring, std::uint64_t ring_bytes, std::uint64_t* read_index,
                               volatile std::int64_t* error_reason, std::uint64_t** doorbell);
bool destroy_queue(std::uint64_t id);

// Why the queue on `ring` stopped (a kernel's fault, with its kernel, pc and instruction): the
// message's length, its first bytes - 1 characters copied to `buffer`; 0 while it runs.
std::size_t queue_error(const void* ring, char* buffer, std::size_t bytes);

}  // namespace hsad::sim
