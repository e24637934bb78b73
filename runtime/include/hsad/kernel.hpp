// Kernels as the dispatcher sees them: a name, a kernarg layout, segment sizes.
// The same description comes from AMD metadata, cuFuncGetParamInfo, or a host kernel's registration.
#pragma once

#include "hsad/export.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hsad {

struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
  // x * y * z, at most 2^64 - 1: three 32-bit axes can make 2^96, which would wrap (to 0, or
  // to a count that passes a limit).
  std::uint64_t volume() const {
    const std::uint64_t xy = std::uint64_t(x) * y;  // below 2^64
    return z != 0 && xy > ~std::uint64_t(0) / z ? ~std::uint64_t(0) : xy * z;
  }
  int dimensions() const { return z > 1 ? 3 : (y > 1 ? 2 : 1); }
};

enum class ArgKind : std::uint8_t {
  by_value,       // plain data
  global_buffer,  // a pointer to device memory
  hidden,         // filled by the dispatcher (AMD hidden arguments); never given by the caller
};

struct HSAD_API ArgInfo {
  std::string name;
  std::uint32_t offset = 0;
  std::uint32_t size = 0;
  ArgKind kind = ArgKind::by_value;
  std::string value_kind;  // the code object's own word for hidden ones ("hidden_block_count_x", ...)
};

struct HSAD_API KernelInfo {
  std::string name;
  std::uint32_t kernarg_segment_size = 0;   // bytes the dispatcher must provide, hidden args included
  std::uint32_t kernarg_segment_align = 8;
  std::uint32_t group_segment_size = 0;
  std::uint32_t private_segment_size = 0;
  std::uint32_t wavefront_size = 0;         // 0 where the backend has no such notion
  std::uint32_t max_workgroup_size = 0;     // work-items per group the code allows (launch bounds); 0: no limit known
  std::vector<ArgInfo> args;                // every argument in offset order, hidden ones included
  // What the kernel costs the device, from the code object (AMD metadata) or the driver (CUDA's
  // function attributes); 0 where the backend does not say (the cpu agent).
  std::uint32_t vector_registers = 0;  // per work-item: AMD VGPRs (.vgpr_count), NVIDIA registers per thread
  std::uint32_t accum_registers = 0;   // per work-item: AMD AGPRs (.agpr_count, gfx908 and gfx90a)
  std::uint32_t scalar_registers = 0;  // per wave: AMD SGPRs (.sgpr_count); none on NVIDIA
  std::uint32_t vector_spills = 0;     // AMD .vgpr_spill_count (NVIDIA spills to local memory: private_segment_size)
  std::uint32_t scalar_spills = 0;     // AMD .sgpr_spill_count
  // The compiler assumed that every work-group is whole (AMD code object v5+:
  // .uniform_work_group_size, clang 17 and later for HIP unless -fno-offload-uniform-block): such a
  // kernel reads a partial group's blockDim and the grid's gridDim wrong, so
  // Batch::exec_partial_groups refuses a partial group for it.
  bool uniform_work_group_size = false;

  std::size_t explicit_arg_count() const;
};

namespace detail { struct KernelImpl; }

// A kernel loaded on one device. Cheap to copy; the device keeps the code alive.
class HSAD_API Kernel {
 public:
  Kernel() = default;
  explicit Kernel(std::shared_ptr<const detail::KernelImpl> impl) : impl_(std::move(impl)) {}
  const KernelInfo& info() const;
  // Work-groups of `group_size` work-items, each with `dynamic_shared_bytes` of dynamic group
  // memory, that one compute unit (an SM on NVIDIA) holds at once: HIP's and CUDA's
  // OccupancyMaxActiveBlocksPerMultiprocessor. 0 where one group does not fit. rocr: CLR's
  // model from the code object's registers and LDS and the target's register file; cuda: the
  // driver's; the cpu agent: 1 (a worker thread runs one group at a time). Throws hsad::Error for
  // an empty Kernel, a group_size of 0 or over the kernel's limit, or an AMD target the model
  // does not know.
  std::uint32_t max_active_groups_per_cu(std::uint32_t group_size, std::uint32_t dynamic_shared_bytes = 0) const;
  const std::string& name() const { return info().name; }
  const detail::KernelImpl& impl() const { return *impl_; }
  explicit operator bool() const { return impl_ != nullptr; }

 private:
  std::shared_ptr<const detail::KernelImpl> impl_;
};

}  // namespace hsad
