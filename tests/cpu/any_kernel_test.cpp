// Any kernel an application has (issue 42), on the cpu agent: group memory beyond a kernel's
// static use (LaunchConfig::dynamic_shared_bytes), parameter structs of any size passed by value,
// raw kernarg bytes, and the mistakes around them, each refused when recorded.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "error_text.hpp"
#include "grid_rounds.hpp"
#include "hsad/hsad.hpp"

using namespace hsad;

namespace {
constexpr std::uint32_t kStatic = 16;  // the group sum's static group memory

struct GroupSumArgs {
  std::uint32_t* out;  // per group: the sum, then the group memory bytes the kernel got
  const std::uint32_t* in;
  std::uint32_t n;
};

// Each work-group puts its items into the dynamic array (after the static 16 bytes, which hold a
// marker the dynamic writes must not touch), sums them, and reports what it was given.
void group_sum(const WorkGroup& wg) {
  const auto& a = wg.args<GroupSumArgs>();
  auto* fixed = static_cast<std::uint32_t*>(wg.group_memory);
  auto* dynamic = reinterpret_cast<std::uint32_t*>(static_cast<unsigned char*>(wg.group_memory) + kStatic);
  fixed[0] = 0xfeedu;
  std::uint32_t items = 0;
  for (std::uint32_t i = wg.first_x(); i < wg.end_x(); ++i) dynamic[items++] = i < a.n ? a.in[i] : 0;
  std::uint32_t sum = 0;
  for (std::uint32_t k = 0; k < items; ++k) sum += dynamic[k];
  a.out[2 * wg.id.x] = fixed[0] == 0xfeedu ? sum : ~0u;
  a.out[2 * wg.id.x + 1] = wg.group_memory_bytes;
}

#pragma pack(push, 1)
struct PackedArgs {  // v at offset 4: no compiler puts a uint64_t parameter there
  std::uint32_t tag;
  std::uint64_t v;
};
#pragma pack(pop)

struct RoundsArgs {
  std::uint32_t* a;
  std::uint32_t* b;
  std::uint32_t n;
  std::uint32_t rounds;  // kFailInGroupTwo: work-group 2 throws before the first barrier
};
constexpr std::uint32_t kFailInGroupTwo = 0xffffffffu;

// tests/support/grid_rounds.hpp's rounds, each work-group's items in turn, with grid barriers.
void grid_rounds_host(const WorkGroup& wg) {
  const auto& a = wg.args<RoundsArgs>();
  if (a.rounds == kFailInGroupTwo) {
    if (wg.id.x == 2) throw std::runtime_error("group 2 gave up");
    wg.grid_sync();
    return;
  }
  for (std::uint32_t r = 0; r < a.rounds; ++r) {
    for (std::uint32_t i = wg.first_x(); i < wg.end_x(); ++i) {
      if (i < a.n) a.b[i] = a.a[i] + a.a[(i + wg.size.x) % a.n];
    }
    wg.grid_sync();
    for (std::uint32_t i = wg.first_x(); i < wg.end_x(); ++i) {
      if (i < a.n) a.a[i] = a.b[i];
    }
    wg.grid_sync();
  }
}

struct Params {  // 40 bytes, by value
  std::uint32_t* y;
  const std::uint32_t* x;
  std::uint32_t a, b;
  std::uint32_t n, stride;
  double bias;
};
struct AffineArgs {
  std::uint32_t tag;
  Params p;  // at offset 8
};

void affine(const WorkGroup& wg) {
  const auto& a = wg.args<AffineArgs>();
  for (std::uint32_t i = wg.first_x(); i < wg.end_x(); ++i) {
    if (i < a.p.n) a.p.y[i * a.p.stride] = a.p.a * a.p.x[i] + a.p.b + std::uint32_t(a.p.bias) + a.tag;
  }
}

Device device() {
  static Runtime rt = [] {
    register_host_kernel(make_host_kernel<GroupSumArgs>(
        "app_group_sum", &group_sum,
        {host_arg("out", &GroupSumArgs::out), host_arg("in", &GroupSumArgs::in), host_arg("n", &GroupSumArgs::n)}, kStatic));
    register_host_kernel(make_host_kernel<AffineArgs>("app_affine_host", &affine,
                                                      {host_arg("tag", &AffineArgs::tag), host_arg("p", &AffineArgs::p)}));
    register_host_kernel(make_host_kernel<PackedArgs>("app_packed", +[](const WorkGroup&) {},
                                                      {host_arg("tag", &PackedArgs::tag), host_arg("v", &PackedArgs::v)}));
    register_host_kernel(make_host_kernel<RoundsArgs>(
        "app_grid_rounds_host", &grid_rounds_host,
        {host_arg("a", &RoundsArgs::a), host_arg("b", &RoundsArgs::b), host_arg("n", &RoundsArgs::n),
         host_arg("rounds", &RoundsArgs::rounds)}));
    return Runtime::open("cpu");
  }();
  return rt.device();
}

std::vector<std::uint32_t> read(const Buffer& b, std::size_t n) {
  std::vector<std::uint32_t> v(n);
  device().copy_to_host(v.data(), b, n * 4);
  return v;
}
}  // namespace

