// Per-flag latency, as ratios measured in the same run: alternating trials, medians. Only for
// flags whose effect is large on the cpu agent (nosync, kernarg); never an absolute time.
#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "hsad/hsad.hpp"
#include "summary.hpp"

using namespace hsad;

namespace {
constexpr int kTrials = 31;  // alternating, so drift and noise hit both sides alike

double seconds(Queue& q, const Batch& b, const Options& o, int reps) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) q.run(b, o);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// median(with) / median(without), with the two alternating trial by trial.
double ratio(const Batch& b, const Options& without, const Options& with, int reps) {
  static Runtime rt = Runtime::open("cpu");
  Queue q = rt.device().create_queue();
  seconds(q, b, without, 2);
  seconds(q, b, with, 2);
  std::vector<double> off, on;
  for (int t = 0; t < kTrials; ++t) {
    off.push_back(seconds(q, b, without, reps));
    on.push_back(seconds(q, b, with, reps));
  }
  const double r = bench::summarize(on).median / bench::summarize(off).median;
  ::testing::Test::RecordProperty("ratio", std::to_string(r));
  std::printf("median ratio with/without: %.3f\n", r);
  return r;
}

Batch empties(int n) {
  static Runtime rt = Runtime::open("cpu");
  Batch b;
  const Kernel k = rt.device().kernel("hsad_empty");
  for (int i = 0; i < n; ++i) b.exec(k, Dim3{1}, Dim3{1}, {});
  return b;
}
}  // namespace

TEST(FlagLatency, NosyncIsFasterThanAWaitAfterEveryDispatch) {
  Options without = Options::parse("signal,kernarg,fence,pinned");
  Options with = Options{};
  EXPECT_LT(ratio(empties(100), without, with, 3), 0.8);
}

TEST(FlagLatency, KernargPoolIsFasterThanAllocatingInTheTimedRun) {
  // Short batches, so the per-submission allocation is a visible share of the time.
  Options without = Options::parse("signal,nosync,fence,pinned");
  Options with = Options{};
  EXPECT_LT(ratio(empties(4), without, with, 20), 0.9);
}
