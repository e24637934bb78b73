// Device-run loops (issue 44) on the cpu agent: a batch's commands repeated while a value the
// kernels write is non-zero, decided by the loop control kernel in the queue's loop ring, with
// exact iteration counts against the same loop run from the host, the guard, a loop larger than
// the ring, work behind the loop, set_args between submits, and the mistakes around them.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "error_text.hpp"
#include "hsad/hsad.hpp"
#include "jacobi_workload.hpp"

using namespace hsad;
using hsad::test::error_text;

#define EXPECT_ERROR_CONTAINS(call, text) \
  EXPECT_NE(error_text([&] { (void)(call); }).find(text), std::string::npos) << error_text([&] { (void)(call); })

namespace {
struct AddArgs {
  std::uint32_t* data;
  std::uint32_t n;
  std::uint32_t step;
};
// data[i] = data[i] * 3 + step + i: order matters, so a missing or extra iteration shows.
void mix(const WorkGroup& wg) {
  const auto& a = wg.args<AddArgs>();
  for (std::uint32_t i = wg.first_x(); i < wg.end_x(); ++i) {
    if (i < a.n) a.data[i] = a.data[i] * 3u + a.step + i;
  }
}

// The same, predicated on the loop's condition: nothing once it is 0 (a body whose iterations
// past the one that cleared it change nothing, as Batch::loop_while's check_every wants).
struct MixWhileArgs {
  std::uint32_t* data;
  std::uint32_t n;
  std::uint32_t step;
  const std::uint32_t* condition;
};
void mix_while(const WorkGroup& wg) {
  const auto& a = wg.args<MixWhileArgs>();
  if (*a.condition == 0) return;
  for (std::uint32_t i = wg.first_x(); i < wg.end_x(); ++i) {
    if (i < a.n) a.data[i] = a.data[i] * 3u + a.step + i;
  }
}

struct CountArgs {
  std::uint32_t* counter;
  std::uint32_t* condition;
};
// One work-item: the counter goes down by one, the condition says whether it is still above 0.
void count_down(const WorkGroup& wg) {
  const auto& a = wg.args<CountArgs>();
  if (*a.counter) *a.counter -= 1;
  *a.condition = *a.counter != 0;
}

struct ThrowArgs {
  std::uint32_t* counter;  // throws once it reaches 0 (counting down by one per call)
};
void throw_at_zero(const WorkGroup& wg) {
  const auto& a = wg.args<ThrowArgs>();
  if (*a.counter == 0) throw std::runtime_error("the loop's kernel gave up");
  *a.counter -= 1;
}

Device device() {
  static Runtime rt = [] {
    register_host_kernel(make_host_kernel<ThrowArgs>("loop_throw_at_zero", &throw_at_zero,
                                                     {host_arg("counter", &ThrowArgs::counter)}));
    register_host_kernel(make_host_kernel<AddArgs>(
        "loop_mix", &mix, {host_arg("data", &AddArgs::data), host_arg("n", &AddArgs::n), host_arg("step", &AddArgs::step)}));
    register_host_kernel(make_host_kernel<MixWhileArgs>(
        "loop_mix_while", &mix_while,
        {host_arg("data", &MixWhileArgs::data), host_arg("n", &MixWhileArgs::n), host_arg("step", &MixWhileArgs::step),
         host_arg("condition", &MixWhileArgs::condition)}));
    register_host_kernel(make_host_kernel<CountArgs>(
        "loop_count_down", &count_down, {host_arg("counter", &CountArgs::counter), host_arg("condition", &CountArgs::condition)}));
    return Runtime::open("cpu");
  }();
  return rt.device();
}

constexpr std::uint32_t kN = 1000;

struct State {
  Buffer data = device().alloc(kN * 4);
  Buffer counter = device().alloc(8);  // the counter, then the condition
  explicit State(std::uint32_t count) {
    std::vector<std::uint32_t> init(kN);
    std::iota(init.begin(), init.end(), 0u);
    device().copy_to_device(data, init.data(), kN * 4);
    const std::uint32_t c[2] = {count, 1};
    device().copy_to_device(counter, c, 8);
  }
  std::vector<std::uint32_t> values() const {
    std::vector<std::uint32_t> v(kN);
    device().copy_to_host(v.data(), data, kN * 4);
    return v;
  }
  std::uint32_t count() const {
    std::uint32_t c[2];
    device().copy_to_host(c, counter, 8);
    return c[0];
  }
};

// The body: two mixes and the count-down, `extra` more mixes first.
void record_body(Batch& b, State& s, std::uint32_t extra = 0) {
  const Kernel mixk = device().kernel("loop_mix");
  for (std::uint32_t e = 0; e < extra; ++e) b.exec(mixk, Dim3{kN}, Dim3{64}, {s.data, kN, 100u + e});
  b.exec(mixk, Dim3{kN}, Dim3{64}, {s.data, kN, 1u});
  b.exec(mixk, Dim3{kN}, Dim3{64}, {s.data, kN, 2u});
  const auto* cond = static_cast<std::uint32_t*>(s.counter.device_ptr()) + 1;
  b.exec(device().kernel("loop_count_down"), Dim3{1}, Dim3{1}, {s.counter, Arg::unchecked(cond)});
}

// The body with its mixes predicated on the condition (loop_mix_while).
void record_predicated_body(Batch& b, State& s) {
  const Kernel mixk = device().kernel("loop_mix_while");
  const auto* cond = static_cast<std::uint32_t*>(s.counter.device_ptr()) + 1;
  b.exec(mixk, Dim3{kN}, Dim3{64}, {s.data, kN, 1u, Arg::unchecked(cond)});
  b.exec(mixk, Dim3{kN}, Dim3{64}, {s.data, kN, 2u, Arg::unchecked(cond)});
  b.exec(device().kernel("loop_count_down"), Dim3{1}, Dim3{1}, {s.counter, Arg::unchecked(cond)});
}

// The same loop driven from the host: submit the body `k` times over, wait, read the condition.
std::vector<std::uint32_t> host_loop(std::uint32_t count, std::uint32_t extra, std::uint64_t* iterations,
                                     std::uint32_t k = 1) {
  State s(count);
  Batch body;
  for (std::uint32_t i = 0; i < k; ++i) record_body(body, s, extra);
  Queue q = device().create_queue();
  *iterations = 0;
  for (;;) {
    q.run(body, Options::all());
    *iterations += k;
    std::uint32_t c[2];
    device().copy_to_host(c, s.counter, 8);
    if (c[1] == 0) break;
  }
  return s.values();
}

// A loop counting down from 2 on a queue of its own: what a device that still works runs.
std::uint64_t a_loop_of_two_on_a_new_queue() {
  State t(2);
  Batch c;
  c.loop_begin();
  record_body(c, t);
  c.loop_while(t.counter, 10, 4);
  Queue q = device().create_queue();
  Submission sub = q.submit(c, Options{});
  sub.wait();
  return sub.loop_iterations();
}

Options replayed() {
  Options o = Options::all();
  o.replay = true;
  return o;
}
}  // namespace

