// Device-run loops (issue 44) on a GPU: rocr's loop control kernel as machine code under
// hsad-sim (it writes the loop ring's packets and rings its doorbell from the device), cuda's
// WHILE node on the H100. Exact iteration counts and bit-exact results against the same loop run
// from the host, the guard, a loop larger than the ring, work submitted behind a running loop.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "gpu_backend.hpp"
#include "hsad/hsad.hpp"
#include "jacobi_slabs.hpp"
#include "jacobi_workload.hpp"

using namespace hsad;

namespace {
constexpr std::uint32_t kN = 300;

double largest_difference(const std::vector<double>& got, const std::vector<double>& want) {
  double worst = got.size() == want.size() ? 0.0 : HUGE_VAL;
  for (std::size_t i = 0; i < want.size() && i < got.size(); ++i) worst = std::max(worst, std::fabs(got[i] - want[i]));
  return worst;
}  // small: the interpreter runs every iteration

Module app(const Device& d) {
  return d.load_module(test::modules_dir() + (d.info().backend == "cuda" ? "/app.fatbin" : "/app.hsaco"));
}

struct LoopState {
  const Device& d;
  Buffer data, counter;  // counter: the count, then the condition
  LoopState(const Device& device, std::uint32_t count) : d(device), data(d.alloc(kN * 4)), counter(d.alloc(8)) {
    std::vector<std::uint32_t> init(kN);
    std::iota(init.begin(), init.end(), 0u);
    d.copy_to_device(data, init.data(), kN * 4);
    const std::uint32_t c[2] = {count, 1};
    d.copy_to_device(counter, c, 8);
  }
  std::vector<std::uint32_t> values() const {
    std::vector<std::uint32_t> v(kN);
    d.copy_to_host(v.data(), data, kN * 4);
    return v;
  }
  const std::uint32_t* condition() const { return static_cast<const std::uint32_t*>(counter.device_ptr()) + 1; }
};

void record_body(Batch& b, const Module& m, LoopState& s, std::uint32_t extra = 0) {
  const Kernel mix = m.kernel("app_mix");
  for (std::uint32_t e = 0; e < extra; ++e) b.exec(mix, Dim3{kN}, Dim3{64}, {s.data, kN, 100u + e});
  b.exec(mix, Dim3{kN}, Dim3{64}, {s.data, kN, 1u});
  b.exec(mix, Dim3{kN}, Dim3{64}, {s.data, kN, 2u});
  b.exec(m.kernel("app_count_down"), Dim3{1}, Dim3{1}, {s.counter, Arg::unchecked(s.condition())});
}

// What the loop must give: the mixes `iterations` times, on the host.
std::vector<std::uint32_t> expected(std::uint32_t iterations, std::uint32_t extra) {
  std::vector<std::uint32_t> v(kN);
  std::iota(v.begin(), v.end(), 0u);
  for (std::uint32_t r = 0; r < iterations; ++r) {
    for (std::uint32_t k = 0; k < extra + 2; ++k) {
      const std::uint32_t step = k < extra ? 100u + k : k - extra + 1;
      for (std::uint32_t i = 0; i < kN; ++i) v[i] = v[i] * 3u + step + i;
    }
  }
  return v;
}
}  // namespace

TEST(GpuDeviceLoop, RunsAsTheHostDrivenLoopDoes) {
  REQUIRE_GPU();
  if (test::runs_host_builds(device)) GTEST_SKIP() << "the application's kernels have no host builds";
  const Module m = app(device);
  // From the host: submit the body, wait, read the condition.
  LoopState h(device, 6);
  Batch body;
  record_body(body, m, h);
  Queue q = device.create_queue();
  std::uint32_t host_iterations = 0;
  for (std::uint32_t c[2] = {1, 1}; c[1] != 0;) {
    q.run(body, Options::all());
    ++host_iterations;
    device.copy_to_host(c, h.counter, 8);
  }
  EXPECT_EQ(host_iterations, 6u);
  Options replay = Options::all();
  replay.replay = true;
  for (const Options& o : {Options{}, replay}) {
    LoopState s(device, 6);
    Batch b;
    b.loop_begin();
    record_body(b, m, s);
    b.loop_while(s.counter, 100, 4);
    const Stats before = device.stats();
    Submission sub = q.submit(b, o);
    sub.wait();
    EXPECT_EQ(sub.loop_iterations(), host_iterations) << o.to_string();
    EXPECT_EQ(s.values(), h.values()) << o.to_string();
    EXPECT_EQ(s.values(), expected(6, 0));
    EXPECT_EQ((device.stats() - before).device_loops, 1u);
  }
}

