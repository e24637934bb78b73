// The project's own kernels (the library's embedded bundle), run by the interpreter on host
// memory for every target: the bitonic sort, the Laplacian Kernels 5 to 8 at every m, the copy
// and the empty kernel. Integers match exactly; the Laplacian matches the fused reference bit for
// bit (tests/support/laplacian_reference.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "bitonic.hpp"
#include "laplacian.hpp"
#include "laplacian_reference.hpp"
#include "loaded_code.hpp"

namespace hsad::isa::testing {
namespace {

class ProjectKernels : public ::testing::TestWithParam<const char*> {
 protected:
  static std::map<std::string, std::unique_ptr<LoadedCode>>& cache() {
    static std::map<std::string, std::unique_ptr<LoadedCode>> c;
    return c;
  }
  const LoadedCode& code() {
    auto& c = cache()[GetParam()];
    if (!c) c = std::make_unique<LoadedCode>(project_code_object(GetParam()));
    return *c;
  }
  HostMemory memory;
};

TEST_P(ProjectKernels, BitonicSortOf32768KeysIn120Dispatches) {
  const std::uint32_t n = 32768;
  std::mt19937 gen(11);
  std::vector<std::uint32_t> keys(n);
  for (auto& k : keys) k = gen();
  auto* d = memory.copy_of(keys);
  std::uint32_t dispatches = 0;
  for (std::uint32_t stage = 0; (2u << stage) <= n; ++stage) {
    for (std::uint32_t pass = 0; pass <= stage; ++pass, ++dispatches) {
      code().run("bitonic_step", {n / 2}, {256}, {d, stage, pass, 1u}, memory);
    }
  }
  EXPECT_EQ(dispatches, kernels::bitonic_dispatches(n));
  std::sort(keys.begin(), keys.end());
  for (std::uint32_t i = 0; i < n; ++i) ASSERT_EQ(d[i], keys[i]) << i;
}

TEST_P(ProjectKernels, CopyAndEmpty) {
  const unsigned long long count = 100003;
  std::vector<double> src(count);
  for (std::size_t i = 0; i < count; ++i) src[i] = double(i) * 0.5 - 7.0;
  auto* s = memory.copy_of(src);
  auto* d = memory.make<double>(count);
  code().run("hsad_copy_f64", {std::uint32_t((count + 255) / 256 * 256)}, {256}, {d, s, count}, memory);
  for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(d[i], src[i]) << i;
  code().run("hsad_empty", {1024}, {256}, {}, memory);
}

constexpr double kUntouched = -12345.0;

struct LaplacianCase {
  int kernel, m;
};

// Every Laplacian kernel at every m the bundle has, on a grid whose sizes are multiples of
// nothing (partial tiles in y, partial work-groups in x), against the fused reference.
TEST_P(ProjectKernels, EveryLaplacianKernelMatchesTheFusedReferenceBitForBit) {
  const hsad::testing::LaplacianGrid g{37, 31, 23, 1.0 / (0.1 * 0.1), 1.0 / (0.2 * 0.2), 1.0 / (0.3 * 0.3), 0};
  hsad::testing::LaplacianGrid grid = g;
  grid.invhxyz2 = -2.0 * (g.invhx2 + g.invhy2 + g.invhz2);
  const std::size_t points = std::size_t(g.nx) * g.ny * g.nz;
  std::vector<double> u(points);
  std::mt19937 gen(12);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (auto& x : u) x = dist(gen);
  const double* d_u = memory.copy_of(u);
  double* d_f = memory.make<double>(points);
  const std::uint32_t block[3] = {64, 4, 1};
  for (const LaplacianCase c : {LaplacianCase{5, 4}, {5, 8}, {5, 16}, {6, 4}, {6, 8}, {6, 16}, {7, 4}, {7, 8}, {7, 16},
                                {8, 4}, {8, 8}, {8, 16}, {8, 32}}) {
    SCOPED_TRACE("Kernel " + std::to_string(c.kernel) + ", m " + std::to_string(c.m));
    std::fill(d_f, d_f + points, kUntouched);
    const std::string name = "laplacian" + std::to_string(c.kernel) + "_m" + std::to_string(c.m);
    // Kernel 7: the rows [sy, ey) of one subdomain, as one dispatch of a split sweep does.
    const int sy = c.kernel == 7 ? 9 : 0, ey = c.kernel == 7 ? 21 : g.ny;
    const auto shape = kernels::laplacian_shape(c.kernel, c.m, block, g.nx, ey - sy, g.nz);
    const Dim3 grid_items{shape.grid[0], shape.grid[1], shape.grid[2]};
    const Dim3 group{block[0], block[1], c.kernel == 8 ? 1u : block[2]};
    if (c.kernel == 7) {
      code().run(name, grid_items, group,
                 {d_f, d_u, g.nx, g.ny, g.nz, grid.invhx2, grid.invhy2, grid.invhz2, grid.invhxyz2, sy, ey}, memory);
    } else {
      code().run(name, grid_items, group, {d_f, d_u, g.nx, g.ny, g.nz, grid.invhx2, grid.invhy2, grid.invhz2, grid.invhxyz2},
                 memory);
    }
    const std::vector<double> expect = hsad::testing::fused_laplacian(GetParam(), c.kernel, c.m, u, grid, kUntouched, sy, ey);
    std::size_t wrong = 0, first = points;
    for (std::size_t p = 0; p < points; ++p) {
      if (d_f[p] != expect[p]) {
        ++wrong;
        if (first == points) first = p;
        if (std::getenv("HSAD_ISA_MISMATCHES") && wrong < 40) {
          std::printf("mismatch i=%zu j=%zu k=%zu got %.17g want %.17g\n", p % g.nx, p / g.nx % g.ny, p / (g.nx * g.ny),
                      d_f[p], expect[p]);
        }
      }
    }
    EXPECT_EQ(wrong, 0u) << "first at point " << first << ": " << (first < points ? d_f[first] : 0) << " against "
                         << (first < points ? expect[first] : 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, ProjectKernels, ::testing::Values("gfx90a", "gfx908", "gfx940", "gfx1030"));

}  // namespace
}  // namespace hsad::isa::testing
