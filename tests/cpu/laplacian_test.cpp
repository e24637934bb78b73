// The Laplacian kernels on the cpu agent against the CPU reference: odd sizes, every kernel,
// Kernel 7 with several splits, every tiling factor; boundaries untouched; bad sizes refused.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "cpu_test_device.hpp"
#include "hsad/hsad.hpp"
#include "laplacian_workload.hpp"

using namespace hsad;
using test::cpu_device;

namespace {
bench::LaplacianWorkload::Check run(bench::LaplacianConfig c, const Options& o = Options{}) {
  c.iters = 2;
  bench::LaplacianWorkload w(cpu_device(), c, o);
  w.run();
  return w.verify();
}
}  // namespace

// (kernel, split, m)
class LaplacianOddGrid : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(LaplacianOddGrid, MatchesTheReferenceAndLeavesTheBoundary) {
  bench::LaplacianConfig c;
  c.nx = 70;
  c.ny = 67;
  c.nz = 33;
  std::tie(c.kernel, c.split, c.m) = GetParam();
  const auto check = run(c);
  EXPECT_LT(check.max_abs_error, 1e-8);
  EXPECT_TRUE(check.boundary_untouched);
}

INSTANTIATE_TEST_SUITE_P(
    CpuAgent, LaplacianOddGrid,
    ::testing::Values(std::make_tuple(5, 1, 8), std::make_tuple(6, 1, 8), std::make_tuple(7, 1, 8),
                      std::make_tuple(7, 2, 8), std::make_tuple(7, 3, 8), std::make_tuple(7, 7, 8),
                      std::make_tuple(5, 1, 4), std::make_tuple(5, 1, 16), std::make_tuple(7, 3, 16),
                      std::make_tuple(8, 1, 4), std::make_tuple(8, 1, 8), std::make_tuple(8, 1, 16),
                      std::make_tuple(8, 1, 32)),
    [](const auto& info) {
      return "kernel" + std::to_string(std::get<0>(info.param)) + "_split" + std::to_string(std::get<1>(info.param)) +
             "_m" + std::to_string(std::get<2>(info.param));
    });

TEST(Laplacian, SmallestGridHasOneInteriorPoint) {
  bench::LaplacianConfig c;
  c.nx = c.ny = c.nz = 3;
  c.kernel = 7;
  c.split = 2;
  const auto check = run(c);
  EXPECT_LT(check.max_abs_error, 1e-8);
  EXPECT_TRUE(check.boundary_untouched);
}

TEST(Laplacian, OtherBlockShapesGiveTheSameResult) {
  bench::LaplacianConfig c;
  c.nx = 37;
  c.ny = 29;
  c.nz = 11;
  c.block = {16, 4, 2};
  for (int k : {5, 6, 7, 8}) {
    c.kernel = k;
    c.block = {16, 4, k == 8 ? 1u : 2u};  // Kernel 8's groups are one plane deep
    c.split = k == 7 ? 3 : 1;
    const auto check = run(c);
    EXPECT_LT(check.max_abs_error, 1e-8) << "kernel " << k;
    EXPECT_TRUE(check.boundary_untouched) << "kernel " << k;
  }
}

TEST(Laplacian, BaselineOptionsGiveTheSameResult) {
  bench::LaplacianConfig c;
  c.nx = 40;
  c.ny = 33;
  c.nz = 9;
  c.split = 4;
  EXPECT_LT(run(c, Options::none()).max_abs_error, 1e-8);
}

TEST(Laplacian, ASweepIsSplitDispatchesAndOneWaitPerBatch) {
  bench::LaplacianConfig c;
  c.nx = 20;
  c.ny = 21;
  c.nz = 5;
  c.split = 3;
  c.iters = 4;
  bench::LaplacianWorkload w(cpu_device(), c, Options{});
  const Stats before = cpu_device().stats();
  w.run();
  const Stats d = cpu_device().stats() - before;
  EXPECT_EQ(d.packets, 12u);
  EXPECT_EQ(d.host_waits, 1u);
  EXPECT_EQ(d.doorbells, 1u);
}

