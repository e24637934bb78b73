// SubmitMutex (a queue's submit lock): exclusive under contention, a waiter sleeps until the
// holder gives it back and is woken then, try_lock fails while it is held. A lost wake-up hangs
// the second test (ctest's timeout names it); broken exclusion loses increments (and TSan, which
// runs the unit tests, names the race).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "submit_mutex.hpp"

using hsad::detail::SubmitMutex;

TEST(SubmitMutex, ThreadsTakeItOneAtATime) {
  SubmitMutex m;
  long count = 0;  // plain: only the lock keeps the increments whole
  constexpr int kThreads = 8, kEach = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) {
        std::lock_guard<SubmitMutex> lock(m);
        ++count;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(count, long(kThreads) * kEach);
  EXPECT_TRUE(m.try_lock());
  m.unlock();
}

TEST(SubmitMutex, AWaiterSleepsUntilTheHolderGivesItBack) {
  SubmitMutex m;
  m.lock();
  EXPECT_FALSE(m.try_lock());
  std::atomic<bool> given_back{false}, taken{false};
  std::thread waiter([&] {
    std::unique_lock<SubmitMutex> lock(m);
    taken = true;
    EXPECT_TRUE(given_back.load()) << "the waiter took the lock while it was held";
  });
  // Long enough for the waiter to reach the futex on any machine; it must still be waiting.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(taken.load());
  given_back = true;
  m.unlock();
  waiter.join();
  EXPECT_TRUE(taken.load());
  // Free again, whatever the waiter left in it.
  EXPECT_TRUE(m.try_lock());
  m.unlock();
}

TEST(SubmitMutex, SeveralSleepersAreAllWokenInTurn) {
  SubmitMutex m;
  m.lock();
  std::atomic<int> done{0};
  std::vector<std::thread> sleepers;
  for (int t = 0; t < 4; ++t) {
    sleepers.emplace_back([&] {
      std::lock_guard<SubmitMutex> lock(m);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the next sleeper waits for this one
      ++done;
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(done.load(), 0);
  m.unlock();
  for (std::thread& t : sleepers) t.join();
  EXPECT_EQ(done.load(), 4);
}
