// Grids that are not whole work-groups on the cpu agent: rounded up to whole groups as on every
// backend, so a kernel written the CUDA way and the library's own kernels give the result they
// give on a GPU; HSA's partial groups only when asked for by name; limits refused by name.
#include <gtest/gtest.h>

#include <mutex>

#include "error_text.hpp"
#include "grid_cases.hpp"
#include "batch_data.hpp"
#include "hsad/hsad.hpp"

using namespace hsad;

namespace {
struct Box {
  std::uint32_t* x;
  std::uint32_t nx, ny, nz;
};

// The host twin of tests/modules' module_add_one_3d: each item of the whole group (blockDim is
// the group's size) computes its index as blockIdx * blockDim + threadIdx and checks it.
void add_one_3d(const WorkGroup& wg) {
  const Box& a = wg.args<Box>();
  for (std::uint32_t tz = 0; tz < wg.size.z; ++tz)
    for (std::uint32_t ty = 0; ty < wg.size.y; ++ty)
      for (std::uint32_t tx = 0; tx < wg.size.x; ++tx) {
        const std::uint32_t i = wg.id.x * wg.size.x + tx, j = wg.id.y * wg.size.y + ty, k = wg.id.z * wg.size.z + tz;
        if (i < a.nx && j < a.ny && k < a.nz) a.x[(k * a.ny + j) * a.nx + i] += 1;
      }
}

struct Items {
  std::uint32_t* x;
};
// OpenCL style: every work-item the grid has, by its global id, no bounds check.
void add_one_global_id(const WorkGroup& wg) {
  const Items& a = wg.args<Items>();
  for (std::uint32_t i = wg.first_x(); i < wg.end_x(); ++i) a.x[i] += 1;
}

const Device& device() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_host_kernel(make_host_kernel<Box>("grid_add_one_3d", &add_one_3d,
                                               {host_arg("x", &Box::x), host_arg("nx", &Box::nx),
                                                host_arg("ny", &Box::ny), host_arg("nz", &Box::nz)}));
    register_host_kernel(
        make_host_kernel<Items>("grid_add_one_global_id", &add_one_global_id, {host_arg("x", &Items::x)}));
    // As hipcc 7 compiles a HIP kernel: for whole work-groups only (.uniform_work_group_size).
    HostKernel uniform = make_host_kernel<Items>("grid_add_one_whole_groups", &add_one_global_id, {host_arg("x", &Items::x)});
    uniform.info.uniform_work_group_size = true;
    register_host_kernel(uniform);
  });
  static Runtime rt = Runtime::open("cpu");
  return rt.device();
}
}  // namespace

TEST(CpuGrid, ACudaStyleKernelProcessesEachElementOnce) {
  test::expect_each_element_once(device(), device().kernel("grid_add_one_3d"));
}

TEST(CpuGrid, TheLibrarysCopyIsExactAtEveryGrid) { test::expect_copy_at_every_grid(device()); }

TEST(CpuGrid, TheLibrarysSortsIgnoreItemsPastTheKeys) { test::expect_bitonic_at_odd_grids(device()); }

// Asked for by name, the grid is encoded as given: the last work-group holds the remainder, so a
// kernel without a bounds check writes exactly the grid.
TEST(CpuGrid, PartialGroupsAreEncodedAsGiven) {
  const std::uint32_t n = 961;
  std::vector<std::uint32_t> x(n + test::kGuard, 0);
  Buffer buf = device().alloc(x.size() * 4);
  Batch b;
  b.copy_to_device(buf, x.data(), x.size() * 4)
      .exec_partial_groups(device().kernel("grid_add_one_global_id"), Dim3{n}, Dim3{64}, {buf})
      .copy_to_host(x.data(), buf, x.size() * 4);
  EXPECT_EQ(b.dispatches()[0].grid.x, n);
  EXPECT_TRUE(b.dispatches()[0].partial_groups);
  device().create_queue().run(b, Options{});
  for (std::uint32_t i = 0; i < x.size(); ++i) ASSERT_EQ(x[i], i < n ? 1u : 0u) << "element " << i;
}

