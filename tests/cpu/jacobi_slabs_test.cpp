// The Jacobi solver over several cpu agents (HSAD_CPU_DEVICES): every device in a device-run loop
// of its own, the halos stored into the neighbours' ghost planes and the devices meeting on the
// devices. Bit for bit the host's iteration over the same slabs, every device stopping after the
// same iteration; a device held back past the guard, and the mistakes around it, are errors.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "cpu_agents.hpp"
#include "error_text.hpp"
#include "hsad/hsad.hpp"
#include "jacobi_slabs.hpp"
#include "test_kernels.hpp"

using namespace hsad;
using hsad::test::error_text;
using hsad::test::first_cpu_agents;

namespace {
constexpr bench::JacobiProblem kProblem{14, 1e-4, 10000};

std::vector<double> host(int devices, std::uint64_t* iterations, double* norm) {
  return bench::host_jacobi(kProblem, iterations, norm, devices);
}

// What the host's iteration over the same slabs gives, and the solver over the first `count` agents.
struct Solve {
  std::uint64_t iterations = 0;
  double norm = 0;
  std::vector<double> values;
  bench::JacobiSlabs slabs;
  std::vector<Queue> queues;
  explicit Solve(int count)
      : values(host(count, &iterations, &norm)), slabs(first_cpu_agents(std::size_t(count)), kProblem),
        queues(slabs.make_queues()) {}
};
}  // namespace

class JacobiSlabsDevices : public ::testing::TestWithParam<int> {};

TEST_P(JacobiSlabsDevices, TheDeviceLoopsMatchTheHostsIterationOverTheSameSlabs) {
  Solve s(GetParam());
  const bench::JacobiRun run = s.slabs.run_device_loop(s.queues, Options{});
  EXPECT_EQ(run.iterations, s.iterations);
  EXPECT_GT(run.iterations, 10u);
  EXPECT_FALSE(run.at_guard);
  EXPECT_EQ(run.norm, s.norm);
  EXPECT_EQ(s.slabs.solution(), s.values);
  // Again, from the start: the arrivals and mailboxes were reset with the arrays.
  s.slabs.reset();
  EXPECT_EQ(s.slabs.run_device_loop(s.queues, Options::all()).iterations, s.iterations);
  EXPECT_EQ(s.slabs.solution(), s.values);
}

TEST_P(JacobiSlabsDevices, TheHostLoopsTakeTheSameIterations) {
  Solve s(GetParam());
  EXPECT_EQ(s.slabs.run_host_loop(s.queues, Options{}, 1).iterations, s.iterations);
  EXPECT_EQ(s.slabs.solution(), s.values);
  s.slabs.reset();
  const bench::JacobiRun every3 = s.slabs.run_host_loop(s.queues, Options{}, 3);  // may run up to 2 more
  EXPECT_GE(every3.iterations, s.iterations);
  EXPECT_LT(every3.iterations, s.iterations + 3);
}

INSTANTIATE_TEST_SUITE_P(CpuJacobiSlabs, JacobiSlabsDevices, ::testing::Values(1, 2, 3));

// The points do not depend on the split, only the order the norm is summed in: with the same
// iteration count the solution is the one-device solver's, bit for bit.
TEST(CpuJacobiSlabs, TheSplitChangesNoPoint) {
  std::uint64_t one_iterations = 0, three_iterations = 0;
  double one_norm = 0, three_norm = 0;
  const std::vector<double> one = host(1, &one_iterations, &one_norm);
  const std::vector<double> three = host(3, &three_iterations, &three_norm);
  ASSERT_EQ(one_iterations, three_iterations);
  EXPECT_EQ(one, three);
  EXPECT_NEAR(one_norm, three_norm, 1e-15);
}

TEST(CpuJacobiSlabs, AGuardStopsEveryLoopWhenADeviceIsHeldBack) {
  bench::JacobiSlabs slabs(first_cpu_agents(2), kProblem);
  // Two looks: device 0 gives up at once, long before device 1's hold ends, however loaded the
  // machine (200 looks with a yield each outlasted a 300 ms hold on a VM busy with two builds).
  slabs.set_guard_polls(2);
  slabs.reset();
  std::vector<Queue> queues = slabs.make_queues();
  // Device 1's loop starts only after this: device 0 waits at its first exchange and gives up.
  test::register_test_kernels();
  Batch hold;
  hold.exec(first_cpu_agents(2)[1].kernel("test_sleep"), Dim3{1}, Dim3{1}, {1000u});
  Submission held = queues[1].submit(hold);
  const std::string text = error_text([&] { slabs.run_device_loop(queues, Options{}); });
  EXPECT_NE(text.find("device 0 (hsadispatch cpu agent 0 of 3"), std::string::npos) << text;
  EXPECT_NE(text.find("waited for device 1 at its exchange 1 and gave up after 2 looks"), std::string::npos) << text;
  held.wait();
  // The team is whole again after a reset: the next solve runs to the end.
  slabs.set_guard_polls(1ull << 28);
  slabs.reset();
  std::uint64_t want_iterations = 0;
  double want_norm = 0;
  host(2, &want_iterations, &want_norm);
  EXPECT_EQ(slabs.run_device_loop(queues, Options{}).iterations, want_iterations);
}

TEST(CpuJacobiSlabs, MistakesAreRefusedByName) {
  bench::JacobiSlabs slabs(first_cpu_agents(2), kProblem);
  std::vector<Queue> queues = slabs.make_queues();
  // Without nosync the first device's submit would wait on the host for the others alone.
  std::string text = error_text([&] { slabs.run_device_loop(queues, Options::none()); });
  EXPECT_NE(text.find("every device's submission must be in flight at once"), std::string::npos) << text;
  std::vector<Queue> one(queues.begin(), queues.begin() + 1);
  text = error_text([&] { slabs.run_host_loop(one, Options{}, 1); });
  EXPECT_NE(text.find("1 queues for 2 devices"), std::string::npos) << text;
  text = error_text([&] { bench::JacobiSlabs(first_cpu_agents(3), bench::JacobiProblem{4, 1e-4, 10}); });
  EXPECT_NE(text.find("3 devices for 2 interior planes"), std::string::npos) << text;
}