TEST(LaplacianSizes, DimensionBelowThreeIsRefusedByName) {
  bench::LaplacianConfig c;
  c.nz = 2;
  try {
    bench::validate(c, DeviceInfo{});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--nz must be at least 3"), std::string::npos) << e.what();
  }
}

TEST(LaplacianSizes, GridLargerThanTheDeviceIsRefused) {
  bench::LaplacianConfig c;
  c.nx = c.ny = c.nz = 4096;
  DeviceInfo small;
  small.name = "a small device";
  small.memory_bytes = std::uint64_t(16) << 30;
  try {
    bench::validate(c, small);
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("4096 x 4096 x 4096"), std::string::npos) << m;
    EXPECT_NE(m.find("a small device"), std::string::npos) << m;
  }
}

TEST(LaplacianSizes, SplitOnlyForKernel7) {
  bench::LaplacianConfig c;
  c.kernel = 5;
  c.split = 2;
  EXPECT_THROW(bench::validate(c, DeviceInfo{}), Error);
}

TEST(LaplacianSplit, AutoKeepsThreePlanesInHalfTheCache) {
  // 50 MB of cache: three 512^2 planes (2 MiB) fit in half of it; three 2048^2 planes (96 MiB)
  // need 4 parts, three 4096^2 planes 16 (the splits the H100 needed, docs/results.md).
  const std::uint64_t llc = 50ull << 20;
  EXPECT_EQ(bench::auto_split(512, 512, llc), 1);
  EXPECT_EQ(bench::auto_split(1024, 1024, llc), 1);
  EXPECT_EQ(bench::auto_split(2048, 2048, llc), 4);
  EXPECT_EQ(bench::auto_split(4096, 4096, llc), 16);
  EXPECT_EQ(bench::auto_split(4096, 4096, std::nullopt), 1);  // cache size unknown: no split
  const double rows = std::ceil(4096.0 / bench::auto_split(4096, 4096, llc));
  EXPECT_LE(3 * 4096 * rows * 8, double(llc) / 2 * 1.01);
}

TEST(LaplacianSplit, Kernel8ChunksAreShortOnlyWhereTheirPlanesStayCached) {
  // 50 MB of cache: sixteen 512^2 planes (32 MiB) fit, sixteen 1024^2 planes (128 MiB) do not.
  const std::uint64_t llc = 50ull << 20;
  EXPECT_EQ(bench::auto_zmarch_planes(512, 512, llc), 4);
  EXPECT_EQ(bench::auto_zmarch_planes(1024, 1024, llc), 32);
  EXPECT_EQ(bench::auto_zmarch_planes(4096, 4096, llc), 32);
  EXPECT_EQ(bench::auto_zmarch_planes(512, 512, std::nullopt), 32);  // cache size unknown: the long chunk
}

// Kernel 8's chunks: nz - 2 interior planes in chunks of m, the last one partial or (nz = 34,
// m = 32) exactly full; a grid with fewer planes than one chunk.
TEST(Laplacian, Kernel8ChunksCoverEveryPlaneOnce) {
  for (int nz : {3, 5, 34, 35, 70}) {
    for (int m : {4, 32}) {
      bench::LaplacianConfig c;
      c.nx = 37, c.ny = 29, c.nz = nz, c.kernel = 8, c.m = m, c.block = {32, 4, 1};
      const auto check = run(c);
      EXPECT_LT(check.max_abs_error, 1e-8) << "nz " << nz << " m " << m;
      EXPECT_TRUE(check.boundary_untouched) << "nz " << nz << " m " << m;
    }
  }
}

TEST(LaplacianSizes, ChunkOf32OnlyForKernel8) {
  bench::LaplacianConfig c;
  c.m = 32;
  c.kernel = 8;
  EXPECT_NO_THROW(bench::validate(c, DeviceInfo{}));
  c.kernel = 5;
  try {
    bench::validate(c, DeviceInfo{});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("must be 4, 8 or 16, got 32"), std::string::npos) << e.what();
  }
}