// A queue of 2 packets (the least create_queue takes): the loop's own ring is at least 4, so the
// control kernel has room for the body (in a ring of 2 it wrote no packet of it, and spun on).
TEST(CpuDeviceLoop, RunsOnTheSmallestQueues) {
  for (const std::uint32_t extra : {0u, 3u}) {  // a body of 3 dispatches, and of 6
    std::uint64_t host_iterations = 0;
    const std::vector<std::uint32_t> want = host_loop(5, extra, &host_iterations);
    for (const std::uint32_t packets : {2u, 4u}) {
      SCOPED_TRACE(std::to_string(packets) + " packets, " + std::to_string(extra) + " extra dispatches");
      State s(5);
      Batch b;
      b.loop_begin();
      record_body(b, s, extra);
      b.loop_while(s.counter, 100);
      Queue q = device().create_queue(packets);
      Submission sub = q.submit(b, Options{});
      sub.wait(std::chrono::seconds(20));  // a loop that makes no progress times out, not hangs
      EXPECT_EQ(sub.loop_iterations(0), host_iterations);
      EXPECT_EQ(s.values(), want);
    }
  }
}

TEST(CpuDeviceLoop, RunsExactlyAsTheHostLoopUnderEveryOptionSet) {
  std::uint64_t host_iterations = 0;
  const std::vector<std::uint32_t> want = host_loop(37, 0, &host_iterations);
  ASSERT_EQ(host_iterations, 37u);
  for (const Options& o : {Options::none(), Options{}, replayed()}) {
    State s(37);
    Batch b;
    b.loop_begin();
    record_body(b, s);
    b.loop_while(s.counter, 100, 4);
    ASSERT_EQ(b.loop_count(), 1u);
    Queue q = device().create_queue();
    const Stats before = device().stats();
    Submission sub = q.submit(b, o);
    sub.wait();
    EXPECT_EQ(sub.loop_iterations(0), 37u) << o.to_string();
    EXPECT_EQ(s.values(), want) << o.to_string();
    EXPECT_EQ(s.count(), 0u);
    const Stats d = device().stats() - before;
    EXPECT_EQ(d.device_loops, 1u);
    // The host waited once (nosync) or once per command of the baseline, never per iteration.
    EXPECT_LE(d.host_waits, 2u) << o.to_string();
  }
}

