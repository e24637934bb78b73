// Kernels as applications write them (issue 42), in HIP and CUDA from one source
// (tests/modules/app_kernels.cu): dynamic shared memory beside static, a parameter struct passed
// by value. On the H100 and under hsad-sim as machine code (gfx90a, gfx908, gfx1030).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "error_text.hpp"
#include "gpu_backend.hpp"
#include "grid_rounds.hpp"
#include "hsad/hsad.hpp"

using namespace hsad;

namespace {
// tests/modules/app_kernels.cu's build for the device; HSAD_APP_MODULE names another (the code
// object v5 build, HsadSim.gfx90a.AnyKernelAsCodeObjectV5).
Module app_module(const Device& d) {
  const char* other = std::getenv("HSAD_APP_MODULE");
  if (other && *other) return d.load_module(test::modules_dir() + "/" + other);
  return d.load_module(test::modules_dir() + (d.info().backend == "cuda" ? "/app.fatbin" : "/app.hsaco"));
}

// tests/modules/app_kernels.cu's parameter struct, laid out alike on both compilers.
struct AffineParams {
  float* y;
  const float* x;
  float a, b;
  unsigned n;
  unsigned stride;
  double bias;
};
static_assert(sizeof(AffineParams) == 40);

std::vector<float> read(const Device& d, const Buffer& b, std::size_t n) {
  std::vector<float> v(n);
  d.copy_to_host(v.data(), b, n * sizeof(float));
  return v;
}
}  // namespace

// app_block_sum reduces each block's items in its `extern __shared__` array, beside 1 KiB of
// static shared memory it must not overlap. Without dynamic shared memory it cannot run at all
// (on main, hsad-sim stopped the queue: "an LDS access ... outside the work-group's 0 bytes").
TEST(GpuAnyKernel, DynamicSharedMemorySitsBesideTheStatic) {
  REQUIRE_GPU();
  if (test::runs_host_builds(device)) GTEST_SKIP() << "a module's kernel runs only as machine code";
  const Module m = app_module(device);
  const Kernel sum = m.kernel("app_block_sum");
  EXPECT_EQ(sum.info().group_segment_size, 1024u) << "the kernel's static shared memory (256 unsigned)";
  const unsigned n = 1000, group = 256, blocks = (n + group - 1) / group;
  std::vector<float> in(n);
  for (unsigned i = 0; i < n; ++i) in[i] = float(i % 7);
  Buffer x = device.alloc(n * sizeof(float)), out = device.alloc(blocks * sizeof(float));
  device.copy_to_device(x, in.data(), n * sizeof(float));
  Queue q = device.create_queue();
  Batch b;
  b.exec(sum, Dim3{n}, Dim3{group}, {out, x, n}, LaunchConfig{group * 4});
  for (const bool replay : {false, true}) {
    Options o = Options::all();
    o.replay = replay;
    q.run(b, o);
    const std::vector<float> got = read(device, out, blocks);
    for (unsigned blk = 0; blk < blocks; ++blk) {
      float want = 0;
      for (unsigned i = blk * group; i < std::min(n, (blk + 1) * group); ++i) want += in[i];
      EXPECT_EQ(got[blk], want) << "block " << blk << (replay ? " (replayed)" : "");
    }
  }
  // More than the kernel needs, between replays: the same sums, from the same recording.
  b.set_launch_config(0, LaunchConfig{2 * group * 4});
  EXPECT_EQ(b.launch_config(0).dynamic_shared_bytes, 2 * group * 4);
  device.copy_to_device(out, std::vector<float>(blocks, -2.0f).data(), blocks * sizeof(float));
  q.run(b, Options::all());
  EXPECT_EQ(read(device, out, 1)[0], 21.0f * 36 + (0 + 1 + 2 + 3))  // 256 items: 36 cycles of 0..6, then 0..3
      << "after set_launch_config";
  // All a work-group may have: past the 48 KiB every CUDA kernel may ask without raising its
  // maximum first, which the library does when the dispatch asks for it.
  const std::uint32_t most = device.info().limits.max_group_memory_bytes - sum.info().group_segment_size;
  b.set_launch_config(0, LaunchConfig{most});
  device.copy_to_device(out, std::vector<float>(blocks, -2.0f).data(), blocks * sizeof(float));
  q.run(b, Options::all());
  EXPECT_EQ(read(device, out, 1)[0], 21.0f * 36 + (0 + 1 + 2 + 3)) << most << " bytes of dynamic shared memory";
}

