// The interpreter runs hipcc's machine code on host memory and gets what a CPU reference gets:
// the interpreter's own kernels (kernels/isa_test_kernels.hip) on every target, in wave64 and
// wave32, and as code object v5.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "loaded_code.hpp"

namespace hsad::isa::testing {
namespace {

struct Code {
  const char* file;
  unsigned wave;  // the wavefront size the code was built for
};

class TestKernels : public ::testing::TestWithParam<Code> {
 protected:
  static std::map<std::string, std::unique_ptr<LoadedCode>>& cache() {
    static std::map<std::string, std::unique_ptr<LoadedCode>> c;
    return c;
  }
  const LoadedCode& code() {
    auto& c = cache()[GetParam().file];
    if (!c) c = std::make_unique<LoadedCode>(read_file(std::string(HSAD_ISA_KERNELS_DIR) + "/" + GetParam().file));
    return *c;
  }
  unsigned wave() const { return GetParam().wave; }
  HostMemory memory;
};

std::vector<std::uint32_t> random_u32(std::size_t n, std::uint32_t lo, std::uint32_t hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<std::uint32_t> d(lo, hi);
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) x = d(gen);
  return v;
}

TEST_P(TestKernels, AWorkGroupReductionThroughLdsAndBarriers) {
  const unsigned n = 256 * 37 + 100, groups = 38;
  const auto in = random_u32(n, 0, 1000, 1);
  auto* d_in = memory.copy_of(in);
  auto* sums = memory.make<std::uint32_t>(groups);
  code().run("isa_reduce", {groups * 256}, {256}, {d_in, sums, n}, memory);
  for (unsigned g = 0; g < groups; ++g) {
    std::uint32_t expect = 0;
    for (unsigned i = g * 256; i < std::min(n, (g + 1) * 256); ++i) expect += in[i];
    EXPECT_EQ(sums[g], expect) << "group " << g;
  }
}

TEST_P(TestKernels, AHistogramThroughLdsAndGlobalAtomics) {
  const unsigned n = 100000;
  const auto in = random_u32(n, 0, 1u << 30, 2);
  auto* d_in = memory.copy_of(in);
  auto* bins = memory.make<std::uint32_t>(64);
  code().run("isa_histogram", {16 * 256}, {256}, {d_in, bins, n}, memory, 4);
  std::vector<std::uint32_t> expect(64, 0);
  for (auto x : in) ++expect[x % 64];
  for (int b = 0; b < 64; ++b) EXPECT_EQ(bins[b], expect[b]) << "bin " << b;
}

// __shfl_xor, __shfl and __ballot: what they give depends on the wavefront's size.
void check_wave_ops(const std::vector<std::uint32_t>& raw, unsigned n, unsigned wave, const int* sums, const int* rotated,
                    const unsigned long long* ballots) {
  auto x = [&](unsigned i) { return i < n ? int(raw[i]) : 0; };
  for (unsigned i = 0; i < n; ++i) {
    const unsigned base = i / wave * wave, lane = i % wave;
    int sum = 0;
    unsigned long long ballot = 0;
    for (unsigned l = 0; l < wave; ++l) {
      sum += x(base + l);
      if (x(base + l) & 1) ballot |= 1ull << l;
    }
    ASSERT_EQ(sums[i], sum) << "item " << i;
    ASSERT_EQ(rotated[i], x(base + (lane + 3) % wave)) << "item " << i;
    ASSERT_EQ(ballots[i], ballot) << "item " << i;
  }
}

TEST_P(TestKernels, CrossLaneOperationsFollowTheWavefrontSize) {
  const unsigned n = 1000, grid = 1024;  // every lane of every wave runs; items >= n hold 0
  const auto in = random_u32(n, 0, 1u << 20, 3);
  auto* d_in = memory.copy_of(in);
  auto* sums = memory.make<int>(n);
  auto* rotated = memory.make<int>(n);
  auto* ballots = memory.make<unsigned long long>(n);
  code().run("isa_wave_ops", {grid}, {256}, {d_in, sums, rotated, ballots, n}, memory);
  check_wave_ops(in, n, wave(), sums, rotated, ballots);
}

TEST_P(TestKernels, DivergentLoopsEndLaneByLane) {
  const unsigned n = 5000;
  const auto start = random_u32(n, 1, 1000000, 4);
  auto* d_start = memory.copy_of(start);
  auto* steps = memory.make<std::uint32_t>(n);
  code().run("isa_collatz", {(n + 255) / 256 * 256}, {256}, {d_start, steps, n}, memory);
  for (unsigned i = 0; i < n; ++i) {
    unsigned long long x = start[i];
    unsigned s = 0;
    while (x != 1 && s < 1000) x = (x & 1) ? 3 * x + 1 : x / 2, ++s;
    ASSERT_EQ(steps[i], s) << "item " << i << " from " << start[i];
  }
}

void check_grid(LoadedCode const& code, HostMemory& memory, unsigned nx, unsigned ny, unsigned nz, Dim3 group) {
  const std::size_t items = std::size_t(nx) * ny * nz;
  auto* out = memory.make<std::uint32_t>(items);
  for (std::size_t i = 0; i < items; ++i) out[i] = 0xdeadbeef;
  code.run("isa_grid3d", {nx, ny, nz}, group, {out, nx, ny, nz}, memory);
  for (unsigned z = 0; z < nz; ++z) {
    for (unsigned y = 0; y < ny; ++y) {
      for (unsigned x = 0; x < nx; ++x) {
        ASSERT_EQ(out[(std::size_t(z) * ny + y) * nx + x], x + 1000u * y + 1000000u * z) << x << "," << y << "," << z;
      }
    }
  }
}

TEST_P(TestKernels, TwoAndThreeDimensionalGridsWithPartialWorkGroups) {
  check_grid(code(), memory, 100, 37, 1, {16, 16, 1});
  check_grid(code(), memory, 19, 11, 7, {8, 4, 2});
}

// HIP's gridDim and blockDim in a grid with partial groups in x and y: blockDim is the size of
// the item's own group.
TEST_P(TestKernels, TheKernelReadsGridDimAndBlockDim) {
  const Dim3 grid{100, 3, 2}, group{32, 2, 1};
  auto* out = memory.make<std::uint32_t>(6 * grid.volume());
  code().run("isa_dims", grid, group, {out}, memory);
  for (std::uint32_t z = 0; z < grid.z; ++z) {
    for (std::uint32_t y = 0; y < grid.y; ++y) {
      for (std::uint32_t x = 0; x < grid.x; ++x) {
        const std::uint32_t* o = out + 6 * (x + grid.x * (y + grid.y * z));
        EXPECT_EQ(o[0], 4u);
        EXPECT_EQ(o[1], 2u);
        EXPECT_EQ(o[2], 2u);
        EXPECT_EQ(o[3], x >= 96 ? 4u : 32u) << x;
        EXPECT_EQ(o[4], y >= 2 ? 1u : 2u) << y;
        ASSERT_EQ(o[5], 1u);
      }
    }
  }
}

std::uint32_t indexed_reference(std::uint32_t i, std::uint32_t idx, unsigned size, bool scratch) {
  std::vector<std::uint32_t> a(size);
  for (unsigned k = 0; k < size; ++k) a[k] = k * 7u + i;
  if (!scratch) {
    a[idx % size] += 1000u;
    return a[idx % size] + a[(idx + 5) % size];
  }
  const unsigned j = idx % size;
  a[j] += 1000u;
  return a[j] + a[(j + 5) % size] + a[(j * 13) % size];
}

TEST_P(TestKernels, RegisterIndexingReadsAndWritesTheChosenRegister) {
  const unsigned n = 777;
  const auto idx = random_u32(n, 0, 1u << 30, 5);
  auto* d_idx = memory.copy_of(idx);
  auto* out = memory.make<std::uint32_t>(n);
  code().run("isa_gpr_index", {(n + 255) / 256 * 256}, {256}, {d_idx, out, n}, memory);
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(out[i], indexed_reference(i, idx[i], 48, false)) << i;
}

TEST_P(TestKernels, APrivateArrayLivesInScratch) {
  const unsigned n = 777;
  const auto idx = random_u32(n, 0, 1u << 30, 6);
  auto* d_idx = memory.copy_of(idx);
  auto* out = memory.make<std::uint32_t>(n);
  code().run("isa_scratch", {(n + 255) / 256 * 256}, {256}, {d_idx, out, n}, memory);
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(out[i], indexed_reference(i, idx[i], 300, true)) << i;
}

// Division and square root are the compiler's correctly rounded sequences: the results equal
// IEEE division and sqrt, bit for bit; fma is fused.
TEST_P(TestKernels, DivisionSquareRootAndFmaAreCorrectlyRounded) {
  const unsigned n = 1000;
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> d(-1000.0, 1000.0);
  std::vector<float> a(n), b(n);
  std::vector<double> c(n), e(n);
  for (unsigned i = 0; i < n; ++i) {
    a[i] = float(d(gen)), b[i] = float(d(gen)), c[i] = d(gen), e[i] = d(gen);
  }
  auto* fo = memory.make<float>(3 * n);
  auto* dout = memory.make<double>(3 * n);
  code().run("isa_math", {(n + 255) / 256 * 256}, {256},
             {memory.copy_of(a), memory.copy_of(b), memory.copy_of(c), memory.copy_of(e), fo, dout, n}, memory);
  for (unsigned i = 0; i < n; ++i) {
    ASSERT_EQ(fo[3 * i + 0], a[i] / b[i]) << i;
    ASSERT_EQ(fo[3 * i + 1], std::sqrt(std::fabs(a[i]))) << i;
    ASSERT_EQ(fo[3 * i + 2], std::fma(a[i], b[i], 1.0f)) << i;
    ASSERT_EQ(dout[3 * i + 0], c[i] / e[i]) << i;
    ASSERT_EQ(dout[3 * i + 1], std::sqrt(std::fabs(c[i]))) << i;
    ASSERT_EQ(dout[3 * i + 2], std::fma(c[i], e[i], -1.0)) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, TestKernels,
                         ::testing::Values(Code{"isa_gfx90a.co", 64}, Code{"isa_gfx908.co", 64},
                                           Code{"isa_gfx940.co", 64}, Code{"isa_gfx1030.co", 32},
                                           Code{"isa_v5_gfx90a.co", 64}),
                         [](const auto& info) {
                           std::string s = info.param.file;
                           return s.substr(4, s.size() - 7);  // "isa_gfx90a.co" -> "gfx90a"
                         });

// gfx1030 in wave64 (built with clang: HIP's headers refuse it).
TEST(Wave64OnGfx1030, CrossLaneOperationsSpanSixtyFourLanes) {
  LoadedCode code(read_file(std::string(HSAD_ISA_KERNELS_DIR) + "/w64_gfx1030.co"));
  HostMemory memory;
  const unsigned n = 1000, grid = 1024;
  const auto in = random_u32(n, 0, 1u << 20, 8);
  auto* sums = memory.make<int>(n);
  auto* rotated = memory.make<int>(n);
  auto* ballots = memory.make<unsigned long long>(n);
  code.run("w64_wave_ops", {grid}, {256}, {memory.copy_of(in), sums, rotated, ballots, n}, memory);
  check_wave_ops(in, n, 64, sums, rotated, ballots);
}

TEST(Wave64OnGfx1030, AWorkGroupReduction) {
  LoadedCode code(read_file(std::string(HSAD_ISA_KERNELS_DIR) + "/w64_gfx1030.co"));
  HostMemory memory;
  const unsigned n = 256 * 9 + 17, groups = 10;
  const auto in = random_u32(n, 0, 1000, 9);
  auto* sums = memory.make<std::uint32_t>(groups);
  code.run("w64_reduce", {groups * 256}, {256}, {memory.copy_of(in), sums, n}, memory);
  for (unsigned g = 0; g < groups; ++g) {
    std::uint32_t expect = 0;
    for (unsigned i = g * 256; i < std::min(n, (g + 1) * 256); ++i) expect += in[i];
    EXPECT_EQ(sums[g], expect) << "group " << g;
  }
}

}  // namespace
}  // namespace hsad::isa::testing
