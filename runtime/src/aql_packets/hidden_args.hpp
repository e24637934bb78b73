// AMD hidden kernel arguments: the ones the dispatcher writes after the caller's arguments.
// A plan is made once per kernel (refusing any it cannot fill); filling it is cheap.
#pragma once

#include <cstdint>
#include <vector>

#include "hsad/kernel.hpp"

namespace hsad::aql {

enum class HiddenValue : std::uint8_t {
  zero,                  // global offsets, hidden_none, and handles this dispatcher never provides
  block_count_x, block_count_y, block_count_z,  // v5: whole work-groups per dimension
  group_size_x, group_size_y, group_size_z,     // v5
  remainder_x, remainder_y, remainder_z,        // v5: work-items of the partial last group
  grid_dims,                                    // v5: 1, 2 or 3
  dynamic_lds_size,                             // v5: the dispatch's dynamic LDS bytes
  hostcall_buffer,                              // printf's and malloc's channel to the host
  heap,                                         // v5: the device heap of malloc and free
  queue_ptr,                                    // v5: the hsa_queue_t the dispatch runs on
  grid_sync,                                    // a cooperative dispatch's memory grid barrier (mg_info)
};

// What a dispatch's hidden arguments are filled with beyond its shape.
struct HiddenContext {
  std::uint32_t dynamic_lds = 0;        // LaunchConfig::dynamic_shared_bytes, as CLR writes it
  std::uint64_t hostcall_buffer = 0;    // the device's hostcall buffer (rocr::HostcallService)
  std::uint64_t heap = 0;               // the device's heap (v5 malloc)
  std::uint64_t queue_ptr = 0;          // the ring's hsa_queue_t
  // A cooperative dispatch: its grid barrier's block (AqlAgent::grid_sync_block), which
  // hsad_gws_init readies before it; 0 otherwise (ockl's grid.is_valid() is then false).
  std::uint64_t grid_sync = 0;
};

struct HiddenArg {
  std::uint32_t offset = 0;
  std::uint32_t size = 0;
  HiddenValue value = HiddenValue::zero;
};

// Throws hsad::Error naming the kernel and the argument for a hidden argument this dispatcher
// cannot fill (a printf or hostcall buffer, a device heap, apertures, an unknown kind).
std::vector<HiddenArg> plan_hidden_args(const KernelInfo& kernel);

void fill_hidden_args(const std::vector<HiddenArg>& plan, void* kernarg, const Dim3& grid, const Dim3& group,
                      const HiddenContext& context);
// Whether a plan holds the hostcall buffer (printf, malloc), or the device heap (v5 malloc).
bool needs_hostcall(const std::vector<HiddenArg>& plan);
bool needs_heap(const std::vector<HiddenArg>& plan);

}  // namespace hsad::aql

namespace hsad::detail {
struct Dispatch;
struct KernelImpl;
}  // namespace hsad::detail

namespace hsad::aql {
// hsad_gws_init's kernarg block for cooperative dispatch `d`: the grid's work-groups minus one (one
// wave of each waits at ockl's grid barrier), the grid barrier's block in memory (`grid_sync`, 0:
// none) and the grid's work-items, and its hidden arguments.
void write_gws_init(void* kernarg, const detail::KernelImpl& gws_init, const detail::Dispatch& d, std::uint64_t grid_sync);

// The work-groups of a dispatch of `grid` work-items in groups of `group` (whole groups).
inline std::uint64_t group_count(const Dim3& grid, const Dim3& group) {
  return std::uint64_t((grid.x + group.x - 1) / group.x) * ((grid.y + group.y - 1) / group.y) *
         ((grid.z + group.z - 1) / group.z);
}

}  // namespace hsad::aql