TEST(CpuDeviceLoop, CommandsAroundTheLoopRunInOrderAndTwoLoopsCountApart) {
  State s(5), t(9);
  const Kernel mixk = device().kernel("loop_mix");
  Batch b;
  b.exec(mixk, Dim3{kN}, Dim3{64}, {s.data, kN, 7u});  // before
  b.loop_begin();
  record_body(b, s);
  b.loop_while(s.counter, 100, 4);
  b.exec(mixk, Dim3{kN}, Dim3{64}, {s.data, kN, 8u});  // between
  b.loop_begin();
  record_body(b, t);
  b.loop_while(t.counter, 100, 4);
  b.exec(mixk, Dim3{kN}, Dim3{64}, {t.data, kN, 9u});  // after
  Queue q = device().create_queue();
  Submission sub = q.submit(b, Options{});
  sub.wait();
  EXPECT_EQ(sub.loop_iterations(0), 5u);
  EXPECT_EQ(sub.loop_iterations(1), 9u);
  // The same on the host, step by step.
  std::vector<std::uint32_t> a(kN), c(kN);
  std::iota(a.begin(), a.end(), 0u);
  std::iota(c.begin(), c.end(), 0u);
  const auto step = [](std::vector<std::uint32_t>& v, std::uint32_t k) {
    for (std::uint32_t i = 0; i < kN; ++i) v[i] = v[i] * 3u + k + i;
  };
  step(a, 7);
  for (int r = 0; r < 5; ++r) step(a, 1), step(a, 2);
  step(a, 8);
  for (int r = 0; r < 9; ++r) step(c, 1), step(c, 2);
  step(c, 9);
  EXPECT_EQ(s.values(), a);
  EXPECT_EQ(t.values(), c);
}