// Asking more group memory than the device gives a work-group is refused when recorded, naming
// the kernel, the static and dynamic bytes and the limit; nothing is recorded.
TEST(GpuAnyKernel, TooMuchSharedMemoryIsRefusedWhenRecorded) {
  REQUIRE_GPU();
  const Module m = app_module(device);
  const Kernel sum = m.kernel("app_block_sum");
  Buffer x = device.alloc(1024), out = device.alloc(1024);
  const std::uint32_t limit = device.info().limits.max_group_memory_bytes;
  EXPECT_GE(limit, 48u * 1024) << "every GPU of either vendor gives a work-group at least 48 KiB";
  Batch b;
  const std::string refused =
      test::error_text([&] { b.exec(sum, Dim3{256}, Dim3{256}, {out, x, 256u}, LaunchConfig{limit}); });
  EXPECT_NE(refused.find("app_block_sum"), std::string::npos) << refused;
  EXPECT_NE(refused.find("1024 static + " + std::to_string(limit) + " dynamic"), std::string::npos) << refused;
  EXPECT_NE(refused.find("at most " + std::to_string(limit)), std::string::npos) << refused;
  EXPECT_EQ(b.size(), 0u);
  b.exec(sum, Dim3{256}, Dim3{256}, {out, x, 256u}, LaunchConfig{1024});
  EXPECT_NE(test::error_text([&] { b.set_launch_config(0, LaunchConfig{limit}); }).find("app_block_sum"), std::string::npos);
  EXPECT_EQ(b.launch_config(0).dynamic_shared_bytes, 1024u) << "a refused set_launch_config changes nothing";
}

// app_affine(unsigned tag, AffineParams p): a 40-byte struct at offset 8, passed as itself, as
// raw bytes, and changed by set_args between replays. On main, Arg refused it at compile time.
TEST(GpuAnyKernel, AParameterStructPassesAsItself) {
  REQUIRE_GPU();
  if (test::runs_host_builds(device)) GTEST_SKIP() << "a module's kernel runs only as machine code";
  const Module m = app_module(device);
  const Kernel affine = m.kernel("app_affine");
  const unsigned n = 300;
  std::vector<float> xs(n);
  for (unsigned i = 0; i < n; ++i) xs[i] = float(i);
  Buffer x = device.alloc(n * sizeof(float)), y = device.alloc(2 * n * sizeof(float));
  device.copy_to_device(x, xs.data(), n * sizeof(float));
  const auto params = [&](float a, unsigned stride) {
    return AffineParams{static_cast<float*>(y.device_ptr()), static_cast<const float*>(x.device_ptr()), a, 1.0f, n,
                        stride, 0.5};
  };
  Queue q = device.create_queue();
  Batch b;
  b.exec(affine, Dim3{n}, Dim3{64}, {3u, params(2.0f, 1)});
  q.run(b, Options::all());
  std::vector<float> got = read(device, y, n);
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(got[i], 2.0f * i + 1.0f + 0.5f + 3.0f) << i;

  Options replay = Options::all();
  replay.replay = true;
  q.run(b, replay);
  const AffineParams changed = params(-1.0f, 2);
  b.set_args(0, {0u, Arg::bytes(&changed, sizeof changed)});
  q.run(b, replay);
  got = read(device, y, 2 * n);
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(got[2 * i], -1.0f * i + 1.0f + 0.5f) << "after set_args, item " << i;

  struct TooSmall {
    float* y;
    const float* x;
    float a, b;
    unsigned n, stride;
  } small{};
  const std::string refused = test::error_text([&] { b.set_args(0, {0u, small}); });
  EXPECT_NE(refused.find("is 40 bytes, got 32"), std::string::npos) << refused;
}

