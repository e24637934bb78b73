// Options::replay on the AQL path (the cpu agent): a batch's packets are encoded once, kernarg
// blocks written once, and each submit copies the image into the ring; checked through exact
// Stats and exact results, across ring wraps, timeline waits, re-recording and two threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>

#include "bitonic.hpp"
#include "laplacian.hpp"
#include "hsad/hsad.hpp"
#include "test_kernels.hpp"

using namespace hsad;

namespace {
struct AtomicAddArgs {
  std::uint32_t* data;
  std::uint32_t n;
};
void atomic_add(const WorkGroup& wg) {
  const AtomicAddArgs& a = wg.args<AtomicAddArgs>();
  for (std::uint32_t i = wg.first_x(); i < wg.end_x() && i < a.n; ++i) __atomic_fetch_add(&a.data[i], 1u, __ATOMIC_RELAXED);
}

const Device& device() {
  static std::once_flag once;
  std::call_once(once, [] {
    test::register_test_kernels();
    register_host_kernel(make_host_kernel<AtomicAddArgs>(
        "replay_atomic_add", &atomic_add, {host_arg("data", &AtomicAddArgs::data), host_arg("n", &AtomicAddArgs::n)}));
  });
  static Runtime rt = Runtime::open("cpu");
  return rt.device();
}

Options replaying() {
  Options o = Options{};
  o.replay = true;
  return o;
}

// copy in, the sort of n keys, copy out: one batch.
Batch sort_batch(const Buffer& keys, std::uint32_t* in, std::uint32_t* out, std::uint32_t n) {
  Batch b;
  b.copy_to_device(keys, in, n * 4);
  for (std::uint32_t stage = 0; (2u << stage) <= n; ++stage)
    for (std::uint32_t pass = 0; pass <= stage; ++pass)
      b.exec(device().kernel("bitonic_step"), Dim3{n / 2}, Dim3{64}, {keys, stage, pass, 1u, n});
  b.copy_to_host(out, keys, n * 4);
  return b;
}
}  // namespace

TEST(CpuReplay, TheSortIsBitExactAndItsImageIsBuiltOnce) {
  const std::uint32_t n = 4096;  // 78 dispatches and two copies: 80 packets
  std::vector<std::uint32_t> in(n), out(n), plain(n);
  std::mt19937 rng(3);
  for (auto& k : in) k = rng();
  Buffer keys = device().alloc(n * 4);
  Queue q = device().create_queue();
  Batch b = sort_batch(keys, in.data(), out.data(), n);
  q.run(sort_batch(keys, in.data(), plain.data(), n), Options{});

  const Stats s0 = device().stats();
  q.run(b, replaying());
  const Stats first = device().stats() - s0;
  EXPECT_EQ(first.images_built, 1u);
  EXPECT_EQ(first.kernarg_writes, 78u);  // written once, into the image's own memory
  EXPECT_EQ(out, plain);

  std::fill(out.begin(), out.end(), 0u);
  const Stats s1 = device().stats();
  q.run(b, replaying());
  const Stats again = device().stats() - s1;
  EXPECT_EQ(out, plain);
  EXPECT_EQ(again.images_built, 0u);
  EXPECT_EQ(again.kernarg_writes, 0u);
  EXPECT_EQ(again.kernarg_allocations, 0u);
  EXPECT_EQ(again.signals_created, 0u);
  EXPECT_EQ(again.packets, 80u);
  EXPECT_EQ(again.doorbells, 2u);  // every 64 packets, and at the end
  EXPECT_EQ(again.host_waits, 1u);
  EXPECT_EQ(again.copies, 2u);
  // The same fence scopes as the writer's: system next to the host and around each copy.
  const Stats s2 = device().stats();
  q.run(b, Options{});
  EXPECT_EQ((device().stats() - s2).system_fences, again.system_fences);
}

TEST(CpuReplay, RecordingAgainBuildsANewImage) {
  Buffer buf = device().alloc(64 * 4);
  std::vector<std::uint32_t> zero(64, 0), back(64);
  device().copy_to_device(buf, zero.data(), 64 * 4);
  Queue q = device().create_queue();
  Batch b;
  b.exec(device().kernel("test_add"), Dim3{64}, Dim3{64}, {buf, 1u, 64u});
  q.run(b, replaying());
  b.exec(device().kernel("test_add"), Dim3{64}, Dim3{64}, {buf, 10u, 64u});  // the batch changed
  const Stats s = device().stats();
  q.run(b, replaying());
  EXPECT_EQ((device().stats() - s).images_built, 1u);
  device().copy_to_host(back.data(), buf, 64 * 4);
  EXPECT_EQ(back[0], 1u + 1u + 10u);
}