TEST(CpuAnyKernel, DynamicGroupMemoryFollowsTheStaticAndChangesBetweenReplays) {
  const Kernel sum = device().kernel("app_group_sum");
  const std::uint32_t n = 1000, group = 64, groups = (n + group - 1) / group;
  std::vector<std::uint32_t> in(n);
  for (std::uint32_t i = 0; i < n; ++i) in[i] = i;
  Buffer x = device().alloc(n * 4), out = device().alloc(2 * groups * 4);
  device().copy_to_device(x, in.data(), n * 4);
  Queue q = device().create_queue();
  Batch b;
  b.exec(sum, Dim3{n}, Dim3{group}, {out, x, n}, LaunchConfig{group * 4});
  Options replay = Options::all();
  replay.replay = true;
  q.run(b, replay);
  std::vector<std::uint32_t> got = read(out, 2 * groups);
  for (std::uint32_t g = 0; g < groups; ++g) {
    std::uint32_t want = 0;
    for (std::uint32_t i = g * group; i < std::min(n, (g + 1) * group); ++i) want += i;
    EXPECT_EQ(got[2 * g], want) << "group " << g;
    EXPECT_EQ(got[2 * g + 1], kStatic + group * 4) << "static + dynamic";
  }
  // set_launch_config between replays: the image is rewritten for that dispatch, not rebuilt.
  const Stats before = device().stats();
  b.set_launch_config(0, LaunchConfig{4096});
  q.run(b, replay);
  EXPECT_EQ(read(out, 2)[1], kStatic + 4096);
  EXPECT_EQ(device().stats().images_built, before.images_built);
  // Without a LaunchConfig a dispatch gets the static memory alone (the kernel here would write
  // past it, so it is only recorded).
  Batch plain;
  plain.exec(sum, Dim3{n}, Dim3{group}, {out, x, n});
  EXPECT_EQ(plain.launch_config(0).dynamic_shared_bytes, 0u);
}

TEST(CpuAnyKernel, GroupMemoryPastTheLimitIsRefusedWhenRecorded) {
  const Kernel sum = device().kernel("app_group_sum");
  Buffer x = device().alloc(64 * 4), out = device().alloc(64 * 4);
  const std::uint32_t limit = device().info().limits.max_group_memory_bytes;
  EXPECT_EQ(limit, 64u * 1024) << "the cpu agent gives a work-group what a GPU's LDS holds";
  Batch b;
  const std::string why = test::error_text([&] { b.exec(sum, Dim3{64}, Dim3{64}, {out, x, 64u}, LaunchConfig{limit - 8}); });
  EXPECT_NE(why.find("kernel 'app_group_sum' asks " + std::to_string(limit + 8) + " bytes of group memory (16 static + " +
                     std::to_string(limit - 8) + " dynamic)"),
            std::string::npos)
      << why;
  EXPECT_EQ(b.size(), 0u) << "nothing recorded";
  b.exec(sum, Dim3{64}, Dim3{64}, {out, x, 64u}, LaunchConfig{limit - kStatic});  // exactly the limit
  EXPECT_NE(test::error_text([&] { b.set_launch_config(1, LaunchConfig{}); }).find("dispatch 1 of a batch of 1"),
            std::string::npos);
}

