// The load test on the cpu agent (tests/load): 8 and 32 threads sorting, looping, copying and
// freeing on their own queues and one shared queue, every option set, odd waits; in every build,
// TSan's included.
#include <gtest/gtest.h>

#include "cpu_test_device.hpp"
#include "hsad/hsad.hpp"
#include "load_checks.hpp"

using namespace hsad;
using test::cpu_device;

TEST(CpuLoad, EightThreadsOnTheirOwnAndOneSharedQueue) {
  load::LoadConfig c;
  c.threads = 8;
  c.duration = std::chrono::seconds(5);
  c.seed = 56;
  load::expect_clean(load::run_load(cpu_device(), c));
}

TEST(CpuLoad, ThirtyTwoThreads) {
  load::LoadConfig c;
  c.threads = 32;
  c.duration = std::chrono::seconds(3);
  c.seed = 32;
  c.max_keys_log2 = 12;
  load::expect_clean(load::run_load(cpu_device(), c));
}

TEST(CpuLoad, OneRecordedBatchSubmittedByEightThreadsAtOnce) { load::expect_one_batch_from_many_threads(cpu_device(), 40); }
