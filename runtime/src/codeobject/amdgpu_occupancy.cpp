// CLR's occupancy model for AMD compute units, with LLVM's register files per target.
#include "codeobject/amdgpu_occupancy.hpp"

#include "hsad/code_object.hpp"

#include <algorithm>
#include <string>

namespace hsad::codeobject {
namespace {
std::uint32_t align_up(std::uint32_t v, std::uint32_t a) { return (v + a - 1) / a * a; }
}  // namespace

std::optional<AmdgpuComputeUnit> amdgpu_compute_unit(std::string_view processor) {
  // "gfx90a", "gfx90a:xnack-" or a full ISA name, "amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack-".
  if (const auto dashes = processor.rfind("--"); dashes != std::string_view::npos) processor.remove_prefix(dashes + 2);
  const std::string_view name = processor.substr(0, processor.find(':'));
  // GCN and CDNA: 4 SIMD64 per CU, 800 SGPRs per SIMD, 64 KiB of LDS per CU; CLR caps a SIMD at
  // 8 waves (the SPI's 32 per CU).
  AmdgpuComputeUnit cu;
  cu.sgprs_per_simd = 800;
  cu.simds = 4;
  cu.max_waves_per_simd = 8;
  cu.lds_bytes = 64 * 1024;
  if (name == "gfx900" || name == "gfx902" || name == "gfx904" || name == "gfx906" || name == "gfx908" ||
      name == "gfx909" || name == "gfx90c") {
    cu.vgprs_per_simd = 256;
    cu.vgpr_granule = 4;
    return cu;
  }
  if (name == "gfx90a" || name == "gfx940" || name == "gfx941" || name == "gfx942") {
    cu.vgprs_per_simd = 512;  // VGPRs and AGPRs together
    cu.vgpr_granule = 8;
    cu.unified_agprs = true;
    return cu;
  }
  return std::nullopt;
}

std::uint32_t amdgpu_groups_per_cu(const AmdgpuComputeUnit& cu, const KernelInfo& kernel, std::uint32_t group_size,
                                   std::uint32_t dynamic_lds) {
  const std::uint32_t wave = kernel.wavefront_size ? kernel.wavefront_size : 64;
  // Registers per lane a wave takes: on gfx90a the AGPRs follow the VGPRs (aligned to 4) in one
  // file; on gfx908 they are a file of their own, so the larger of the two bounds it.
  const std::uint32_t vgprs = cu.unified_agprs
                                  ? (kernel.accum_registers ? align_up(kernel.vector_registers, 4) + kernel.accum_registers
                                                            : kernel.vector_registers)
                                  : std::max(kernel.vector_registers, kernel.accum_registers);
  const std::uint32_t vgpr_waves = vgprs ? cu.vgprs_per_simd / align_up(vgprs, cu.vgpr_granule) : cu.max_waves_per_simd;
  const std::uint32_t sgpr_waves =
      kernel.scalar_registers ? cu.sgprs_per_simd / align_up(kernel.scalar_registers, 16) : vgpr_waves;
  const std::uint32_t waves_per_simd = std::min({cu.max_waves_per_simd, vgpr_waves, sgpr_waves});
  const std::uint64_t threads = std::uint64_t(cu.simds) * waves_per_simd * wave;
  std::uint64_t groups = threads / align_up(group_size, wave);
  const std::uint64_t lds = std::uint64_t(kernel.group_segment_size) + dynamic_lds;
  if (lds) groups = std::min<std::uint64_t>(groups, cu.lds_bytes / lds);
  return std::uint32_t(groups);
}

}  // namespace hsad::codeobject

namespace hsad {
std::optional<std::uint32_t> amdgpu_groups_per_cu(std::string_view processor, const KernelInfo& kernel,
                                                  std::uint32_t group_size, std::uint32_t dynamic_lds) {
  const auto cu = codeobject::amdgpu_compute_unit(processor);
  if (!cu) return std::nullopt;
  return codeobject::amdgpu_groups_per_cu(*cu, kernel, group_size, dynamic_lds);
}
}  // namespace hsad
