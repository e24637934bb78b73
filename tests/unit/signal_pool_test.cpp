// SignalPool: signals made once at setup, handed out only when returned, bounded waits.
#include <gtest/gtest.h>

#include <thread>

#include "hsad/error.hpp"
#include "pools/signal_pool.hpp"

using hsad::SignalPool;
using namespace std::chrono_literals;

namespace {
struct Counts {
  int created = 0, destroyed = 0;
};
}  // namespace

TEST(SignalPool, CreatesEverySignalAtSetupAndDestroysThemAtTheEnd) {
  Counts c;
  {
    SignalPool pool(8, [&c] { return SignalPool::Handle(++c.created); }, [&c](SignalPool::Handle) { ++c.destroyed; });
    EXPECT_EQ(c.created, 8);
    for (int i = 0; i < 20; ++i) pool.release(pool.acquire(10ms));
    EXPECT_EQ(c.created, 8);
  }
  EXPECT_EQ(c.destroyed, 8);
}

TEST(SignalPool, HandsOutDistinctSignals) {
  Counts c;
  SignalPool pool(3, [&c] { return SignalPool::Handle(++c.created); }, [](SignalPool::Handle) {});
  auto a = pool.acquire(10ms), b = pool.acquire(10ms), d = pool.acquire(10ms);
  EXPECT_NE(a, b);
  EXPECT_NE(b, d);
  EXPECT_NE(a, d);
  EXPECT_EQ(pool.available(), 0u);
}

TEST(SignalPool, ExhaustionWaitsForARelease) {
  Counts c;
  SignalPool pool(1, [&c] { return SignalPool::Handle(++c.created); }, [](SignalPool::Handle) {});
  auto a = pool.acquire(10ms);
  std::thread t([&] {
    std::this_thread::sleep_for(20ms);
    pool.release(a);
  });
  EXPECT_EQ(pool.acquire(5000ms), a);
  t.join();
}

TEST(SignalPool, ExhaustionTimesOutWithAnError) {
  Counts c;
  SignalPool pool(1, [&c] { return SignalPool::Handle(++c.created); }, [](SignalPool::Handle) {});
  (void)pool.acquire(10ms);
  EXPECT_THROW(pool.acquire(20ms), hsad::Error);
}

// A timeout as long as the clock reaches ("forever") waits for the signal to come back; on main
// at 82f354a, condition_variable::wait_for overflowed it into the past and the acquire failed at once.
TEST(SignalPool, AForeverTimeoutWaitsForTheReturn) {
  SignalPool pool(1, [] { return SignalPool::Handle(1); }, [](SignalPool::Handle) {});
  const SignalPool::Handle h = pool.acquire(10ms);
  std::thread giver([&] {
    std::this_thread::sleep_for(20ms);
    pool.release(h);
  });
  EXPECT_EQ(pool.acquire(std::chrono::milliseconds::max()), h);
  giver.join();
}