TEST(CpuAnyKernel, AStructOfAnySizePassesByValue) {
  const Kernel affine = device().kernel("app_affine_host");
  ASSERT_EQ(affine.info().args.at(1).size, sizeof(Params));
  const std::uint32_t n = 100;
  std::vector<std::uint32_t> xs(n);
  for (std::uint32_t i = 0; i < n; ++i) xs[i] = i;
  Buffer x = device().alloc(n * 4), y = device().alloc(2 * n * 4);
  device().copy_to_device(x, xs.data(), n * 4);
  const auto params = [&](std::uint32_t a, std::uint32_t stride) {
    return Params{static_cast<std::uint32_t*>(y.device_ptr()), static_cast<const std::uint32_t*>(x.device_ptr()), a, 1,
                  n, stride, 2.0};
  };
  Queue q = device().create_queue();
  // An argument list built at run time from a temporary: the Arg holds its own copy.
  std::vector<Arg> args = {7u};
  args.push_back(params(3, 1));
  std::vector<Arg> copied = args;  // and copies of it are copies
  Batch b;
  b.exec(affine, Dim3{n}, Dim3{32}, copied);
  args.clear();
  q.run(b, Options::all());
  std::vector<std::uint32_t> got = read(y, n);
  for (std::uint32_t i = 0; i < n; ++i) ASSERT_EQ(got[i], 3 * i + 1 + 2 + 7) << i;

  // Raw bytes, and set_args between replays.
  Options replay = Options::all();
  replay.replay = true;
  q.run(b, replay);
  const Params changed = params(5, 2);
  b.set_args(0, {0u, Arg::bytes(&changed, sizeof changed)});
  q.run(b, replay);
  got = read(y, 2 * n);
  for (std::uint32_t i = 0; i < n; ++i) ASSERT_EQ(got[2 * i], 5 * i + 1 + 2) << i;
}

TEST(CpuAnyKernel, AStructOfTheWrongSizeOrAlignmentIsRefused) {
  const Kernel affine = device().kernel("app_affine_host");
  Batch b;
  struct Short {
    std::uint32_t* y;
    const std::uint32_t* x;
    std::uint32_t a, b, n, stride;
  } shorter{};
  std::string why = test::error_text([&] { b.exec(affine, Dim3{1}, Dim3{1}, {0u, shorter}); });
  EXPECT_NE(why.find("argument 1 ('p') of kernel 'app_affine_host' is 40 bytes, got 32"), std::string::npos) << why;
  // A parameter at an offset its type's alignment does not divide: the value passed cannot be
  // of the type the kernel declared there (any C ABI aligns it); raw bytes are taken as they are.
  const Kernel packed = device().kernel("app_packed");
  ASSERT_EQ(packed.info().args.at(1).offset, 4u);
  why = test::error_text([&] { b.exec(packed, Dim3{1}, Dim3{1}, {1u, std::uint64_t(2)}); });
  EXPECT_NE(why.find("argument 1 ('v') of kernel 'app_packed' is at offset 4 of the kernarg segment; got a value aligned "
                     "to 8 bytes"),
            std::string::npos)
      << why;
  EXPECT_EQ(b.size(), 0u);
  const std::uint64_t v = 2;
  b.exec(packed, Dim3{1}, Dim3{1}, {1u, Arg::bytes(&v, sizeof v)});
  EXPECT_EQ(b.size(), 1u);
  b.clear();
  EXPECT_NE(test::error_text([] { (void)Arg::bytes(nullptr, 8); }).find("null data"), std::string::npos);
  EXPECT_NE(test::error_text([] { (void)Arg::bytes("", 0); }).find("0 bytes"), std::string::npos);
  EXPECT_EQ(b.size(), 0u);
}

