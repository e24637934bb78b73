// The interpreter runs hipcc's machine code on host memory and gets what a CPU reference gets:
// the interpreter's own kernels (kernels/isa_test_kernels.hip) on every target, in wave64 and
// wave32, and as code object v5 (kernel_checks.cpp holds the checks).
#include <gtest/gtest.h>

#include "loaded_code.hpp"

namespace hsad::isa::testing {
namespace {

class TestKernels : public ::testing::TestWithParam<const char*> {
 protected:
  static const LoadedCode& code_for(const std::string& file) {
    static std::map<std::string, std::unique_ptr<LoadedCode>> cache;
    auto& c = cache[file];
    if (!c) c = std::make_unique<LoadedCode>(read_file(std::string(HSAD_ISA_KERNELS_DIR) + "/" + file));
    return *c;
  }
  HostRunner runner{code_for(GetParam())};
};

TEST_P(TestKernels, AWorkGroupReductionThroughLdsAndBarriers) { check_reduce(runner); }
TEST_P(TestKernels, AHistogramThroughLdsAndGlobalAtomics) { check_histogram(runner); }
TEST_P(TestKernels, AWorkGroupsWavesRunSideBySide) { check_waves_side_by_side(runner); }
TEST_P(TestKernels, DoublesAddedInLdsByAtomics) { check_lds_double_sums(runner); }
TEST_P(TestKernels, ClampedAddsAndSubtractsSaturate) { check_saturating(runner); }
TEST_P(TestKernels, SixtyFourBitCarriesBorrowsAndMultiplyAdds) { check_wide_arith(runner); }
TEST_P(TestKernels, ByteDotProductsAndPackedHalfMultiplies) { check_packed_int(runner); }
TEST_P(TestKernels, CrossLaneOperationsFollowTheWavefrontSize) { check_wave_ops(runner); }
TEST_P(TestKernels, DivergentLoopsEndLaneByLane) { check_collatz(runner); }
TEST_P(TestKernels, TwoAndThreeDimensionalGridsWithPartialWorkGroups) { check_grids(runner); }
TEST_P(TestKernels, TheKernelReadsGridDimAndBlockDim) { check_dims(runner); }
TEST_P(TestKernels, RegisterIndexingReadsAndWritesTheChosenRegister) { check_gpr_index(runner); }
TEST_P(TestKernels, APrivateArrayLivesInScratch) { check_scratch(runner); }
TEST_P(TestKernels, DivisionSquareRootAndFmaAreCorrectlyRounded) { check_math(runner); }
TEST_P(TestKernels, SineAndCosineOfHugeArgumentsReduceBy2OverPi) { check_trig(runner); }
TEST_P(TestKernels, ABufferLoadPastNumRecordsCountingItsSgprOffsetReadsZero) { check_buffer_bounds(runner); }
TEST_P(TestKernels, PackedFloatsTakeAnInlineConstantInBothHalves) { check_pk_f32_constants(runner); }
TEST_P(TestKernels, TheScalarUnitsFloatInstructionsComputeAsTheHost) { check_salu_float(runner); }
TEST_P(TestKernels, WaveMatrixInstructionsComputeTheirTileAsTheHost) { check_wmma(runner); }
TEST_P(TestKernels, EveryMatrixFormComputesItsBlocksBitForBit) { check_mfma(runner); }
TEST_P(TestKernels, AMatrixInstructionAtPartialExecReadsEveryLanesInputs) { check_mfma_partial_exec(runner); }

// One code object per target built (isa_gfx90a.co ...), and gfx90a's as code object v5.
std::vector<const char*> test_kernel_files() {
  static const std::vector<std::string> files = [] {
    std::vector<std::string> f;
    for (const char* t : isa_targets()) f.push_back(std::string("isa_") + t + ".co");
    f.push_back("isa_v5_gfx90a.co");
    return f;
  }();
  std::vector<const char*> out;
  for (const std::string& f : files) out.push_back(f.c_str());
  return out;
}

INSTANTIATE_TEST_SUITE_P(Targets, TestKernels, ::testing::ValuesIn(test_kernel_files()), [](const auto& info) {
  const std::string s = info.param;
  return s.substr(4, s.size() - 7);  // "isa_gfx90a.co" -> "gfx90a"
});

// gfx1030 in wave64 (built with clang: HIP's headers refuse it).
class Wave64OnGfx1030 : public ::testing::Test {
 protected:
  LoadedCode code{read_file(std::string(HSAD_ISA_KERNELS_DIR) + "/w64_gfx1030.co")};
  HostRunner runner{code};
};

TEST_F(Wave64OnGfx1030, CrossLaneOperationsSpanSixtyFourLanes) {
  ASSERT_EQ(runner.wave_size(), 64u);
  check_wave_ops(runner, "w64_wave_ops");
}
TEST_F(Wave64OnGfx1030, AWorkGroupReduction) { check_reduce(runner, "w64_reduce"); }

}  // namespace
}  // namespace hsad::isa::testing