// An image four times the ring: it goes out a ring at a time, waiting for room, every time.
TEST(CpuReplay, AnImageLargerThanTheRingGoesOutInChunks) {
  Buffer buf = device().alloc(64 * 4);
  std::vector<std::uint32_t> zero(64, 0), back(64);
  device().copy_to_device(buf, zero.data(), 64 * 4);
  Queue q = device().create_queue(64);
  Batch b;
  for (int i = 0; i < 256; ++i) b.exec(device().kernel("test_add"), Dim3{64}, Dim3{64}, {buf, 1u, 64u});
  for (int r = 0; r < 3; ++r) q.run(b, replaying());
  device().copy_to_host(back.data(), buf, 64 * 4);
  EXPECT_EQ(back[63], 3u * 256u);
}

// Queues fed in lockstep: each replayed step waits for the other queue's previous one, resolved
// anew at every submit into the image's barrier-AND packet.
TEST(CpuReplay, TimelineWaitsAreResolvedAtEverySubmit) {
  Buffer buf = device().alloc(64 * 4);
  std::vector<std::uint32_t> zero(64, 0), back(64);
  device().copy_to_device(buf, zero.data(), 64 * 4);
  Queue a = device().create_queue(), b = device().create_queue();
  Batch on_a, on_b;
  on_a.wait(b, 0).exec(device().kernel("test_add"), Dim3{64}, Dim3{64}, {buf, 1u, 64u});
  on_b.wait(a, 1).exec(device().kernel("test_add"), Dim3{64}, Dim3{64}, {buf, 1u, 64u});
  const Stats s = device().stats();
  std::vector<Submission> subs;
  for (int i = 0; i < 20; ++i) {
    subs.push_back(a.submit(on_a, replaying()));
    subs.push_back(b.submit(on_b, replaying()));
  }
  for (Submission& x : subs) x.wait();
  device().copy_to_host(back.data(), buf, 64 * 4);
  EXPECT_EQ(back[0], 40u);  // serialised by the waits: no add lost
  const Stats d = device().stats() - s;
  EXPECT_EQ(d.images_built, 2u);
  EXPECT_GE(d.device_waits, 38u);  // all but the first of each queue's waits name a submission
}

// Two threads replay one batch, on one queue and on two: every add lands.
TEST(CpuReplay, TwoThreadsReplayOneBatch) {
  const std::uint32_t n = 256;
  Buffer buf = device().alloc(n * 4);
  std::vector<std::uint32_t> zero(n, 0), back(n);
  device().copy_to_device(buf, zero.data(), n * 4);
  Batch b;
  for (int i = 0; i < 10; ++i) b.exec(device().kernel("replay_atomic_add"), Dim3{n}, Dim3{64}, {buf, n});
  Queue shared = device().create_queue(), other = device().create_queue();
  auto work = [&](Queue& q) {
    for (int r = 0; r < 25; ++r) q.run(b, replaying());
  };
  std::thread t1([&] { work(shared); }), t2([&] { work(shared); }), t3([&] { work(other); });
  t1.join();
  t2.join();
  t3.join();
  device().copy_to_host(back.data(), buf, n * 4);
  EXPECT_EQ(back[0], 3u * 25u * 10u);
  EXPECT_EQ(back[n - 1], 3u * 25u * 10u);
}

// Profiling replays too (each dispatch's completion a signal of its own, patched per submit); the
// baseline's host waits go through the writer as before.
TEST(CpuReplay, ProfilingIsReplayedAndReplayAloneImpliesNosync) {
  Buffer buf = device().alloc(64 * 4);
  std::vector<std::uint32_t> back(64);
  Queue q = device().create_queue();
  Batch b;
  b.exec(device().kernel("test_add"), Dim3{64}, Dim3{64}, {buf, 1u, 64u})
      .copy_to_host(back.data(), buf, 64 * 4)
      .exec(device().kernel("test_add"), Dim3{64}, Dim3{64}, {buf, 1u, 64u});
  Options profiled = replaying();
  profiled.profile = true;
  Options baseline = Options::none();
  baseline.replay = true;
  const Stats s = device().stats();
  for (int round = 0; round < 2; ++round) {
    Submission p = q.submit(b, profiled);
    p.wait();
    const std::vector<CommandTime> t = p.timestamps();
    ASSERT_EQ(t.size(), 3u);
    for (std::uint32_t i = 0; i < 3; ++i) {
      EXPECT_EQ(t[i].command, i);
      EXPECT_LE(t[i].start_ns, t[i].end_ns);
      if (i) {
        EXPECT_LE(t[i - 1].end_ns, t[i].start_ns) << "in batch order";
      }
    }
    EXPECT_EQ(t[1].what, "copy_to_host");
  }
  const Stats replayed = device().stats() - s;
  EXPECT_EQ(replayed.images_built, 1u);
  EXPECT_EQ(replayed.kernarg_writes, 2u);  // the image's two blocks, once
  // replay alone implies nosync (a replayed batch has no host wait inside it): the same image,
  // no block written, one host wait where the baseline waits after every command.
  const Stats before_alone = device().stats();
  q.run(b, baseline);
  const Stats d = device().stats() - before_alone;
  EXPECT_EQ(d.images_built, 0u);
  EXPECT_EQ(d.kernarg_writes, 0u);
  EXPECT_EQ(d.host_waits, 1u);
}