TEST(CpuAnyKernel, AWorkerThreadHoldsOneGroupAtATime) {
  const Kernel sum = device().kernel("app_group_sum");
  EXPECT_EQ(sum.max_active_groups_per_cu(64), 1u);
  EXPECT_EQ(sum.info().vector_registers, 0u) << "a host kernel has no registers to report";
  EXPECT_NE(test::error_text([&] { (void)sum.max_active_groups_per_cu(0); }).find("a work-group of 0 work-items"),
            std::string::npos);
  EXPECT_NE(test::error_text([] { (void)Kernel().max_active_groups_per_cu(64); }).find("empty Kernel"), std::string::npos);
}

// A cooperative dispatch on the cpu agent: every work-group on a thread of its own, held by
// WorkGroup::grid_sync (the host twin of tests/modules/app_kernels.cu's app_grid_rounds).
TEST(CpuAnyKernel, ACooperativeDispatchSyncsEveryWorkGroup) {
  const Kernel rounds = device().kernel("app_grid_rounds_host");
  const std::uint32_t block = 32, groups = 16, n = block * groups, passes = 5;
  std::vector<std::uint32_t> start(n);
  for (std::uint32_t i = 0; i < n; ++i) start[i] = i + 1;
  Buffer a = device().alloc(n * 4), b = device().alloc(n * 4);
  LaunchConfig cooperative;
  cooperative.cooperative = true;
  Batch batch;
  batch.copy_to_device(a, start.data(), n * 4).exec(rounds, Dim3{n}, Dim3{block}, {a, b, n, passes}, cooperative);
  Queue q = device().create_cooperative_queue();  // on the cpu agent, an ordinary queue
  for (const bool replay : {false, true}) {
    Options o = Options::all();
    o.replay = replay;
    q.run(batch, o);
    EXPECT_EQ(read(a, n), test::grid_rounds(start, block, passes)) << (replay ? "replayed" : "not replayed");
  }
  // Without the flag the barrier is refused where it is called: the queue reports it.
  Batch plain;
  plain.exec(rounds, Dim3{n}, Dim3{block}, {a, b, n, passes});
  Queue other = device().create_queue();
  const std::string why = test::error_text([&] { other.run(plain); });
  EXPECT_NE(why.find("grid_sync outside a cooperative dispatch"), std::string::npos) << why;
  // More work-groups than it can run at once: refused when recorded, with the limit.
  Batch big;
  const std::string refused = test::error_text(
      [&] { big.exec(rounds, Dim3{block * std::uint32_t(kCpuCooperativeGroups + 1)}, Dim3{block}, {a, b, n, 1u}, cooperative); });
  EXPECT_NE(refused.find("at most " + std::to_string(kCpuCooperativeGroups)), std::string::npos) << refused;
  EXPECT_EQ(big.size(), 0u);
}

// A work-group that fails while the others wait at the grid barrier: the barrier breaks, the
// submission fails naming the failure, nothing hangs.
TEST(CpuAnyKernel, AFailingWorkGroupBreaksTheGridBarrier) {
  const Kernel rounds = device().kernel("app_grid_rounds_host");
  Buffer a = device().alloc(64 * 4), b = device().alloc(64 * 4);
  LaunchConfig cooperative;
  cooperative.cooperative = true;
  Batch batch;
  batch.exec(rounds, Dim3{64}, Dim3{16}, {a, b, 64u, kFailInGroupTwo}, cooperative);
  Queue q = device().create_queue();
  const std::string why = test::error_text([&] { q.run(batch, Options::all(), std::chrono::seconds(20)); });
  EXPECT_NE(why.find("group 2 gave up"), std::string::npos) << why;
}