TEST(GpuDeviceLoop, StopsAtItsGuardWithAnErrorAndRunsWhatFollows) {
  REQUIRE_GPU();
  if (test::runs_host_builds(device)) GTEST_SKIP() << "the application's kernels have no host builds";
  const Module m = app(device);
  LoopState s(device, 1000);
  Buffer after = device.alloc(kN * 4);
  std::vector<std::uint32_t> zeros(kN, 0);
  device.copy_to_device(after, zeros.data(), kN * 4);
  Batch b;
  b.loop_begin();
  record_body(b, m, s);
  b.loop_while(s.counter, 4, 4);
  b.exec(m.kernel("app_mix"), Dim3{kN}, Dim3{64}, {after, kN, 0u});
  Queue q = device.create_queue();
  Submission sub = q.submit(b, Options{});
  try {
    sub.wait();
    FAIL() << "a loop past its guard must not pass";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::loop_limit) << e.what();
    EXPECT_NE(std::string(e.what()).find("loop 0"), std::string::npos) << e.what();
  }
  EXPECT_EQ(sub.loop_iterations(), 4u);
  EXPECT_EQ(s.values(), expected(4, 0));
  std::vector<std::uint32_t> got(kN);
  device.copy_to_host(got.data(), after, kN * 4);
  EXPECT_EQ(got[7], 7u);  // 0 * 3 + 0 + 7: the dispatch after the loop ran
}

TEST(GpuDeviceLoop, ALoopLargerThanTheRingAndWorkBehindIt) {
  REQUIRE_GPU();
  if (test::runs_host_builds(device)) GTEST_SKIP() << "the application's kernels have no host builds";
  const Module m = app(device);
  // rocr: a ring of 64 packets and a body of 73 dispatches, written by the control kernel in
  // chunks; cuda has no ring, the same batch is one WHILE node.
  LoopState s(device, 3);
  Batch b;
  b.loop_begin();
  record_body(b, m, s, 70);
  b.loop_while(s.counter, 10, 4);
  Batch next;
  next.exec(m.kernel("app_mix"), Dim3{kN}, Dim3{64}, {s.data, kN, 5u});
  Queue q = device.create_queue(64);
  Submission a = q.submit(b, Options{});
  Submission n = q.submit(next, Options{});  // behind the running loop, no host wait between
  n.wait();
  a.wait();
  EXPECT_EQ(a.loop_iterations(), 3u);
  std::vector<std::uint32_t> want = expected(3, 70);
  for (std::uint32_t i = 0; i < kN; ++i) want[i] = want[i] * 3u + 5u + i;
  EXPECT_EQ(s.values(), want);
}

// check_every k: whole rounds of k iterations, the condition read at each round's end (rocr:
// the control kernel writes k bodies; cuda: the WHILE node's body holds the kernels k times):
// a count of 6 needs 6 iterations, so 8 run with k = 4, 7 with k = 7, 6 with k = 3, and the
// values are the mixes that many times, bit for bit; a guard of 4 rounds stops the count at 28.
TEST(GpuDeviceLoop, CheckingEveryKIterationsRunsWholeRounds) {
  REQUIRE_GPU();
  if (test::runs_host_builds(device)) GTEST_SKIP() << "the application's kernels have no host builds";
  const Module m = app(device);
  Options replay = Options::all();
  replay.replay = true;
  Queue q = device.create_queue(64);
  for (std::uint32_t k : {3u, 4u, 7u}) {
    for (const Options& o : {Options{}, replay}) {
      SCOPED_TRACE("k = " + std::to_string(k) + ", " + o.to_string());
      LoopState s(device, 6);
      Batch b;
      b.loop_begin();
      record_body(b, m, s);
      b.loop_while(s.counter, 4 * k, 4, k);
      Submission sub = q.submit(b, o);
      sub.wait();
      const std::uint32_t rounds = (6 + k - 1) / k;
      EXPECT_EQ(sub.loop_iterations(), rounds * k);
      EXPECT_EQ(s.values(), expected(rounds * k, 0));
    }
  }
  LoopState s(device, 100);
  Batch b;
  b.loop_begin();
  record_body(b, m, s);
  b.loop_while(s.counter, 28, 4, 7);
  Submission sub = q.submit(b, Options{});
  EXPECT_THROW(sub.wait(), Error);
  EXPECT_EQ(sub.loop_iterations(), 28u);
  EXPECT_EQ(s.values(), expected(28, 0));
}

