// The interpreter runs hipcc's machine code on host memory and gets what a CPU reference gets:
// the interpreter's own kernels (kernels/isa_test_kernels.hip) on every target, in wave64 and
// wave32, and as code object v5 (kernel_checks.cpp holds the checks).
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>

#include "l2_cache.hpp"
#include "whole_words.hpp"
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
TEST_P(TestKernels, AScalarBufferLoadReadsZeroForEachDwordPastNumRecords) { check_scalar_buffer_bounds(runner); }
TEST_P(TestKernels, PackedFloatsTakeAnInlineConstantInBothHalves) { check_pk_f32_constants(runner); }
TEST_P(TestKernels, TheScalarUnitsFloatInstructionsComputeAsTheHost) { check_salu_float(runner); }
TEST_P(TestKernels, WaveMatrixInstructionsComputeTheirTileAsTheHost) { check_wmma(runner); }
TEST_P(TestKernels, EveryMatrixFormComputesItsBlocksBitForBit) { check_mfma(runner); }
TEST_P(TestKernels, AMatrixInstructionAtPartialExecReadsEveryLanesInputs) { check_mfma_partial_exec(runner); }
TEST_P(TestKernels, EverySparseMatrixFormComputesItsBlockBitForBit) { check_smfmac(runner); }
TEST_P(TestKernels, EverySparseWaveMatrixFormComputesItsTileBitForBit) { check_swmmac(runner); }
TEST_P(TestKernels, ASparseMatrixInstructionAtPartialExecKeepsTheOtherLanesC) { check_sparse_partial_exec(runner); }
// An index set the form does not have (an 8-bit form has two of 16 bits): a fault that says so,
// not a result read from bits past the word.
TEST_P(TestKernels, ASparseIndexSetTheFormDoesNotHaveFaults) {
  const std::string p = runner.processor();
  if (p != "gfx940" && p != "gfx942" && p != "gfx950") GTEST_SKIP() << "no sparse matrix instructions on " << p;
  auto* in = static_cast<std::uint32_t*>(runner.alloc(4096 * 4));
  auto* out = static_cast<std::uint32_t*>(runner.alloc(32 * 64 * 4));
  try {
    runner.run("isa_smfmac", {64}, {64}, {in, out, 15u});  // v_smfmac_i32_16x16x64_i8 abid:2
    ADD_FAILURE() << "ran to its end";
  } catch (const Fault& f) {
    EXPECT_NE(std::string(f.what()).find("abid:2 names no set of the index (2 sets of 16 bits)"), std::string::npos) << f.what();
  }
}

// Host memory behind an L2 (the cache model's, l2_cache.hpp), as a GPU's own device memory is.
class CachedHostMemory : public HostMemory {
 public:
  template <class T>
  T* make_cached(std::size_t count) {
    T* p = make<T>(count);
    const auto base = reinterpret_cast<std::uint64_t>(p);
    ranges_[base] = std::make_unique<CachedRange>(l2_, base, count * sizeof(T));
    return p;
  }
  CachedRange* cached(std::uint64_t base) override {
    const auto it = ranges_.find(base);
    return it == ranges_.end() ? nullptr : it->second.get();
  }
  // What the GPU reads at `p` (through its L2), where memory itself may hold something older.
  std::uint32_t through_l2(const std::uint32_t* p) {
    const auto at = reinterpret_cast<std::uint64_t>(p);
    std::uint32_t v;
    std::memcpy(&v, cached(ranges_.begin()->first)->read(at, 4), 4);
    return v;
  }

 private:
  L2Cache l2_;
  std::map<std::uint64_t, std::unique_ptr<CachedRange>> ranges_;
};

// LLVM's memory models for GFX942 and GFX12: a load at system scope is not answered from the L2,
// a store at system scope reaches memory, an atomic at system scope is done there; at agent scope
// the one L2 serves them. Targets whose instructions carry no scope (gfx90a's memory type decides)
// have nothing to check here.
TEST_P(TestKernels, SystemScopeAccessesGoPastTheL2) {
  const std::string file = GetParam();
  const LoadedCode& code = code_for(file);
  const std::string p = code.target().processor;
  if (p.rfind("gfx94", 0) != 0 && p != "gfx950" && p.rfind("gfx12", 0) != 0) GTEST_SKIP() << p << ": no scope bits";
  CachedHostMemory m;
  std::uint32_t* words = m.make_cached<std::uint32_t>(256);
  auto run = [&](unsigned op) { code.run("isa_scope", {64}, {64}, {words, op}, m); };
  for (unsigned i = 0; i < 64; ++i) words[i] = 1;
  run(0);  // the lines come into the L2
  for (unsigned i = 0; i < 64; ++i) words[i] = 2;  // memory changes behind them (the host, a peer)
  run(0);
  for (unsigned i = 0; i < 64; ++i) EXPECT_EQ(m.through_l2(words + 64 + i), 1u) << "agent scope: the L2's line, lane " << i;
  run(1);
  for (unsigned i = 0; i < 64; ++i) EXPECT_EQ(m.through_l2(words + 64 + i), 2u) << "system scope: memory, lane " << i;
  run(2);
  for (unsigned i = 0; i < 64; ++i) {
    EXPECT_EQ(m.through_l2(words + i), 20u) << i;
    EXPECT_EQ(words[i], 2u) << "an agent-scope store stays in the L2, lane " << i;
  }
  run(3);
  for (unsigned i = 0; i < 64; ++i) EXPECT_EQ(words[i], 30u) << "a system-scope store reaches memory, lane " << i;
  run(4);
  EXPECT_EQ(m.through_l2(words + 128), 64u);
  EXPECT_EQ(words[128], 0u) << "agent-scope atomics are done in the L2";
  run(5);
  EXPECT_EQ(words[128], 128u) << "system-scope atomics are done at memory (the L2's 64 went first)";
}

// An aligned 64-bit or 128-bit load or store is one access on AMD GPUs, and code relies on it
// across work-groups: rocPRIM's look-back reads a block's prefix and its flag as one word, of 128
// bits for 64-bit sums (its scans failed now and then before the interpreter copied them whole).
// Work-groups run on threads of their own here: the words must be whole in memory and in the L2's
// lines. (On one CPU the two threads rarely overlap: there it seldom could fail.)
TEST_P(TestKernels, AlignedSixtyFourAndHundredTwentyEightBitWordsAreLoadedAndStoredWhole) {
  const std::string file = GetParam();  // named: code_for's reference outlives no temporary
  const LoadedCode& code = code_for(file);
  constexpr unsigned kRounds = 20000;
  for (const unsigned quads : {0u, 1u}) {
    for (const bool through_l2 : {false, true}) {
      CachedHostMemory m;
      auto* words = through_l2 ? m.make_cached<std::uint64_t>(128) : m.make<std::uint64_t>(128);
      auto* started = m.make<std::uint32_t>(1);
      auto* torn = m.make<std::uint32_t>(1);
      auto* gave_up = m.make<std::uint32_t>(1);
      code.run("isa_whole_words", {128}, {64}, {words, started, torn, kRounds, quads, gave_up}, m, 2);
      EXPECT_EQ(*gave_up, 0u) << "lanes that waited for the other work-group in vain";
      if (quads && !kWhole128) continue;  // a host without SSE2: 16 bytes go as two 8-byte pieces (whole_words.hpp)
      EXPECT_EQ(*torn, 0u) << (quads ? "128-bit words " : "64-bit words ") << (through_l2 ? "through the L2" : "in memory")
                           << ": loads that saw part of a store, of " << 64 * kRounds;
    }
  }
}

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
