// How many work-groups of a kernel one AMD compute unit holds at once, as HIP's runtime computes it
// for hipOccupancyMaxActiveBlocksPerMultiprocessor (CLR): waves limited by the SIMD's vector and
// scalar register files and its wave slots, then groups limited by the CU's LDS. The per-target
// register files are LLVM's (AMDGPUBaseInfo: total VGPRs and the allocation granule, as comgr
// reports them to CLR). RDNA (gfx10 and later) counts per compute unit, as ROCr counts compute
// units: 2 SIMD32s, the SGPR file never limits, and a work-group processor's 128 KiB of LDS is 64
// KiB per CU. No AMD hardware was reachable to measure it against.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "hsad/kernel.hpp"

namespace hsad::codeobject {

struct AmdgpuComputeUnit {
  std::uint32_t vgprs_per_simd = 0;   // per lane (RDNA: in wave32; a wave64 kernel gets half the lanes' worth)
  std::uint32_t vgpr_granule = 0;     // allocation granule, per lane (RDNA: wave32; halved for wave64)
  bool unified_agprs = false;         // gfx90a, gfx94x, gfx950: AGPRs come out of the same file as VGPRs
  bool rdna = false;                  // gfx10 and later: the register numbers are wave32's
  std::uint32_t sgprs_per_simd = 0;   // 0: SGPRs never limit (RDNA)
  std::uint32_t simds = 0;
  std::uint32_t max_waves_per_simd = 0;
  std::uint32_t lds_bytes = 0;
};

// The compute unit of a processor ("gfx90a", a target id such as "gfx90a:xnack-", or a generic
// family such as "gfx11-generic"); nullopt for one the model does not cover.
std::optional<AmdgpuComputeUnit> amdgpu_compute_unit(std::string_view processor);

// Work-groups of `group_size` work-items with `dynamic_lds` bytes of dynamic LDS each, resident on
// one compute unit at once; 0 where the kernel's registers leave no wave slot.
std::uint32_t amdgpu_groups_per_cu(const AmdgpuComputeUnit& cu, const KernelInfo& kernel, std::uint32_t group_size,
                                   std::uint32_t dynamic_lds);

}  // namespace hsad::codeobject