// The Jacobi solver (the library's kernels, so under hsad-sim --exec host too, where the loop
// control kernel runs as its host build): the device loop against the same iteration in C++.
TEST(GpuDeviceLoop, TheJacobiSolverMatchesTheHostsIteration) {
  REQUIRE_GPU();
  const bench::JacobiProblem problem{10, 1e-4, 10000};
  std::uint64_t host_iterations = 0;
  double host_norm = 0;
  const std::vector<double> want = bench::host_jacobi(problem, &host_iterations, &host_norm);
  bench::JacobiSolver solver(device, problem);
  Queue q = device.create_queue();
  const bench::JacobiRun run = solver.run_device_loop(q, Options{});
  EXPECT_EQ(run.iterations, host_iterations);
  EXPECT_LE(largest_difference(solver.solution(), want), 1e-12);  // a GPU may contract the sweep's multiply-add
  solver.reset();
  EXPECT_EQ(solver.run_host_loop(q, Options{}, 1).iterations, host_iterations);
  // Checking every 4 on the device runs what checking every 4 from the host does, bit for bit.
  solver.reset();
  const bench::JacobiRun every_4 = solver.run_device_loop(q, Options{}, 4);
  const std::vector<double> device_4 = solver.solution();
  solver.reset();
  const bench::JacobiRun hosted_4 = solver.run_host_loop(q, Options{}, 4);
  EXPECT_EQ(every_4.iterations, (host_iterations + 3) / 4 * 4);
  EXPECT_EQ(hosted_4.iterations, every_4.iterations);
  EXPECT_EQ(device_4, solver.solution());
}

// The same solver over every GPU of the backend (two or three under hsad-sim --gpus N, two on the
// device tool's nvidia-h200-x2): a device-run loop on each GPU, the sweeps storing their outer
// planes into the neighbours' memory and the GPUs meeting on the GPUs, with no host in the loop.
// Every GPU stops after the host's iteration count for the same slabs; the values are the host's.
TEST(GpuJacobiSlabs, EveryGpuLoopsOnItsOwnAndAllStopTogether) {
  REQUIRE_GPU();
  const std::vector<Device>& all = rt->devices();
  if (all.size() < 2) GTEST_SKIP() << "one GPU of the " << device.info().backend << " backend";
  const bench::JacobiProblem problem{test::simulated(device) ? 10 : 40, 1e-4, 100000};
  for (std::size_t n = 2; n <= all.size(); ++n) {
    SCOPED_TRACE(std::to_string(n) + " GPUs");
    std::uint64_t host_iterations = 0;
    double host_norm = 0;
    const std::vector<double> want = bench::host_jacobi(problem, &host_iterations, &host_norm, int(n));
    bench::JacobiSlabs slabs({all.begin(), all.begin() + n}, problem);
    std::vector<Queue> queues = slabs.make_queues();
    const Stats before = device.stats();
    const bench::JacobiRun run = slabs.run_device_loop(queues, Options{});
    EXPECT_EQ((device.stats() - before).host_waits, 1u);  // one wait per device for the whole solve
    EXPECT_EQ(run.iterations, host_iterations);
    EXPECT_NEAR(run.norm, host_norm, 1e-12);
    EXPECT_LE(largest_difference(slabs.solution(), want), 1e-12);
    slabs.reset();
    EXPECT_EQ(slabs.run_host_loop(queues, Options{}, 1).iterations, host_iterations);
  }
}
