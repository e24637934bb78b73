// CLR's occupancy model (hsad::amdgpu_groups_per_cu): each limit in turn, on gfx908 (256 VGPRs,
// separate AGPRs), gfx90a (512 VGPRs and AGPRs in one file), gfx950 and RDNA, worked out by hand.
#include <gtest/gtest.h>

#include "hsad/code_object.hpp"

using namespace hsad;

namespace {
KernelInfo kernel(std::uint32_t vgprs, std::uint32_t sgprs, std::uint32_t agprs = 0, std::uint32_t lds = 0) {
  KernelInfo k;
  k.name = "k";
  k.wavefront_size = 64;
  k.vector_registers = vgprs;
  k.scalar_registers = sgprs;
  k.accum_registers = agprs;
  k.group_segment_size = lds;
  return k;
}
std::uint32_t groups(const char* target, const KernelInfo& k, std::uint32_t group, std::uint32_t dynamic = 0) {
  const auto g = amdgpu_groups_per_cu(target, k, group, dynamic);
  EXPECT_TRUE(g.has_value()) << target;
  return g.value_or(~0u);
}
}  // namespace

TEST(AmdgpuOccupancy, FewRegistersFillTheWaveSlots) {
  // 8 waves on each of 4 SIMDs: 2048 work-items, 8 groups of 256, 32 of 64.
  EXPECT_EQ(groups("gfx90a", kernel(8, 16), 256), 8u);
  EXPECT_EQ(groups("gfx908", kernel(8, 16), 64), 32u);
  EXPECT_EQ(groups("gfx90a:xnack-", kernel(8, 16), 256), 8u) << "a target id names its processor";
  EXPECT_EQ(groups("amdgcn-amd-amdhsa--gfx908:sramecc+:xnack-", kernel(8, 16), 256), 8u) << "so does an ISA name";
  // A group of 65 takes two waves: 2048 / 128.
  EXPECT_EQ(groups("gfx90a", kernel(8, 16), 65), 16u);
}

TEST(AmdgpuOccupancy, VectorRegistersLimitTheWaves) {
  // 128 VGPRs: gfx90a 512 / 128 = 4 waves per SIMD (1024 items, 4 groups of 256); gfx908 256 / 128 = 2.
  EXPECT_EQ(groups("gfx90a", kernel(128, 16), 256), 4u);
  EXPECT_EQ(groups("gfx908", kernel(128, 16), 256), 2u);
  // Allocation granules: 65 VGPRs take 72 on gfx90a (512 / 72 = 7 waves) and 68 on gfx908 (256 / 68 = 3).
  EXPECT_EQ(groups("gfx90a", kernel(65, 16), 64), 28u);
  EXPECT_EQ(groups("gfx908", kernel(65, 16), 64), 12u);
  // More than the file holds: no wave fits.
  EXPECT_EQ(groups("gfx908", kernel(300, 16), 64), 0u);
}

TEST(AmdgpuOccupancy, AccumulationRegistersShareTheFileOnlyOnGfx90a) {
  // gfx90a: AGPRs follow the VGPRs aligned to 4: 126 -> 128, + 128 = 256, 2 waves per SIMD.
  EXPECT_EQ(groups("gfx90a", kernel(126, 16, 128), 256), 2u);
  // gfx908: a file of their own; the larger count (200 -> 200) bounds it: 1 wave per SIMD.
  EXPECT_EQ(groups("gfx908", kernel(50, 16, 200), 256), 1u);
}

TEST(AmdgpuOccupancy, ScalarRegistersAndLdsLimitToo) {
  // 102 SGPRs take 112: 800 / 112 = 7 waves per SIMD, 1792 items, 7 groups of 256.
  EXPECT_EQ(groups("gfx90a", kernel(8, 102), 256), 7u);
  // 16 KiB static + 16 KiB dynamic LDS: 2 groups in the CU's 64 KiB, whatever the registers allow.
  EXPECT_EQ(groups("gfx90a", kernel(8, 16, 0, 16384), 64, 16384), 2u);
  EXPECT_EQ(groups("gfx90a", kernel(8, 16, 0, 1024), 64, 64 * 1024), 0u) << "one group needs more than the CU has";
}

// RDNA, per compute unit as ROCr counts them: 2 SIMD32s of 16 waves, register files in wave32
// units (LLVM's AMDGPUBaseInfo), no SGPR limit, 64 KiB of LDS (half a work-group processor's).
KernelInfo wave32(std::uint32_t vgprs, std::uint32_t sgprs, std::uint32_t lds = 0) {
  KernelInfo k = kernel(vgprs, sgprs, 0, lds);
  k.wavefront_size = 32;
  return k;
}

TEST(AmdgpuOccupancy, RdnaFillsTwoSimd32sOfSixteenWaves) {
  // 2 x 16 waves x 32 lanes: 1024 items, 4 groups of 256, on gfx1030, gfx1100 and gfx1201 alike.
  for (const char* t : {"gfx1030", "gfx1100", "gfx1151", "gfx1201", "gfx11-generic", "gfx12-generic"}) {
    EXPECT_EQ(groups(t, wave32(8, 16), 256), 4u) << t;
  }
  // SGPRs never limit from gfx10 on: 102 of them still give 4 (gfx90a: 7 waves, above).
  EXPECT_EQ(groups("gfx1030", wave32(8, 102), 256), 4u);
}

TEST(AmdgpuOccupancy, RdnaVectorRegistersPerTarget) {
  // gfx1030: 1024 per lane, granule 16: 128 VGPRs -> 8 waves per SIMD, 512 items, 2 groups of 256.
  EXPECT_EQ(groups("gfx1030", wave32(128, 16), 256), 2u);
  // 1.5x the file on gfx1100 (granule 24): 97 -> 120, 1536 / 120 = 12 waves, 768 items, 3 groups.
  EXPECT_EQ(groups("gfx1100", wave32(97, 16), 256), 3u);
  EXPECT_EQ(groups("gfx1201", wave32(97, 16), 256), 3u);
  // gfx1102 has the plain file: 97 -> 112, 1024 / 112 = 9 waves, 576 items, 2 groups.
  EXPECT_EQ(groups("gfx1102", wave32(97, 16), 256), 2u);
  // gfx1010's granule is 8: 97 -> 104, 1024 / 104 = 9 waves, 2 groups.
  EXPECT_EQ(groups("gfx1010", wave32(97, 16), 256), 2u);
  // A wave64 kernel: half the file and half the granule, twice the lanes: 512 / 128 = 4 waves, 512 items.
  EXPECT_EQ(groups("gfx1030", kernel(128, 16), 256), 2u);
}

TEST(AmdgpuOccupancy, LdsPerTarget) {
  // 32 KiB per group: 2 on an RDNA CU (half its WGP's 128 KiB) and on gfx942; gfx950 has 160 KiB.
  EXPECT_EQ(groups("gfx1030", wave32(8, 16, 32 * 1024), 64), 2u);
  EXPECT_EQ(groups("gfx942", kernel(8, 16, 0, 32 * 1024), 64), 2u);
  EXPECT_EQ(groups("gfx950", kernel(8, 16, 0, 32 * 1024), 64), 5u);
}

TEST(AmdgpuOccupancy, AProcessorOutsideTheModelIsNotGuessed) {
  EXPECT_FALSE(amdgpu_groups_per_cu("gfx9000", kernel(8, 16), 256).has_value());
  EXPECT_FALSE(amdgpu_groups_per_cu("gfx1250", wave32(8, 16), 256).has_value());
  EXPECT_FALSE(amdgpu_groups_per_cu("gfx803", kernel(8, 16), 256).has_value());
}
