// GPU tests: run on the first GPU backend present (rocr, then cuda) and skip, saying why,
// where there is none. The same checks as the cpu agent's, on real hardware.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "bitonic_workload.hpp"
#include "hsad/hsad.hpp"

using namespace hsad;

namespace {
// The first available GPU backend, or an empty optional with the reasons in `why`.
const Runtime* gpu(std::string* why) {
  static std::string reasons;
  static std::unique_ptr<Runtime> rt = [] {
    for (const BackendStatus& b : Runtime::probe()) {
      if (b.name == "cpu") continue;
      if (b.available) return std::make_unique<Runtime>(Runtime::open(b.name));
      reasons += b.name + ": " + b.reason + "; ";
    }
    return std::unique_ptr<Runtime>();
  }();
  *why = reasons;
  return rt.get();
}

#define REQUIRE_GPU()                                              \
  std::string why;                                                 \
  const Runtime* rt = gpu(&why);                                   \
  if (!rt) GTEST_SKIP() << "no GPU backend available: " << why;    \
  const Device& device = rt->device()

std::vector<std::uint32_t> random_keys(std::size_t n) {
  std::vector<std::uint32_t> k(n);
  std::mt19937 rng(static_cast<std::uint32_t>(n));
  for (auto& v : k) v = rng();
  return k;
}

// The counters one iteration of `w` changed.
Stats counted(const Device& d, bench::BitonicWorkload& w) {
  const Stats before = d.stats();
  w.run();
  return d.stats() - before;
}

bool sorts(const Device& d, std::uint32_t n, const Options& o) {
  auto keys = random_keys(n);
  bench::BitonicWorkload w(d, n, o);
  std::copy(keys.begin(), keys.end(), w.input());
  w.run();
  w.run();  // twice: a replayed graph must sort fresh input too
  std::sort(keys.begin(), keys.end());
  return w.output_matches(keys);
}
}  // namespace

TEST(Gpu, BitonicSortsEveryLadderRow) {
  REQUIRE_GPU();
  Options wanted = Options::all();
  wanted.replay = device.info().backend == "cuda";
  for (const LadderRow& row : ladder(wanted)) EXPECT_TRUE(sorts(device, 32768, row.options)) << row.config;
}

TEST(Gpu, BitonicSortsManySizes) {
  REQUIRE_GPU();
  for (int k : {1, 2, 5, 8, 10, 12, 16, 20, 22}) EXPECT_TRUE(sorts(device, 1u << k, Options::all())) << "n=2^" << k;
}

TEST(Gpu, NosyncRingsOnceAndWaitsOnce) {
  REQUIRE_GPU();
  bench::BitonicWorkload sync(device, 1024, Options::parse("signal,kernarg"));
  bench::BitonicWorkload batch(device, 1024, Options::parse("signal,kernarg,nosync"));
  const Stats a = counted(device, sync), b = counted(device, batch);
  EXPECT_EQ(a.host_waits, 55u);
  EXPECT_EQ(a.doorbells, 55u);
  EXPECT_EQ(b.host_waits, 1u);
  EXPECT_EQ(b.doorbells, 1u);
  EXPECT_EQ(b.packets, 55u);
}

TEST(Gpu, SignalAndKernargPoolsAvoidWorkInTheTimedRun) {
  REQUIRE_GPU();
  bench::BitonicWorkload base(device, 1024, Options::none());
  bench::BitonicWorkload pooled(device, 1024, Options::parse("signal,kernarg"));
  const Stats a = counted(device, base), b = counted(device, pooled);
  EXPECT_EQ(a.signals_created, 1u);
  EXPECT_EQ(a.kernarg_allocations, 1u);
  EXPECT_EQ(b.signals_created, 0u);
  EXPECT_EQ(b.kernarg_allocations, 0u);
}

TEST(Gpu, PinnedTransfersAreNotStaged) {
  REQUIRE_GPU();
  bench::BitonicWorkload pageable(device, 4096, Options::parse("nosync"));
  bench::BitonicWorkload pinned(device, 4096, Options::parse("nosync,pinned"));
  EXPECT_EQ(counted(device, pageable).bytes_staged, 2u * 4096 * 4);
  EXPECT_EQ(counted(device, pinned).bytes_staged, 0u);
}

TEST(Gpu, KernelArgumentsComeFromTheDriversView) {
  REQUIRE_GPU();
  const Kernel k = device.kernel("bitonic_step");
  EXPECT_EQ(k.info().explicit_arg_count(), 4u);
  EXPECT_EQ(k.info().args[0].size, 8u);
  EXPECT_EQ(k.info().args[1].offset, 8u);
  EXPECT_EQ(k.info().args[3].offset, 16u);
}

TEST(Gpu, WrongArgumentCountIsRefused) {
  REQUIRE_GPU();
  Batch b;
  EXPECT_THROW(b.exec(device.kernel("bitonic_step"), Dim3{64}, Dim3{64}, {1u, 2u}), Error);
}

TEST(Gpu, UnknownKernelIsRefused) {
  REQUIRE_GPU();
  EXPECT_THROW(device.kernel("no_such_kernel"), Error);
}

TEST(Gpu, ReplayFollowsAChangedBatch) {
  REQUIRE_GPU();
  if (device.info().backend != "cuda") GTEST_SKIP() << "replay is a CUDA graph";
  Queue q = device.create_queue();
  Buffer buf = device.alloc(1024 * 4);
  auto keys = random_keys(1024);
  Batch b;
  const Kernel step = device.kernel("bitonic_step");
  b.exec(step, Dim3{512}, Dim3{256}, {buf, 0u, 0u, 1u});
  Options o = Options::all();
  o.replay = true;
  device.copy_to_device(buf, keys.data(), keys.size() * 4);
  q.run(b, o);  // graph of one step
  b.clear();
  for (std::uint32_t stage = 0; stage < 10; ++stage)
    for (std::uint32_t pass = 0; pass <= stage; ++pass) b.exec(step, Dim3{512}, Dim3{256}, {buf, stage, pass, 1u});
  device.copy_to_device(buf, keys.data(), keys.size() * 4);
  q.run(b, o);  // must be a new graph of the whole sort
  std::vector<std::uint32_t> out(1024);
  device.copy_to_host(out.data(), buf, out.size() * 4);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(out, keys);
}

TEST(Gpu, EmptyKernelBatchOfTenThousand) {
  REQUIRE_GPU();
  Queue q = device.create_queue();
  Batch b;
  const Kernel e = device.kernel("hsad_empty");
  for (int i = 0; i < 10000; ++i) b.exec(e, Dim3{1}, Dim3{1}, {});
  EXPECT_NO_THROW(q.run(b, Options::all()));
}