// Batch::set_args between replays: only the changed dispatch's kernarg block is written again.
TEST(CpuReplay, SetArgsRewritesOnlyTheChangedBlock) {
  std::vector<std::uint32_t> zero(64, 0), a(64), b(64);
  Buffer x = device().alloc(64 * 4), y = device().alloc(64 * 4);
  device().copy_to_device(x, zero.data(), 64 * 4);
  device().copy_to_device(y, zero.data(), 64 * 4);
  Queue q = device().create_queue();
  Batch batch;
  for (int i = 0; i < 10; ++i) batch.exec(device().kernel("test_add"), Dim3{64}, Dim3{64}, {x, 1u, 64u});
  q.run(batch, replaying());
  const std::uint64_t version = batch.version();
  batch.set_args(3, {y, 5u, 64u});
  EXPECT_EQ(batch.version(), version);  // not recorded again
  const Stats s = device().stats();
  q.run(batch, replaying());
  const Stats d = device().stats() - s;
  EXPECT_EQ(d.images_built, 0u);
  EXPECT_EQ(d.kernarg_writes, 1u);
  EXPECT_EQ(d.kernarg_allocations, 0u);
  q.run(batch, Options{});  // the writer's path reads the new arguments too
  device().copy_to_host(a.data(), x, 64 * 4);
  device().copy_to_host(b.data(), y, 64 * 4);
  EXPECT_EQ(a[17], 10u + 9u + 9u);
  EXPECT_EQ(b[17], 5u + 5u);
}

// The sort of another buffer, by arguments: every dispatch's block rewritten, the image kept.
TEST(CpuReplay, SetArgsSortsAnotherBuffer) {
  const std::uint32_t n = 1024;
  std::vector<std::uint32_t> k1(n), k2(n), out(n);
  std::mt19937 rng(9);
  for (auto& k : k1) k = rng();
  for (auto& k : k2) k = rng();
  Buffer b1 = device().alloc(n * 4), b2 = device().alloc(n * 4);
  device().copy_to_device(b1, k1.data(), n * 4);
  device().copy_to_device(b2, k2.data(), n * 4);
  Batch sort;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> steps;
  for (std::uint32_t stage = 0; (2u << stage) <= n; ++stage)
    for (std::uint32_t pass = 0; pass <= stage; ++pass) {
      sort.exec(device().kernel("bitonic_step"), Dim3{n / 2}, Dim3{64}, {b1, stage, pass, 1u, n});
      steps.push_back({stage, pass});
    }
  Queue q = device().create_queue();
  q.run(sort, replaying());
  for (std::size_t i = 0; i < steps.size(); ++i) sort.set_args(i, {b2, steps[i].first, steps[i].second, 1u, n});
  const Stats s = device().stats();
  q.run(sort, replaying());
  EXPECT_EQ((device().stats() - s).kernarg_writes, steps.size());
  EXPECT_EQ((device().stats() - s).images_built, 0u);
  device().copy_to_host(out.data(), b2, n * 4);
  std::sort(k2.begin(), k2.end());
  EXPECT_EQ(out, k2);
}

// A replay in flight keeps reading the arguments it was submitted with: the change goes to a
// copy of the image's kernarg memory.
TEST(CpuReplay, SetArgsNeverDisturbsAReplayInFlight) {
  std::vector<std::uint32_t> zero(64, 0), a(64), b(64);
  Buffer x = device().alloc(64 * 4), y = device().alloc(64 * 4);
  device().copy_to_device(x, zero.data(), 64 * 4);
  device().copy_to_device(y, zero.data(), 64 * 4);
  Queue q = device().create_queue();
  Batch batch;
  batch.exec(device().kernel("test_sleep"), Dim3{1}, Dim3{1}, {30u}).exec(device().kernel("test_add"), Dim3{64}, Dim3{64}, {x, 1u, 64u});
  q.run(batch, replaying());
  Submission first = q.submit(batch, replaying());  // sleeping while the arguments change
  batch.set_args(1, {y, 1u, 64u});
  const Stats s = device().stats();
  Submission second = q.submit(batch, replaying());
  const Stats d = device().stats() - s;
  first.wait();
  second.wait();
  device().copy_to_host(a.data(), x, 64 * 4);
  device().copy_to_host(b.data(), y, 64 * 4);
  EXPECT_EQ(a[5], 2u);  // the warm-up and the one in flight
  EXPECT_EQ(b[5], 1u);
  EXPECT_EQ(d.kernarg_allocations, 1u);  // the copy
}

