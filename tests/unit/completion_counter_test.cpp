// CompletionCounter (cuda's ReplayCompletion::counter): a replayed submission completes when the
// queue's count reaches its target, and a batch that waits for it by number finds that target
// exactly: in the ring while it is among the last kRing counted, kept aside while it runs after
// being pushed out, and forgotten only once reached. The count here is a plain word the test
// writes, as the device does.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>

#include "backends/cuda/cuda_completion_counter.hpp"

using hsad::cuda::CompletionCounter;

TEST(CompletionCounter, TargetsAreReachedCyclically) {
  EXPECT_TRUE(CompletionCounter::reached(5, 5));
  EXPECT_TRUE(CompletionCounter::reached(6, 5));
  EXPECT_FALSE(CompletionCounter::reached(4, 5));
  EXPECT_TRUE(CompletionCounter::reached(3, 0xfffffff0u));  // past the wrap
  EXPECT_FALSE(CompletionCounter::reached(0xfffffff0u, 3));
  EXPECT_FALSE(CompletionCounter::reached(0, 1));  // 0: nothing counted yet
}

TEST(CompletionCounter, EveryRunningSubmissionIsFoundByItsNumber) {
  std::uint32_t count = 0;  // the device has counted nothing: all run
  CompletionCounter c(&count);
  const std::uint64_t n = 3 * CompletionCounter::kRing + 17;
  for (std::uint64_t number = 1; number <= n; ++number) c.note(number, c.launched());
  for (std::uint64_t number = 1; number <= n; ++number) {
    const auto target = c.target_of(number);
    ASSERT_TRUE(target) << "submission " << number << " runs and was not found";
    EXPECT_EQ(*target, std::uint32_t(number));
  }
  EXPECT_FALSE(c.target_of(n + 1));
  EXPECT_FALSE(c.target_of(0));
}

TEST(CompletionCounter, NumbersWithoutACountAreNotFoundAndGapsKeepTheirOwn) {
  std::uint32_t count = 0;
  CompletionCounter c(&count);
  // Every third submission counted (the others completed on an event or a slot), 5000 of them.
  for (std::uint64_t number = 3; number <= 15000; number += 3) c.note(number, c.launched());
  for (std::uint64_t number = 1; number <= 15000; ++number) {
    const auto target = c.target_of(number);
    if (number % 3) {
      EXPECT_FALSE(target) << number;
    } else {
      ASSERT_TRUE(target) << number;
      EXPECT_EQ(*target, std::uint32_t(number / 3));
    }
  }
}

TEST(CompletionCounter, WhatIsReachedWhenPushedOutIsForgotten) {
  std::uint32_t count = 0;
  CompletionCounter c(&count);
  const std::uint64_t n = 4 * CompletionCounter::kRing;
  for (std::uint64_t number = 1; number <= n; ++number) {
    c.note(number, c.launched());
    __atomic_store_n(&count, std::uint32_t(number > 100 ? number - 100 : 0), __ATOMIC_RELEASE);  // 100 in flight
  }
  // Pushed out after it was reached: not found (its completion is nothing to wait for).
  EXPECT_FALSE(c.target_of(1));
  EXPECT_FALSE(c.target_of(n - CompletionCounter::kRing));
  // The ring's: found, reached or not.
  for (std::uint64_t number = n - CompletionCounter::kRing + 1; number <= n; ++number) EXPECT_TRUE(c.target_of(number));
}

// One thread submits and the device's count trails it; another looks up recent numbers at the
// same time, as a batch on another queue resolves its waits: every answer is the exact target,
// or nothing for a submission already reached.
TEST(CompletionCounter, ALookupWhileSubmittingIsExact) {
  std::uint32_t count = 0;
  CompletionCounter c(&count);
  std::atomic<std::uint64_t> submitted{0};
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> wrong{0}, looked{0};
  std::thread reader([&] {
    std::uint64_t k = 0;
    while (!done.load(std::memory_order_acquire)) {
      const std::uint64_t latest = submitted.load(std::memory_order_acquire);
      if (latest < 2 * CompletionCounter::kRing) continue;
      const std::uint64_t number = latest - (k++ % (2 * CompletionCounter::kRing));
      const auto target = c.target_of(number);
      const std::uint32_t now = __atomic_load_n(&count, __ATOMIC_ACQUIRE);
      if (target ? *target != std::uint32_t(number) : !CompletionCounter::reached(now, std::uint32_t(number))) ++wrong;
      ++looked;
    }
  });
  for (std::uint64_t number = 1; number <= 200000; ++number) {
    c.note(number, c.launched());
    submitted.store(number, std::memory_order_release);
    // 1500 in flight: more than the ring holds, so some are kept aside while they run.
    if (number > 1500) __atomic_store_n(&count, std::uint32_t(number - 1500), __ATOMIC_RELEASE);
  }
  done.store(true, std::memory_order_release);
  reader.join();
  EXPECT_EQ(wrong.load(), 0u) << "of " << looked.load() << " lookups";
}
