// SubmitMutex's slow paths: sleeping on the lock word, and waking one sleeper (Linux futexes).
#include "submit_mutex.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace hsad::detail {
namespace {
// std::atomic<int> is an int in memory (lock-free, standard layout): the futex word.
int* word(std::atomic<int>& a) { return reinterpret_cast<int*>(&a); }
}  // namespace

void SubmitMutex::lock_contended() noexcept {
  // Mark it waited-for before sleeping, so the holder's unlock wakes someone; whoever takes it
  // from here keeps the mark (it may wake a thread needlessly, never miss one).
  while (state_.exchange(kWaited, std::memory_order_acquire) != kFree) {
    // Returns at once where the word is no longer kWaited (EAGAIN), on a wake, or a signal.
    syscall(SYS_futex, word(state_), FUTEX_WAIT_PRIVATE, kWaited, nullptr, nullptr, 0);
  }
}

void SubmitMutex::wake_one() noexcept { syscall(SYS_futex, word(state_), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0); }

}  // namespace hsad::detail