// What a kernel costs: its registers from the code object or the driver, and how many of its
// work-groups one compute unit (SM) holds, from CLR's model on AMD and the driver on NVIDIA.
TEST(GpuAnyKernel, AKernelsRegistersAndOccupancyAreReported) {
  REQUIRE_GPU();
  const Module m = app_module(device);
  const Kernel sum = m.kernel("app_block_sum");
  EXPECT_GT(sum.info().vector_registers, 0u);
  if (device.info().backend == "rocr") {
    EXPECT_GT(sum.info().scalar_registers, 0u);
  }
  const auto model = amdgpu_groups_per_cu(device.info().isa, sum.info(), 256);
  if (device.info().backend == "rocr" && !model) {
    const std::string why = test::error_text([&] { (void)sum.max_active_groups_per_cu(256); });
    EXPECT_NE(why.find("not " + device.info().isa), std::string::npos) << why;
    GTEST_SKIP() << "the occupancy model does not cover " << device.info().isa;
  }
  const std::uint32_t plain = sum.max_active_groups_per_cu(256);
  if (model) {
    EXPECT_EQ(plain, *model);
  }
  EXPECT_GE(plain, 2u) << "a kernel of few registers and 1 KiB of shared memory";
  // A group that asks all the group memory there is leaves room for one group alone.
  const std::uint32_t most = device.info().limits.max_group_memory_bytes - sum.info().group_segment_size;
  EXPECT_EQ(sum.max_active_groups_per_cu(256, most), 1u);
  EXPECT_EQ(sum.max_active_groups_per_cu(256, most + 1), 0u) << "one group past the limit fits nowhere";
  EXPECT_NE(test::error_text([&] { (void)sum.max_active_groups_per_cu(0); }).find("0 work-items"), std::string::npos);
  EXPECT_NE(test::error_text([&] { (void)sum.max_active_groups_per_cu(2048); }).find("exceeds"), std::string::npos);
}

// A chain of dependent application kernels, each launched early (LaunchConfig::early_launch): on
// sm_90 every launch after the first overlaps its predecessor's end (counted), and each waits
// for it in the kernel, so the sum is exact. Elsewhere the flag changes nothing.
TEST(GpuAnyKernel, AnEarlyLaunchedChainOfApplicationKernelsIsExact) {
  REQUIRE_GPU();
  if (test::runs_host_builds(device)) GTEST_SKIP() << "a module's kernel runs only as machine code";
  const Module m = app_module(device);
  const Kernel step = m.kernel("app_chain_step");
  const unsigned n = 4096, links = test::simulated(device) ? 8 : 200;
  Buffer x = device.alloc(n * sizeof(float));
  Queue q = device.create_queue();
  for (const bool early : {false, true}) {
    device.copy_to_device(x, std::vector<float>(n, 0.0f).data(), n * sizeof(float));
    Batch b;
    LaunchConfig config;
    config.early_launch = early;
    for (unsigned k = 0; k < links; ++k) b.exec(step, Dim3{n}, Dim3{256}, {x, n}, config);
    Options o = Options::all();
    o.replay = false;  // replayed as a CUDA graph, a batch takes no early launch
    const Stats before = device.stats();
    q.run(b, o);
    const Stats used = device.stats() - before;
    // HSAD_CUDA_EARLY_LAUNCH=0 turns early launch off (docs/api.md): then nothing launches early.
    const char* off = std::getenv("HSAD_CUDA_EARLY_LAUNCH");
    const bool hopper = device.info().backend == "cuda" && std::stoi(device.info().isa.substr(3)) >= 90 &&
                        !(off && std::string(off) == "0");
    EXPECT_EQ(used.early_launches, early && hopper ? links - 1 : 0u) << (early ? "early" : "not early");
    const std::vector<float> got = read(device, x, n);
    for (unsigned i = 0; i < n; i += 97) ASSERT_EQ(got[i], float(links)) << "item " << i << (early ? ", early" : "");
  }
}

