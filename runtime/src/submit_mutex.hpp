// SubmitMutex: the lock held across one submit of a queue (Timeline::submit_mutex).
#pragma once

#include <atomic>

namespace hsad::detail {

// Uncontended, taking and giving it back are one atomic instruction each, inline: a submit runs
// no code of libc's pthread functions. Why that matters: after a large graph launch (the driver's
// or any other work that sweeps the caches), each code or data page a submit touches costs about
// 0.1 to 0.5 us on the H100 machine (docs/results.md, issue 60); the lock is the first thing
// a submit does. Contended, a waiter sleeps in the kernel (a futex) rather than spinning: a submit
// may hold the lock across a graph capture of milliseconds. Not recursive; Lockable, for
// std::lock_guard and std::unique_lock.
class SubmitMutex {
 public:
  SubmitMutex() = default;
  SubmitMutex(const SubmitMutex&) = delete;
  SubmitMutex& operator=(const SubmitMutex&) = delete;

  void lock() noexcept {
    int free = kFree;
    if (!state_.compare_exchange_strong(free, kHeld, std::memory_order_acquire, std::memory_order_relaxed)) {
      lock_contended();
    }
  }
  bool try_lock() noexcept {
    int free = kFree;
    return state_.compare_exchange_strong(free, kHeld, std::memory_order_acquire, std::memory_order_relaxed);
  }
  void unlock() noexcept {
    if (state_.exchange(kFree, std::memory_order_release) == kWaited) wake_one();
  }

 private:
  static constexpr int kFree = 0, kHeld = 1, kWaited = 2;  // kWaited: held, and someone may sleep on it
  [[gnu::cold, gnu::noinline]] void lock_contended() noexcept;
  [[gnu::cold, gnu::noinline]] void wake_one() noexcept;
  std::atomic<int> state_{kFree};
};

}  // namespace hsad::detail
