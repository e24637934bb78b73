// CLR's occupancy model for AMD compute units, with LLVM's register files per target.
#include "codeobject/amdgpu_occupancy.hpp"

#include "hsad/code_object.hpp"

#include <algorithm>
#include <initializer_list>
#include <string>

namespace hsad::codeobject {
namespace {
std::uint32_t align_up(std::uint32_t v, std::uint32_t a) { return (v + a - 1) / a * a; }
}  // namespace

std::optional<AmdgpuComputeUnit> amdgpu_compute_unit(std::string_view processor) {
  // "gfx90a", "gfx90a:xnack-" or a full ISA name, "amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack-".
  if (const auto dashes = processor.rfind("--"); dashes != std::string_view::npos) processor.remove_prefix(dashes + 2);
  const std::string_view name = processor.substr(0, processor.find(':'));
  const auto is = [&](std::initializer_list<std::string_view> names) {
    for (std::string_view n : names) {
      if (n == name) return true;
    }
    return false;
  };
  // GCN and CDNA: 4 SIMD64 per CU, 800 SGPRs per SIMD, 64 KiB of LDS per CU; CLR caps a SIMD at
  // 8 waves (the SPI's 32 per CU).
  AmdgpuComputeUnit cu;
  cu.sgprs_per_simd = 800;
  cu.simds = 4;
  cu.max_waves_per_simd = 8;
  cu.lds_bytes = 64 * 1024;
  if (is({"gfx900", "gfx902", "gfx904", "gfx906", "gfx908", "gfx909", "gfx90c", "gfx9-generic"})) {
    cu.vgprs_per_simd = 256;
    cu.vgpr_granule = 4;
    return cu;
  }
  if (is({"gfx90a", "gfx940", "gfx941", "gfx942", "gfx9-4-generic", "gfx950"})) {
    cu.vgprs_per_simd = 512;  // VGPRs and AGPRs together
    cu.vgpr_granule = 8;
    cu.unified_agprs = true;
    if (name == "gfx950") cu.lds_bytes = 160 * 1024;
    return cu;
  }
  // RDNA, per compute unit (ROCr's count): 2 SIMD32s; CLR caps a SIMD at 16 waves (gfx101x holds
  // 20); a work-group processor's 128 KiB of LDS is two CUs' 64. Register files in wave32 units,
  // as LLVM's AMDGPUBaseInfo gives them: 1.5x VGPRs on gfx1100, gfx1101, gfx1151 and gfx12.
  cu.sgprs_per_simd = 0;
  cu.simds = 2;
  cu.max_waves_per_simd = 16;
  cu.rdna = true;
  if (is({"gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx10-1-generic"})) {
    cu.vgprs_per_simd = 1024;
    cu.vgpr_granule = 8;
    return cu;
  }
  if (is({"gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036", "gfx10-3-generic", "gfx1102",
          "gfx1103", "gfx1150", "gfx1152", "gfx1153", "gfx11-generic"})) {
    cu.vgprs_per_simd = 1024;
    cu.vgpr_granule = 16;
    return cu;
  }
  if (is({"gfx1100", "gfx1101", "gfx1151", "gfx1200", "gfx1201", "gfx12-generic"})) {
    cu.vgprs_per_simd = 1536;
    cu.vgpr_granule = 24;
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
  // RDNA's numbers are wave32's: a wave64 has twice the lanes, so half as many of its registers fit.
  const std::uint32_t file = cu.rdna && wave == 64 ? cu.vgprs_per_simd / 2 : cu.vgprs_per_simd;
  const std::uint32_t granule = cu.rdna && wave == 64 ? cu.vgpr_granule / 2 : cu.vgpr_granule;
  const std::uint32_t vgpr_waves = vgprs ? file / align_up(vgprs, granule) : cu.max_waves_per_simd;
  const std::uint32_t sgpr_waves = kernel.scalar_registers && cu.sgprs_per_simd
                                       ? cu.sgprs_per_simd / align_up(kernel.scalar_registers, 16)
                                       : vgpr_waves;
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
