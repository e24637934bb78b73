// The simulated GPU's copy engines (SDMA): the queues ROCr creates for its copies when SDMA is on
// (hsad-sim's default, as on AMD hardware; --sdma off gives ROCr's blit kernels instead). One
// engine thread per queue reads ROCr's SDMA packets (the formats of ROCr's sdma_registers.h, as
// its BlitSdma writes them for gfx9 and gfx10: linear copy, constant fill, fence, poll of memory,
// 64-bit atomic add, trap, global timestamp, HDP flush, GCR) and executes them on memory: the
// engine is outside the GPU's L2, so it sees a kernel's results only after a system-scope
// release, except where a GCR packet (gfx10) writes the L2 back itself.
#pragma once

#include <cstdint>

namespace hsad::sim {

// An SDMA queue of GPU `node` (KFD's SDMA and SDMA_XGMI queue types) on `ring`: the engine
// executes what lies between its read pointer (`read_index`, advanced here) and what ROCr stores to
// its doorbell (`doorbell`), 64-bit byte indices, monotonic, as gfx9 and later use them. Returns
// the queue's id, 0 for a ring that is not a power of two.
std::uint64_t create_sdma_queue(std::uint32_t node, void* ring, std::uint64_t bytes, std::uint64_t* read_index,
                                const std::uint64_t* doorbell);
// The SDMA queue `id` is stopped and forgotten; false where `id` names no SDMA queue.
bool destroy_sdma_queue(std::uint64_t id);
// Linear copies the engines executed so far, and their bytes (--stats).
std::uint64_t sdma_copies();
std::uint64_t sdma_bytes();
// Whether `id` is an SDMA queue's (they are numbered apart from the AQL queues).
inline bool is_sdma_queue_id(std::uint64_t id) { return (id >> 62) == 1; }

}  // namespace hsad::sim
