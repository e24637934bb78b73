// The load test on the GPU (tests/load): on cuda, graphs captured, replayed and updated in some
// threads while others launch, copy, allocate, free, query and wait; under hsad-sim (the GPU
// suite runs on each simulated target) as machine code, shorter. Longer runs: hsad-load.
#include <gtest/gtest.h>

#include "gpu_backend.hpp"
#include "hsad/hsad.hpp"
#include "load_checks.hpp"

using namespace hsad;

TEST(GpuLoad, EightThreadsOnTheirOwnAndOneSharedQueue) {
  REQUIRE_GPU();
  load::LoadConfig c;
  c.threads = 8;
  c.duration = std::chrono::seconds(test::simulated(device) ? 6 : 10);
  c.seed = 56;
  if (test::simulated(device)) c.max_keys_log2 = 10, c.jacobi_n = 6;
  load::expect_clean(load::run_load(device, c));
}

TEST(GpuLoad, ThirtyTwoThreads) {
  REQUIRE_GPU();
  if (test::simulated(device)) GTEST_SKIP() << "32 threads of machine code: hsad-load by hand";
  load::LoadConfig c;
  c.threads = 32;
  c.duration = std::chrono::seconds(10);
  c.seed = 32;
  load::expect_clean(load::run_load(device, c));
}

TEST(GpuLoad, OneRecordedBatchSubmittedByEightThreadsAtOnce) {
  REQUIRE_GPU();
  load::expect_one_batch_from_many_threads(device, test::simulated(device) ? 6 : 200);
}
