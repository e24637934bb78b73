// Host kernels: what the cpu agent runs for a kernel name. Each is called once per work-group
// and reads its arguments from the packet's kernarg memory, as a GPU kernel would.
#pragma once

#include "hsad/export.hpp"

#include <atomic>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "hsad/kernel.hpp"

namespace hsad {

struct HSAD_API WorkGroup {
  const void* kernarg;
  Dim3 grid;   // work-items
  Dim3 size;   // work-group size
  Dim3 id;     // this group's id
  void* group_memory;  // group_memory_bytes of scratch for this group (LDS), or nullptr
  // The AQL kernel dispatch packet (hsa_kernel_dispatch_packet_t) as the agent read it, valid
  // while the dispatch runs: for agents that execute the packet's own code object (the simulated
  // GPU's ISA interpreter). nullptr for the processor's internal work (copies).
  const void* dispatch_packet = nullptr;
  // Set when the dispatch is cancelled (its queue destroyed, Device::reset): the agent starts no
  // more of its work-groups, and a long-running one may look here and return early.
  const std::atomic<bool>* cancel = nullptr;
  // What the agent that drains the dispatch's queue attached to that queue (the simulated GPU:
  // the queue's share of the device, such as its global wave sync resources); nullptr otherwise.
  const void* queue_context = nullptr;
  // Bytes at group_memory: the kernel's static group_segment_size and the dispatch's
  // LaunchConfig::dynamic_shared_bytes (which starts at group_memory + group_segment_size).
  std::uint32_t group_memory_bytes = 0;
  // A cooperative dispatch's grid barrier (LaunchConfig::cooperative): set by the agent, used
  // through grid_sync().
  void (*grid_barrier)(const void* state) = nullptr;
  const void* grid_barrier_state = nullptr;

  // Returns once every work-group of the grid has called it (cooperative_groups' grid.sync()).
  // Only in a cooperative dispatch, where all of them run at once; elsewhere it throws. Throws too
  // where another work-group of the grid failed, so that none waits for good.
  void grid_sync() const;

  bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
  template <class Args> const Args& args() const { return *static_cast<const Args*>(kernarg); }
  // Work-items of this group along x, clipped to the grid (AQL allows a partial last group).
  std::uint32_t first_x() const { return id.x * size.x; }
  std::uint32_t end_x() const { std::uint64_t e = std::uint64_t(first_x()) + size.x; return e < grid.x ? std::uint32_t(e) : grid.x; }
  std::uint32_t first_y() const { return id.y * size.y; }
  std::uint32_t end_y() const { std::uint64_t e = std::uint64_t(first_y()) + size.y; return e < grid.y ? std::uint32_t(e) : grid.y; }
  std::uint32_t first_z() const { return id.z * size.z; }
  std::uint32_t end_z() const { std::uint64_t e = std::uint64_t(first_z()) + size.z; return e < grid.z ? std::uint32_t(e) : grid.z; }
};

using HostKernelFn = void (*)(const WorkGroup&);

struct HSAD_API HostKernel {
  KernelInfo info;
  HostKernelFn fn = nullptr;
};

// Describes one argument of a host kernel's argument struct: host_arg("keys", &Args::keys).
template <class Args, class T>
ArgInfo host_arg(const char* name, T Args::*member) {
  static const Args probe{};
  auto offset = reinterpret_cast<const unsigned char*>(&(probe.*member)) - reinterpret_cast<const unsigned char*>(&probe);
  return ArgInfo{name, static_cast<std::uint32_t>(offset), sizeof(T),
                 std::is_pointer_v<T> ? ArgKind::global_buffer : ArgKind::by_value, {}};
}

// Builds the HostKernel for an argument struct: kernarg size and alignment from the struct.
template <class Args>
HostKernel make_host_kernel(std::string name, HostKernelFn fn, std::vector<ArgInfo> args,
                            std::uint32_t group_segment_size = 0) {
  HostKernel k;
  k.info.name = std::move(name);
  k.info.kernarg_segment_size = sizeof(Args);
  k.info.kernarg_segment_align = alignof(Args) < 8 ? 8 : alignof(Args);
  k.info.group_segment_size = group_segment_size;
  k.info.args = std::move(args);
  k.fn = fn;
  return k;
}
// For a kernel with no arguments.
HSAD_API HostKernel make_host_kernel(std::string name, HostKernelFn fn);

// Makes a host kernel known to every cpu-agent device (and the simulated GPU) by its name.
// Registering a name twice replaces nothing and throws hsad::Error; so do an empty name, no
// function, and an argument that ends past kernarg_segment_size (make_host_kernel<Args> with
// host_arg takes both from the struct).
HSAD_API void register_host_kernel(HostKernel kernel);
// nullptr if unknown.
HSAD_API const HostKernel* find_host_kernel(const std::string& name);

}  // namespace hsad
