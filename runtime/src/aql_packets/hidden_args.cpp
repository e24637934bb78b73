// What each hidden value kind means follows AMDGPUUsage ("Code Object V5 Metadata") and what
// CLR writes for HIP launches: block counts are whole groups, remainders the leftover items.
#include "aql_packets/hidden_args.hpp"

#include <cstring>
#include <map>
#include <string>

#include "backends/backend.hpp"
#include "batch_data.hpp"
#include "hsad/error.hpp"

namespace hsad::aql {
namespace {

const std::map<std::string, HiddenValue, std::less<>>& fillable() {
  static const std::map<std::string, HiddenValue, std::less<>> m = {
      {"hidden_global_offset_x", HiddenValue::zero},  {"hidden_global_offset_y", HiddenValue::zero},
      {"hidden_global_offset_z", HiddenValue::zero},  {"hidden_none", HiddenValue::zero},
      // No device-side enqueue: null. The multi-grid argument is a cooperative dispatch's grid barrier.
      {"hidden_multigrid_sync_arg", HiddenValue::grid_sync}, {"hidden_default_queue", HiddenValue::zero},
      {"hidden_completion_action", HiddenValue::zero}, {"hidden_dynamic_lds_size", HiddenValue::dynamic_lds_size},
      {"hidden_hostcall_buffer", HiddenValue::hostcall_buffer}, {"hidden_heap_v1", HiddenValue::heap},
      {"hidden_queue_ptr", HiddenValue::queue_ptr},
      {"hidden_block_count_x", HiddenValue::block_count_x}, {"hidden_block_count_y", HiddenValue::block_count_y},
      {"hidden_block_count_z", HiddenValue::block_count_z}, {"hidden_group_size_x", HiddenValue::group_size_x},
      {"hidden_group_size_y", HiddenValue::group_size_y}, {"hidden_group_size_z", HiddenValue::group_size_z},
      {"hidden_remainder_x", HiddenValue::remainder_x},   {"hidden_remainder_y", HiddenValue::remainder_y},
      {"hidden_remainder_z", HiddenValue::remainder_z},   {"hidden_grid_dims", HiddenValue::grid_dims},
  };
  return m;
}

std::uint64_t value_of(HiddenValue v, const Dim3& grid, const Dim3& group, const HiddenContext& context) {
  switch (v) {
    case HiddenValue::dynamic_lds_size: return context.dynamic_lds;
    case HiddenValue::hostcall_buffer: return context.hostcall_buffer;
    case HiddenValue::heap: return context.heap;
    case HiddenValue::queue_ptr: return context.queue_ptr;
    case HiddenValue::grid_sync: return context.grid_sync;
    case HiddenValue::zero: return 0;
    case HiddenValue::block_count_x: return grid.x / group.x;
    case HiddenValue::block_count_y: return grid.y / group.y;
    case HiddenValue::block_count_z: return grid.z / group.z;
    case HiddenValue::group_size_x: return group.x;
    case HiddenValue::group_size_y: return group.y;
    case HiddenValue::group_size_z: return group.z;
    case HiddenValue::remainder_x: return grid.x % group.x;
    case HiddenValue::remainder_y: return grid.y % group.y;
    case HiddenValue::remainder_z: return grid.z % group.z;
    case HiddenValue::grid_dims: return std::uint64_t(grid.dimensions());
  }
  return 0;
}

}  // namespace

std::vector<HiddenArg> plan_hidden_args(const KernelInfo& kernel) {
  std::vector<HiddenArg> plan;
  for (const ArgInfo& a : kernel.args) {
    if (a.kind != ArgKind::hidden) continue;
    const auto it = fillable().find(a.value_kind);
    if (it == fillable().end()) {
      throw Error(Errc::unsupported, "aql", "kernel " + kernel.name,
                  "kernel '" + kernel.name + "' needs hidden argument '" + a.value_kind + "' at offset " +
                      std::to_string(a.offset) + ", which this dispatcher cannot provide",
                  "the library fills the hidden arguments of code objects v4 and v5 that HIP's kernels use (ROCm 5); build the kernel without what needs this one");
    }
    if (a.size != 1 && a.size != 2 && a.size != 4 && a.size != 8) {
      throw Error(Errc::unsupported, "aql", "kernel " + kernel.name,
                  "hidden argument '" + a.value_kind + "' has size " + std::to_string(a.size) + " (not 1, 2, 4 or 8)");
    }
    plan.push_back({a.offset, a.size, it->second});
  }
  return plan;
}

bool needs_hostcall(const std::vector<HiddenArg>& plan) {
  for (const HiddenArg& h : plan) {
    if (h.value == HiddenValue::hostcall_buffer) return true;
  }
  return false;
}

bool needs_heap(const std::vector<HiddenArg>& plan) {
  for (const HiddenArg& h : plan) {
    if (h.value == HiddenValue::heap) return true;
  }
  return false;
}

void fill_hidden_args(const std::vector<HiddenArg>& plan, void* kernarg, const Dim3& grid, const Dim3& group,
                      const HiddenContext& context) {
  auto* base = static_cast<unsigned char*>(kernarg);
  for (const HiddenArg& h : plan) {
    const std::uint64_t v = value_of(h.value, grid, group, context);
    std::memcpy(base + h.offset, &v, h.size);  // little-endian: the low bytes of v
  }
}

void write_gws_init(void* kernarg, const detail::KernelImpl& gws_init, const detail::Dispatch& d, std::uint64_t grid_sync) {
  std::memset(kernarg, 0, gws_init.info.kernarg_segment_size);
  const auto waves_minus_one = static_cast<std::uint32_t>(group_count(d.grid, d.group) - 1);
  const std::uint64_t items = std::uint64_t(d.grid.x) * d.grid.y * d.grid.z;
  // (waves_minus_one, info, items) at the offsets the code object gives them.
  const std::vector<ArgInfo>& args = gws_init.info.args;
  if (args.size() < 3 || args[0].size != 4 || args[1].size != 8 || args[2].size != 8) {
    throw Error(Errc::runtime, "aql", "cooperative dispatch", "hsad_gws_init's code object does not take (u32, pointer, u64)");
  }
  auto* base = static_cast<unsigned char*>(kernarg);
  std::memcpy(base + args[0].offset, &waves_minus_one, 4);
  std::memcpy(base + args[1].offset, &grid_sync, 8);
  std::memcpy(base + args[2].offset, &items, 8);
  if (!gws_init.hidden_args.empty()) fill_hidden_args(gws_init.hidden_args, kernarg, Dim3{1}, Dim3{1}, HiddenContext{});
}

}  // namespace hsad::aql