TEST(CpuReplay, SetArgsIsCheckedAsExecIs) {
  Buffer x = device().alloc(64 * 4);
  Batch batch;
  batch.exec(device().kernel("test_add"), Dim3{64}, Dim3{64}, {x, 1u, 64u});
  const auto text = [&](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(text([&] { batch.set_args(1, {x, 1u, 64u}); }).find("dispatch 1 of a batch of 1 dispatches"), std::string::npos);
  EXPECT_NE(text([&] { batch.set_args(0, {x, 1u}); }).find("wrong argument count: got 2, kernel 'test_add' takes 3"),
            std::string::npos);
  EXPECT_NE(text([&] { batch.set_args(0, {x, 1.0, 64u}); }).find("argument 1 ('value') of kernel 'test_add' is 4 bytes, got 8"),
            std::string::npos);
  EXPECT_EQ(batch.args_version(), 0u);  // nothing refused was applied
}

// More set_args calls than the batch remembers: the image compares every dispatch instead, and
// still writes each changed block once.
TEST(CpuReplay, SetArgsBeyondTheBatchsLogScansEveryDispatch) {
  std::vector<std::uint32_t> zero(64, 0), back(64);
  Buffer x = device().alloc(64 * 4);
  device().copy_to_device(x, zero.data(), 64 * 4);
  Queue q = device().create_queue();
  Batch batch;
  for (int i = 0; i < 3; ++i) batch.exec(device().kernel("test_add"), Dim3{64}, Dim3{64}, {x, 0u, 64u});
  q.run(batch, replaying());
  for (std::uint32_t k = 0; k < 1500; ++k) batch.set_args(k % 2, {x, k, 64u});  // dispatch 2 unchanged
  EXPECT_LT(batch.args_changes().size(), 1500u);
  const Stats s = device().stats();
  q.run(batch, replaying());
  EXPECT_EQ((device().stats() - s).kernarg_writes, 2u);
  device().copy_to_host(back.data(), x, 64 * 4);
  EXPECT_EQ(back[9], 1498u + 1499u);
}

// The Laplacian's two arrays swapped by arguments: one recorded application, its input and output
// exchanged by set_args between replays, gives bit for bit what two recorded applications give.
TEST(CpuReplay, TheLaplaciansArraysSwapByArguments) {
  const int nx = 64, ny = 32, nz = 10;
  const std::size_t points = std::size_t(nx) * ny * nz;
  std::vector<double> init(points);
  std::mt19937 rng(5);
  for (double& v : init) v = double(rng() % 1000) / 1000.0;
  const std::uint32_t block[3] = {64, 1, 1};
  const auto shape = kernels::laplacian_shape(5, 8, block, nx, ny, nz);
  const Dim3 grid{shape.grid[0], shape.grid[1], shape.grid[2]}, group{64, 1, 1};
  const Kernel k = device().kernel("laplacian5_m8");
  const auto args = [&](const Buffer& f, const Buffer& u) {
    return std::vector<Arg>{f, u, nx, ny, nz, 1.0, 1.0, 1.0, -6.0};
  };
  Buffer a1 = device().alloc(points * 8), b1 = device().alloc(points * 8);
  Buffer a2 = device().alloc(points * 8), b2 = device().alloc(points * 8);
  for (const Buffer* b : {&a1, &b1, &a2, &b2}) device().copy_to_device(*b, init.data(), points * 8);
  Queue q = device().create_queue();

  Batch two;  // the reference: both applications recorded
  two.exec(k, grid, group, args(b1, a1)).exec(k, grid, group, args(a1, b1));
  for (int r = 0; r < 3; ++r) q.run(two, replaying());

  Batch one;
  one.exec(k, grid, group, args(b2, a2));
  const Stats s = device().stats();
  for (int r = 0; r < 6; ++r) {
    q.run(one, replaying());
    one.set_args(0, r % 2 == 0 ? args(a2, b2) : args(b2, a2));
  }
  const Stats d = device().stats() - s;
  EXPECT_EQ(d.images_built, 1u);
  EXPECT_EQ(d.kernarg_writes, 1u + 5u);  // built once, then one block per swap

  std::vector<double> want(points), got(points);
  device().copy_to_host(want.data(), a1, points * 8);
  device().copy_to_host(got.data(), a2, points * 8);
  EXPECT_EQ(got, want);
  EXPECT_NE(want, init);  // it computed something
}