// A cooperative dispatch (cooperative_groups' grid.sync()): exact on a cooperative queue, plain
// and replayed; on rocr an ordinary queue refuses it at submit (no GWS), and everywhere a grid
// larger than the device holds at once is refused when recorded, with the limit.
TEST(GpuAnyKernel, ACooperativeDispatchSyncsTheWholeGrid) {
  REQUIRE_GPU();
  if (test::runs_host_builds(device)) GTEST_SKIP() << "a module's kernel runs only as machine code";
  if (const std::string refused = test::cooperative_refused_without_gws(device); !refused.empty()) {
    GTEST_SKIP() << "refused by name, as it must be without GWS: " << refused;
  }
  const Module m = app_module(device);
  const Kernel rounds = m.kernel("app_grid_rounds");
  const unsigned block = 256, groups = test::simulated(device) ? 8 : 2 * device.info().compute_units;
  const unsigned n = groups * block, passes = test::simulated(device) ? 3 : 20;
  std::vector<std::uint32_t> start(n);
  for (unsigned i = 0; i < n; ++i) start[i] = i + 1;
  Buffer a = device.alloc(n * 4), b = device.alloc(n * 4);
  LaunchConfig cooperative;
  cooperative.cooperative = true;
  Batch batch;
  batch.copy_to_device(a, start.data(), n * 4).exec(rounds, Dim3{n}, Dim3{block}, {a, b, n, passes}, cooperative);
  EXPECT_EQ(batch.cooperative_dispatch_count(), 1u);
  Queue q = device.create_cooperative_queue();
  const std::vector<std::uint32_t> want = test::grid_rounds(start, block, passes);
  for (const bool replay : {false, true}) {
    Options o = Options::all();
    o.replay = replay;
    q.run(batch, o);
    std::vector<std::uint32_t> got(n);
    device.copy_to_host(got.data(), a, n * 4);
    EXPECT_EQ(got, want) << (replay ? "replayed" : "not replayed");
  }
  if (device.info().backend == "rocr") {
    Queue ordinary = device.create_queue();
    const std::string refused = test::error_text([&] { ordinary.run(batch); });
    EXPECT_NE(refused.find("Device::create_cooperative_queue"), std::string::npos) << refused;
    // ROCr has one cooperative queue per agent: every cooperative Queue is a ring over it (docs/api.md).
    const Queue again = device.create_cooperative_queue();
    EXPECT_EQ(again.native().queue, q.native().queue);
    EXPECT_NE(again.id(), q.id());
  }
  // One work-group more than the device holds at once, where the occupancy is known.
  std::uint32_t per_cu = 0;
  try {
    per_cu = rounds.max_active_groups_per_cu(block);
  } catch (const Error& e) {
    ASSERT_EQ(e.code(), Errc::unsupported) << e.what();
    // Every simulated target is modelled (RDNA's gfx1030 too: its device once ended the process
    // here instead, on ROCr's cooperative queue); a GPU outside the model refuses the grid itself.
    ASSERT_FALSE(test::simulated(device)) << e.what();
    return;
  }
  const std::uint64_t resident = std::uint64_t(per_cu) * device.info().compute_units;
  const unsigned too_many = unsigned(resident + 1) * block;
  Batch big;
  const std::string refused =
      test::error_text([&] { big.exec(rounds, Dim3{too_many}, Dim3{block}, {a, b, n, 1u}, cooperative); });
  EXPECT_NE(refused.find("holds at most " + std::to_string(resident)), std::string::npos) << refused;
  EXPECT_EQ(big.size(), 0u);
}

// Device printf, as HIP and CUDA users write it: every work-group's line reaches stdout by the
// time the submission's result is read back (AMD: the library's hostcall service; CUDA: the
// driver's printf buffer, flushed by the blocking copy).
TEST(GpuAnyKernel, DevicePrintfReachesStdout) {
  REQUIRE_GPU();
  if (test::runs_host_builds(device)) GTEST_SKIP() << "a module's kernel runs only as machine code";
  const Module m = app_module(device);
  Buffer anything = device.alloc(4);
  Queue q = device.create_queue();
  Batch b;
  b.exec(m.kernel("app_printf"), Dim3{4 * 64}, Dim3{64}, {9u});
  testing::internal::CaptureStdout();
  q.run(b);
  std::uint32_t sink = 0;
  device.copy_to_host(&sink, anything, 4);
  std::fflush(stdout);
  const std::string out = testing::internal::GetCapturedStdout();
  for (unsigned g = 0; g < 4; ++g) {
    const std::string line = "group " + std::to_string(g) + " of 4: tag 9, hello, 1.50, -7, [   42]\n";
    EXPECT_NE(out.find(line), std::string::npos) << "missing: " << line << "in:\n" << out;
  }
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 4) << out;
}

// Device malloc and free in every work-item.
TEST(GpuAnyKernel, DeviceMallocAndFreeWork) {
  REQUIRE_GPU();
  if (test::runs_host_builds(device)) GTEST_SKIP() << "a module's kernel runs only as machine code";
  const Module m = app_module(device);
  const unsigned n = test::simulated(device) ? 128 : 4096;
  Buffer out = device.alloc(n * 4);
  Queue q = device.create_queue();
  Batch b;
  b.exec(m.kernel("app_malloc"), Dim3{n}, Dim3{64}, {out, n});
  q.run(b);
  std::vector<std::uint32_t> got(n);
  device.copy_to_host(got.data(), out, n * 4);
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(got[i], 4 * i + 6) << "item " << i;
}