// A kernel its compiler built for whole work-groups (code object v5+, clang 17+) is refused a
// partial one by name, rather than run to read blockDim and gridDim wrong; whole ones it gets.
TEST(CpuGrid, AKernelBuiltForWholeGroupsIsRefusedAPartialOne) {
  const Kernel k = device().kernel("grid_add_one_whole_groups");
  ASSERT_TRUE(k.info().uniform_work_group_size);
  Batch b;
  const std::string e = test::error_text([&] { b.exec_partial_groups(k, Dim3{961}, Dim3{64}, {nullptr}); });
  EXPECT_NE(e.find("kernel 'grid_add_one_whole_groups' was compiled for whole work-groups only"), std::string::npos) << e;
  EXPECT_NE(e.find("a grid of 961 in groups of 64 in x leaves a partial one"), std::string::npos) << e;
  EXPECT_NE(e.find("-fno-offload-uniform-block"), std::string::npos) << e;
  EXPECT_TRUE(b.empty());
  b.exec_partial_groups(k, Dim3{960}, Dim3{64}, {nullptr});  // no partial group: nothing to refuse
  b.exec(k, Dim3{961}, Dim3{64}, {nullptr});                 // rounded up to whole groups
  EXPECT_EQ(b.size(), 2u);
}

TEST(CpuGrid, ShapesPastTheDevicesLimitsAreRefusedByName) {
  const Kernel k = device().kernel("grid_add_one_3d");
  EXPECT_EQ(device().info().limits.max_group_size, 1024u);
  Batch b;
  const std::vector<Arg> args = {nullptr, 1u, 1u, 1u};
  EXPECT_NE(test::error_text([&] { b.exec(k, Dim3{2048}, Dim3{2048}, args); })
                .find("a work-group of 2048 work-items along x exceeds the 1024 the device allows"),
            std::string::npos);
  EXPECT_NE(test::error_text([&] { b.exec(k, Dim3{64, 64}, Dim3{64, 32}, args); })
                .find("a work-group of 2048 work-items exceeds the 1024"),
            std::string::npos);
  EXPECT_NE(test::error_text([&] { b.exec(k, Dim3{0xfffffff0u}, Dim3{64}, args); })
                .find("rounds up to 4294967296 (whole work-groups of 64), past the 32-bit grid size"),
            std::string::npos);
  EXPECT_NE(test::error_text([&] { b.exec(k, Dim3{64, 0}, Dim3{64}, args); }).find("at least 1 in every dimension"),
            std::string::npos);
  // More than 2^64 work-items in all: Dim3::volume() wrapped, to 0 ("at least 1 in every
  // dimension", the wrong reason) or to 2^31 (recorded, and the run timed out on hsad-sim).
  EXPECT_EQ((Dim3{1u << 31, 1u << 31, 1u << 31}).volume(), ~std::uint64_t(0));  // saturates
  EXPECT_EQ((Dim3{0xffffffffu, 0xffffffffu, 1}).volume(), 0xfffffffe00000001u);
  EXPECT_EQ((Dim3{1u << 31, 0, 1u << 31}).volume(), 0u);
  for (const Dim3 huge : {Dim3{1u << 31, 1u << 31, 1u << 31}, Dim3{0xffffffffu, 0xffffffffu, 1u << 31}}) {
    const std::string e = test::error_text([&] { b.exec(k, huge, Dim3{1}, args); });
    EXPECT_NE(e.find("a grid of " + std::to_string(huge.x) + " x " + std::to_string(huge.y) + " x " +
                     std::to_string(huge.z) + " work-items exceeds"),
              std::string::npos)
        << e;
  }
  EXPECT_TRUE(b.empty());  // nothing refused was recorded
  b.exec_partial_groups(k, Dim3{0xfffffff0u}, Dim3{64}, args);  // exact: no rounding, no overflow
  EXPECT_EQ(b.dispatches()[0].grid.x, 0xfffffff0u);
}
