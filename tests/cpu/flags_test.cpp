// What each optimization flag must change, exactly, in the counters of one iteration of the
// bitonic sort (copy in, every dispatch, copy out), each flag alone against the baseline.
#include <gtest/gtest.h>

#include "bitonic.hpp"
#include "bitonic_workload.hpp"
#include "hsad/hsad.hpp"

using namespace hsad;

namespace {
constexpr std::uint32_t kKeys = 1024;
const std::uint64_t kDispatches = kernels::bitonic_dispatches(kKeys);  // 55
constexpr std::uint64_t kBytes = kKeys * 4;

Stats one_iteration(const Options& o) {
  static Runtime rt = Runtime::open("cpu");
  const Device& d = rt.device();
  bench::BitonicWorkload w(d, kKeys, o);  // setup: queue, pools, buffers, batch (not counted)
  const Stats before = d.stats();
  w.run();
  return d.stats() - before;
}

Stats baseline() {
  Stats s;
  s.packets = kDispatches;
  s.doorbells = kDispatches;
  s.host_waits = kDispatches;
  s.signals_created = 1;
  s.kernarg_allocations = 1;
  s.system_fences = 2 * kDispatches;
  s.bytes_copied = 2 * kBytes;
  s.bytes_staged = 2 * kBytes;
  return s;
}

void expect_stats(const Stats& got, const Stats& want) {
  EXPECT_EQ(got.packets, want.packets);
  EXPECT_EQ(got.doorbells, want.doorbells);
  EXPECT_EQ(got.host_waits, want.host_waits);
  EXPECT_EQ(got.signals_created, want.signals_created);
  EXPECT_EQ(got.kernarg_allocations, want.kernarg_allocations);
  EXPECT_EQ(got.system_fences, want.system_fences);
  EXPECT_EQ(got.bytes_copied, want.bytes_copied);
  EXPECT_EQ(got.bytes_staged, want.bytes_staged);
}
}  // namespace

TEST(FlagMechanism, BaselineCreatesSignalAllocatesKernargWaitsEveryDispatch) {
  expect_stats(one_iteration(Options::none()), baseline());
}

TEST(FlagMechanism, SignalTakesSignalsFromThePoolInsteadOfCreatingOne) {
  Stats want = baseline();
  want.signals_created = 0;
  expect_stats(one_iteration(Options::parse("signal")), want);
}

TEST(FlagMechanism, KernargUsesThePoolInsteadOfAllocating) {
  Stats want = baseline();
  want.kernarg_allocations = 0;
  expect_stats(one_iteration(Options::parse("kernarg")), want);
}

TEST(FlagMechanism, NosyncRingsOnceAndWaitsOnce) {
  Stats want = baseline();
  want.doorbells = 1;
  want.host_waits = 1;
  expect_stats(one_iteration(Options::parse("nosync")), want);
}

TEST(FlagMechanism, FenceKeepsSystemScopeOnlyAtTheEnds) {
  Stats want = baseline();
  want.system_fences = 2;
  expect_stats(one_iteration(Options::parse("fence")), want);
}

TEST(FlagMechanism, PinnedTransfersAreNotStaged) {
  Stats want = baseline();
  want.bytes_staged = 0;
  expect_stats(one_iteration(Options::parse("pinned")), want);
}

TEST(FlagMechanism, AllFlagsTogether) {
  Stats want = baseline();
  want.signals_created = 0;
  want.kernarg_allocations = 0;
  want.doorbells = 1;
  want.host_waits = 1;
  want.system_fences = 2;
  want.bytes_staged = 0;
  expect_stats(one_iteration(Options{}), want);
}