TEST(CpuDeviceLoop, AGuardReachedIsAnErrorNamingTheLoopAndWhatFollowsStillRuns) {
  State s(1000);
  Buffer after = device().alloc(kN * 4);
  Batch b;
  b.loop_begin();
  record_body(b, s);
  b.loop_while(s.counter, 10, 4);
  b.exec(device().kernel("loop_mix"), Dim3{kN}, Dim3{64}, {after, kN, 0u});
  Queue q = device().create_queue();
  Submission sub = q.submit(b, Options{});
  try {
    sub.wait();
    FAIL() << "a loop past its guard must not pass";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::loop_limit);
    EXPECT_NE(std::string(e.what()).find("loop 0"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("max_iterations (10)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(sub.loop_iterations(0), 10u);
  EXPECT_EQ(s.count(), 990u);
  // Failed once, failed again; the queue itself is fine.
  EXPECT_THROW(sub.wait(), Error);
  State u(3);
  Batch again;
  again.loop_begin();
  record_body(again, u);
  again.loop_while(u.counter, 10, 4);
  Submission ok = q.submit(again, Options{});
  ok.wait();
  EXPECT_EQ(ok.loop_iterations(), 3u);
}

TEST(CpuDeviceLoop, ALoopLargerThanTheRingGoesOutInChunks) {
  // A ring of 8 packets and a body of 23 dispatches: the control kernel writes 6 at a time.
  std::uint64_t host_iterations = 0;
  const std::vector<std::uint32_t> want = host_loop(4, 20, &host_iterations);
  State s(4);
  Batch b;
  b.loop_begin();
  record_body(b, s, 20);
  b.loop_while(s.counter, 50, 4);
  Queue q = device().create_queue(8);
  Submission sub = q.submit(b, Options{});
  sub.wait();
  EXPECT_EQ(sub.loop_iterations(), host_iterations);
  EXPECT_EQ(s.values(), want);
}

// check_every k: whole rounds of k iterations between two reads of the condition, exactly what
// a host loop that submits k iterations and then looks runs: the count a multiple of k (37
// needed: 37, 38, 40, 37 and 40 with k = 1, 2, 5, 37 and 40), the values bit for bit, under
// every option set.
TEST(CpuDeviceLoop, CheckingEveryKIterationsRunsWholeRoundsAsTheHostLoopDoes) {
  for (std::uint32_t k : {1u, 2u, 5u, 37u, 40u}) {
    std::uint64_t host_iterations = 0;
    const std::vector<std::uint32_t> want = host_loop(37, 0, &host_iterations, k);
    EXPECT_EQ(host_iterations, (37u + k - 1) / k * k);
    for (const Options& o : {Options::none(), Options{}, replayed()}) {
      SCOPED_TRACE("k = " + std::to_string(k) + ", " + o.to_string());
      State s(37);
      Batch b;
      b.loop_begin();
      record_body(b, s);
      b.loop_while(s.counter, 37 * 40, 4, k);
      Queue q = device().create_queue();
      const Stats before = device().stats();
      Submission sub = q.submit(b, o);
      sub.wait();
      EXPECT_EQ(sub.loop_iterations(0), host_iterations);
      EXPECT_EQ(s.values(), want);
      const Stats d = device().stats() - before;
      EXPECT_EQ(d.device_loops, 1u);
    }
  }
}

// A body predicated on the condition gives, checked every k, the result of checking every
// iteration, bit for bit: the iterations past the one that cleared it are no-ops.
TEST(CpuDeviceLoop, APredicatedBodyCheckedEveryKGivesTheEveryIterationResult) {
  std::uint64_t host_iterations = 0;
  const std::vector<std::uint32_t> want = host_loop(37, 0, &host_iterations);
  for (std::uint32_t k : {3u, 8u, 64u}) {
    SCOPED_TRACE("k = " + std::to_string(k));
    State s(37);
    Batch b;
    b.loop_begin();
    record_predicated_body(b, s);
    b.loop_while(s.counter, 3 * 8 * 64, 4, k);
    Queue q = device().create_queue();
    Submission sub = q.submit(b, Options{});
    sub.wait();
    EXPECT_EQ(sub.loop_iterations(0), (37u + k - 1) / k * k);
    EXPECT_EQ(s.values(), want);
  }
}

// A round larger than the ring (8 packets; 3 per iteration, 7 iterations a round) goes out in
// chunks that cross the body's end; the guard counts whole rounds.
TEST(CpuDeviceLoop, ARoundLargerThanTheRingAndTheGuardInRounds) {
  std::uint64_t host_iterations = 0;
  const std::vector<std::uint32_t> want = host_loop(10, 0, &host_iterations, 7);
  ASSERT_EQ(host_iterations, 14u);
  Queue q = device().create_queue(8);
  const auto submit_every_7 = [&](State& s, std::uint64_t max_iterations) {
    Batch b;
    b.loop_begin();
    record_body(b, s);
    b.loop_while(s.counter, max_iterations, 4, 7);
    return q.submit(b, Options{});
  };
  State enough(10);
  Submission done = submit_every_7(enough, 70);
  done.wait();
  EXPECT_EQ(done.loop_iterations(), 14u);
  EXPECT_EQ(enough.values(), want);
  State s(100);
  Submission sub = submit_every_7(s, 21);
  const std::string text = error_text([&] { sub.wait(); });
  EXPECT_NE(text.find("reached its max_iterations (21)"), std::string::npos) << text;
  EXPECT_EQ(sub.loop_iterations(), 21u);
  EXPECT_EQ(s.count(), 79u);
}

TEST(CpuDeviceLoop, WorkSubmittedBehindARunningLoopWaitsForIt) {
  State s(200);
  Batch loop;
  loop.loop_begin();
  record_body(loop, s);
  loop.loop_while(s.counter, 1000, 4);
  Batch next;
  next.exec(device().kernel("loop_mix"), Dim3{kN}, Dim3{64}, {s.data, kN, 5u});
  Queue q = device().create_queue(16);
  Submission a = q.submit(loop, Options{});
  Submission b = q.submit(next, Options{});  // no host wait between them
  Submission c = q.submit(loop, Options{});  // a second loop on the same loop ring: counter is 0 now
  c.wait();
  b.wait();
  a.wait();
  EXPECT_EQ(a.loop_iterations(), 200u);
  EXPECT_EQ(c.loop_iterations(), 1u);  // a do-while: one iteration, then the condition is 0
  std::vector<std::uint32_t> v(kN);
  std::iota(v.begin(), v.end(), 0u);
  const auto step = [&](std::uint32_t k) {
    for (std::uint32_t i = 0; i < kN; ++i) v[i] = v[i] * 3u + k + i;
  };
  for (int r = 0; r < 200; ++r) step(1), step(2);
  step(5);
  step(1), step(2);
  EXPECT_EQ(s.values(), v);
}

TEST(CpuDeviceLoop, SetArgsBetweenSubmitsChangesTheLoopsWork) {
  State s(3), t(6);
  Batch b;
  b.loop_begin();
  record_body(b, s);
  b.loop_while(s.counter, 100, 4);
  Queue q = device().create_queue();
  Submission first = q.submit(b, replayed());
  first.wait();
  EXPECT_EQ(first.loop_iterations(), 3u);
  // The count-down now counts t's counter (the condition stays s's word: t's is never read).
  b.set_args(2, {t.counter, Arg::unchecked(static_cast<std::uint32_t*>(s.counter.device_ptr()) + 1)});
  Submission second = q.submit(b, replayed());
  second.wait();
  EXPECT_EQ(second.loop_iterations(), 6u);
  EXPECT_EQ(t.count(), 0u);
}

TEST(CpuDeviceLoop, ACheckEveryThatCannotBeIsRefusedByName) {
  State s(3);
  Batch b;
  b.loop_begin();
  record_body(b, s);
  EXPECT_ERROR_CONTAINS(b.loop_while(s.counter, 10, 4, 0), "check_every is 0");
  EXPECT_ERROR_CONTAINS(b.loop_while(s.counter, 25, 4, 10), "max_iterations 25 is not a multiple of check_every 10");
  EXPECT_ERROR_CONTAINS(b.loop_while(s.counter, 0xffffffffu - 0xffffffffu % 0x40000000u, 4, 0x40000000u),
                        "a round of check_every 1073741824 bodies is 3221225472 dispatches");
  EXPECT_TRUE(b.loop_open());  // nothing was recorded: the loop can still be closed
  EXPECT_NO_THROW(b.loop_while(s.counter, 30, 4, 10));
}

TEST(CpuDeviceLoop, MistakesAreRefusedByName) {
  State s(1);
  const Kernel mixk = device().kernel("loop_mix");
  std::vector<std::uint32_t> host(kN);
  {
    Batch b;
    b.loop_begin();
    EXPECT_ERROR_CONTAINS(b.copy_to_host(host.data(), s.data, 64), "inside the loop begun at command 0");
    EXPECT_ERROR_CONTAINS(b.loop_begin(), "do not nest");
    EXPECT_ERROR_CONTAINS(b.loop_while(s.counter, 10), "has no commands");
    b.exec(mixk, Dim3{kN}, Dim3{64}, {s.data, kN, 1u});
    EXPECT_ERROR_CONTAINS(b.loop_while(s.counter, 0), "max_iterations is 0");
    EXPECT_ERROR_CONTAINS(b.loop_while(s.counter, 10, 2), "not 4-byte aligned");
    EXPECT_ERROR_CONTAINS(b.loop_while(s.counter, 10, 8), "overrun the condition buffer");
    EXPECT_ERROR_CONTAINS(b.loop_while(s.counter, std::uint64_t(1) << 33), "exceeds 2^32 - 1");
    EXPECT_TRUE(b.loop_open());
    EXPECT_EQ(b.size(), 1u);  // the refused copy left nothing behind
    Queue q = device().create_queue();
    EXPECT_ERROR_CONTAINS(q.submit(b, Options{}), "is not closed");
    b.loop_while(s.counter, 10, 4);
    EXPECT_FALSE(b.loop_open());
  }
  {
    Batch b;
    EXPECT_ERROR_CONTAINS(b.loop_while(s.counter, 10), "without a loop_begin");
    Queue q = device().create_queue();
    b.exec(mixk, Dim3{kN}, Dim3{64}, {s.data, kN, 1u});
    Submission sub = q.submit(b, Options{});
    EXPECT_ERROR_CONTAINS(sub.loop_iterations(0), "loop 0 of a batch of 0 loops");
  }
  {
    State t(2);
    Batch b;
    b.loop_begin();
    record_body(b, t);
    b.loop_while(t.counter, 10, 4);
    Queue q = device().create_queue();
    Submission sub = q.submit(b, Options{});
    EXPECT_ERROR_CONTAINS(sub.loop_iterations(0), "has not been waited for");
    sub.wait();
    EXPECT_EQ(sub.loop_iterations(0), 2u);
  }
}

TEST(CpuDeviceLoop, ACopiedBatchKeepsItsLoopAndItsOwnArguments) {
  State s(4), t(7);
  Batch b;
  b.loop_begin();
  record_body(b, s);
  b.loop_while(s.counter, 100, 4);
  Batch c = b;
  c.set_args(2, {t.counter, Arg::unchecked(static_cast<std::uint32_t*>(s.counter.device_ptr()) + 1)});
  Queue q = device().create_queue();
  Submission x = q.submit(b, replayed());
  x.wait();
  Submission y = q.submit(c, replayed());
  y.wait();
  EXPECT_EQ(x.loop_iterations(), 4u);
  EXPECT_EQ(y.loop_iterations(), 7u) << "t's counter " << t.count() << ", s's condition word " << [&] {
    std::uint32_t c[2];
    device().copy_to_host(c, s.counter, 8);
    return c[1];
  }();
}

TEST(CpuDeviceLoop, ALoopAbandonedByATimeoutLeavesTheProcessFreeToGoOn) {
  State s(0xffffffffu);  // ~4 billion iterations: never ends within the test
  Batch b;
  b.loop_begin();
  record_body(b, s);
  b.loop_while(s.counter, 0xffffffffu, 4);
  {
    Queue q = device().create_queue();
    Submission sub = q.submit(b, Options{});
    try {
      sub.wait(std::chrono::milliseconds(50));
      FAIL() << "the loop cannot have ended";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::timeout) << e.what();
    }
    EXPECT_ERROR_CONTAINS(q.submit(b, Options{}), "runs nothing after it");
  }  // the queue goes: its loop ring stops with it
  // The device is still usable.
  EXPECT_EQ(a_loop_of_two_on_a_new_queue(), 2u);
}

// The workload the loops are for: the Jacobi solver iterates on the device until the norm of its
// update is below the tolerance, and matches the same iteration in plain C++ bit for bit.
TEST(CpuDeviceLoop, TheJacobiSolverMatchesTheHostsIteration) {
  const bench::JacobiProblem problem{14, 1e-4, 10000};
  std::uint64_t host_iterations = 0;
  double host_norm = 0;
  const std::vector<double> want = bench::host_jacobi(problem, &host_iterations, &host_norm);
  bench::JacobiSolver solver(device(), problem);
  Queue q = device().create_queue();
  const bench::JacobiRun run = solver.run_device_loop(q, Options{});
  EXPECT_EQ(run.iterations, host_iterations);
  EXPECT_GT(run.iterations, 10u);
  EXPECT_EQ(run.norm, host_norm);
  EXPECT_EQ(solver.solution(), want);
  // From the host, checking every iteration: the same count and the same values.
  solver.reset();
  const bench::JacobiRun hosted = solver.run_host_loop(q, Options{}, 1);
  EXPECT_EQ(hosted.iterations, host_iterations);
  EXPECT_EQ(solver.solution(), want);
  // Checking every 4 on the device is what checking every 4 from the host runs, bit for bit.
  for (unsigned k : {4u, 10u}) {
    solver.reset();
    const bench::JacobiRun every_k = solver.run_device_loop(q, Options{}, k);
    const std::vector<double> device_k = solver.solution();
    solver.reset();
    const bench::JacobiRun hosted_k = solver.run_host_loop(q, Options{}, k);
    EXPECT_EQ(every_k.iterations, (host_iterations + k - 1) / k * k);
    EXPECT_EQ(hosted_k.iterations, every_k.iterations);
    EXPECT_EQ(device_k, solver.solution());
    EXPECT_EQ(every_k.norm, hosted_k.norm);
  }
  // A guard below what the solve needs stops it there (the workload takes Errc::loop_limit as
  // its answer: the state after the loop was still copied back).
  bench::JacobiSolver short_solver(device(), {14, 1e-4, 5});
  const bench::JacobiRun cut = short_solver.run_device_loop(q, Options{});
  EXPECT_TRUE(cut.at_guard);
  EXPECT_EQ(cut.iterations, 5u);
  EXPECT_GT(cut.norm, 1e-4);
}

TEST(CpuDeviceLoop, AKernelThatFailsInsideTheLoopFailsTheWaitAndTheQueueSaysWhy) {
  State s(100);
  Buffer fuse = device().alloc(4);
  const std::uint32_t three = 3;
  device().copy_to_device(fuse, &three, 4);
  Batch b;
  b.loop_begin();
  record_body(b, s);
  b.exec(device().kernel("loop_throw_at_zero"), Dim3{1}, Dim3{1}, {fuse});
  b.loop_while(s.counter, 1000, 4);
  Queue q = device().create_queue();
  Submission sub = q.submit(b, Options{});
  try {
    sub.wait(std::chrono::seconds(20));
    FAIL() << "the fourth iteration's kernel threw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::device_fault) << e.what();
    EXPECT_NE(std::string(e.what()).find("a device-run loop failed"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("the loop's kernel gave up"), std::string::npos) << e.what();
  }
  EXPECT_ERROR_CONTAINS(q.submit(b, Options{}), "a device-run loop failed");
  EXPECT_EQ(a_loop_of_two_on_a_new_queue(), 2u);  // a new queue works
}

// A careless application drops the buffers a running loop reads and writes (its condition among
// them) right after submitting: the memory outlives the loop (parked until it ended), so the loop
// counts exactly as it would have, and later allocations never share it.
TEST(CpuDeviceLoop, BuffersDestroyedWhileTheLoopRunsOutliveIt) {
  Queue q = device().create_queue();
  Submission sub;
  {
    State s(300);
    Batch b;
    b.loop_begin();
    record_body(b, s);
    b.loop_while(s.counter, 1000, 4);
    sub = q.submit(b, Options{});
  }  // s's buffers go here, with the loop still running
  State other(7);  // fresh allocations while it runs: they must not be the loop's memory
  sub.wait();
  EXPECT_EQ(sub.loop_iterations(), 300u);
  EXPECT_EQ(other.count(), 7u);
  std::vector<std::uint32_t> untouched(kN);
  std::iota(untouched.begin(), untouched.end(), 0u);
  EXPECT_EQ(other.values(), untouched);
}
