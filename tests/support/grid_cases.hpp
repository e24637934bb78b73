// One rule for grids on every backend: a grid that is not a whole number of work-groups is
// rounded up to whole work-groups, so a kernel written the CUDA and HIP way processes each element
// exactly once, and the library's own kernels leave everything past their data alone. The cpu
// agent's tests, the GPU suite and the simulated GPU (three targets, machine code) run these.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bitonic.hpp"
#include "batch_data.hpp"
#include "hsad/hsad.hpp"

namespace hsad::test {

struct GridCase {
  Dim3 grid, group;
};

// 1-D grids of 1, 63, 65 and 961 items in groups of 64, and an odd 2-D and 3-D shape.
inline std::vector<GridCase> grid_cases() {
  return {{Dim3{1}, Dim3{64}},          {Dim3{63}, Dim3{64}},          {Dim3{65}, Dim3{64}},
          {Dim3{961}, Dim3{64}},        {Dim3{33, 17}, Dim3{16, 16}}, {Dim3{5, 7, 3}, Dim3{4, 4, 2}}};
}

inline std::string shape_text(const Dim3& d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

inline std::uint32_t round_up(std::uint32_t n, std::uint32_t m) { return (n + m - 1) / m * m; }
inline Dim3 whole_groups(const Dim3& grid, const Dim3& group) {
  return {round_up(grid.x, group.x), round_up(grid.y, group.y), round_up(grid.z, group.z)};
}

constexpr std::uint32_t kGuard = 256;  // elements past the data that no kernel may touch

// `add_one_3d(x, nx, ny, nz)` adds 1 to each element of an nx x ny x nz box; dispatched over the box
// with exec, every element must end at 1 (not 0: missed, not 2: twice) and the guard stay 0. The
// batch records the grid it encodes: whole work-groups.
inline void expect_each_element_once(const Device& device, const Kernel& add_one_3d) {
  Queue q = device.create_queue();
  for (const GridCase& c : grid_cases()) {
    SCOPED_TRACE("grid " + shape_text(c.grid) + " in groups of " + shape_text(c.group));
    const std::uint32_t n = std::uint32_t(c.grid.volume());
    std::vector<std::uint32_t> x(n + kGuard, 0);
    Buffer buf = device.alloc(x.size() * 4);
    Batch b;
    b.copy_to_device(buf, x.data(), x.size() * 4)
        .exec(add_one_3d, c.grid, c.group, {buf, c.grid.x, c.grid.y, c.grid.z})
        .copy_to_host(x.data(), buf, x.size() * 4);
    const Dim3 encoded = b.dispatches()[0].grid, want = whole_groups(c.grid, c.group);
    EXPECT_EQ(shape_text(encoded), shape_text(want));
    q.run(b, Options{});
    std::uint32_t wrong = 0, first = 0;
    for (std::uint32_t i = 0; i < x.size(); ++i) {
      if (x[i] != (i < n ? 1u : 0u) && wrong++ == 0) first = i;
    }
    EXPECT_EQ(wrong, 0u) << "first wrong element " << first << " holds " << x[first];
  }
}

// The library's hsad_copy_f64 at 1-D grids that are no multiple of its group: every element
// copied, nothing past `count` written.
inline void expect_copy_at_every_grid(const Device& device) {
  Queue q = device.create_queue();
  const Kernel copy = device.kernel("hsad_copy_f64");
  for (const GridCase& c : grid_cases()) {
    if (c.grid.dimensions() > 1) continue;
    SCOPED_TRACE("hsad_copy_f64 over " + std::to_string(c.grid.x));
    const std::uint32_t n = c.grid.x;
    std::vector<double> src(n + kGuard), dst(n + kGuard, -1.0);
    for (std::uint32_t i = 0; i < src.size(); ++i) src[i] = i + 0.5;
    Buffer s = device.alloc(src.size() * 8), d = device.alloc(dst.size() * 8);
    Batch b;
    b.copy_to_device(s, src.data(), src.size() * 8)
        .copy_to_device(d, dst.data(), dst.size() * 8)
        .exec(copy, c.grid, c.group, {d, s, static_cast<unsigned long long>(n)})
        .copy_to_host(dst.data(), d, dst.size() * 8);
    q.run(b, Options{});
    std::uint32_t wrong = 0;
    for (std::uint32_t i = 0; i < dst.size(); ++i) wrong += dst[i] != (i < n ? src[i] : -1.0);
    EXPECT_EQ(wrong, 0u);
  }
}

// The library's bitonic kernels (the steps, and the LDS sort's local and long passes) with groups
// that divide no grid: 128 keys sorted, and the random keys after them left where they were.
inline void expect_bitonic_at_odd_grids(const Device& device) {
  constexpr std::uint32_t n = 128, c = 5;  // 32-key chunks: four work-groups of local passes
  std::mt19937 rng(31);
  std::vector<std::uint32_t> keys(n + kGuard);
  for (auto& k : keys) k = rng();
  std::vector<std::uint32_t> want(keys);
  std::sort(want.begin(), want.begin() + n);
  Queue q = device.create_queue();
  const auto run = [&](const std::string& what, const std::function<void(Batch&, const Buffer&)>& record) {
    SCOPED_TRACE(what);
    Buffer buf = device.alloc(keys.size() * 4);
    Batch b;
    b.copy_to_device(buf, keys.data(), keys.size() * 4);
    record(b, buf);
    std::vector<std::uint32_t> out(keys.size());
    b.copy_to_host(out.data(), buf, out.size() * 4);
    q.run(b, Options{});
    EXPECT_EQ(out, want);
  };
  run("bitonic_step in groups of 48", [&](Batch& b, const Buffer& buf) {
    for (std::uint32_t stage = 0; (2u << stage) <= n; ++stage)
      for (std::uint32_t pass = 0; pass <= stage; ++pass)
        b.exec(device.kernel("bitonic_step"), Dim3{n / 2}, Dim3{48}, {buf, stage, pass, 1u, n});
  });
  run("bitonic_local with a fifth, partial work-group; bitonic_long in groups of 48", [&](Batch& b, const Buffer& buf) {
    const Kernel local = device.kernel("bitonic_local"), long_passes = device.kernel("bitonic_long");
    const Dim3 grid{(n >> c) * 16 + 5}, group{16};  // 4 chunks of 16 items, then 5 items more
    b.exec(local, grid, group, {buf, 0u, c - 1, 1u, c, n});
    for (std::uint32_t stage = c; (2u << stage) <= n; ++stage) {
      for (std::uint32_t pass = 0; pass + c <= stage; ++pass)
        b.exec(long_passes, Dim3{n / 2}, Dim3{48}, {buf, stage, pass, 1u, 1u, n});
      b.exec(local, grid, group, {buf, stage, stage, 1u, c, n});
    }
  });
}

}  // namespace hsad::test
