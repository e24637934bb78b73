// Soft signal operations: atomics on the value word, futex on its low half for sleepers.
#include "agent/signal_ops.hpp"

#include <thread>

#include "agent/futex.hpp"

namespace hsad::agent {
namespace {
std::int64_t* value_of(hsa_signal_t s) { return reinterpret_cast<std::int64_t*>(s.handle + 8); }
std::uint32_t* waiters_of(hsa_signal_t s) { return reinterpret_cast<std::uint32_t*>(s.handle + 28); }
// The low 32 bits of the value (little-endian): what a sleeper's futex watches.
const std::uint32_t* futex_word(hsa_signal_t s) { return reinterpret_cast<const std::uint32_t*>(s.handle + 8); }

void wake(hsa_signal_t s) {
  // seq_cst pairs with the waiter's increment then re-load: one of the two sees the other.
  if (__atomic_load_n(waiters_of(s), __ATOMIC_SEQ_CST) != 0) futex_wake_all(futex_word(s));
}
}  // namespace

hsa_signal_t create_soft_signal(std::int64_t initial) {
  auto* sig = new SoftSignal();
  sig->value = initial;
  return hsa_signal_t{reinterpret_cast<std::uint64_t>(sig)};
}

void destroy_soft_signal(hsa_signal_t s) noexcept { delete reinterpret_cast<SoftSignal*>(s.handle); }

std::int64_t signal_load(hsa_signal_t s) { return __atomic_load_n(value_of(s), __ATOMIC_ACQUIRE); }

void signal_store(hsa_signal_t s, std::int64_t v) {
  __atomic_store_n(value_of(s), v, __ATOMIC_SEQ_CST);
  wake(s);
}

void signal_arm(hsa_signal_t s, std::int64_t v) { __atomic_store_n(value_of(s), v, __ATOMIC_RELAXED); }

void signal_subtract(hsa_signal_t s, std::int64_t v) {
  // Once the value reaches 0 a waiter may return and destroy the signal, so nothing here may
  // read it after the decrement: the wake is unconditional (a syscall on the address, which
  // touches no user memory) instead of asking the waiter count first.
  const std::uint32_t* word = futex_word(s);
  __atomic_fetch_sub(value_of(s), v, __ATOMIC_SEQ_CST);
  futex_wake_all(word);
}

bool signal_wait_zero(hsa_signal_t s, std::chrono::steady_clock::time_point deadline,
                      const std::function<void()>& check) {
  using namespace std::chrono;
  // A short spin catches a signal that is about to fall without a syscall. It is short because
  // a spinning waiter takes a core from the threads doing the work it waits for.
  const auto spin_until = steady_clock::now() + kWaitSpin;
  for (int i = 0;; ++i) {
    if (signal_load(s) == 0) return true;
    if ((i & 7) == 7 && steady_clock::now() >= spin_until) break;
    std::this_thread::yield();
  }
  for (;;) {
    if (check) check();
    const auto now = steady_clock::now();
    if (signal_load(s) == 0) return true;
    if (now >= deadline) return false;
    const auto slice = std::min<nanoseconds>(milliseconds(2), deadline - now);
    __atomic_fetch_add(waiters_of(s), 1, __ATOMIC_SEQ_CST);
    const std::int64_t v = __atomic_load_n(value_of(s), __ATOMIC_SEQ_CST);
    if (v != 0) futex_wait(futex_word(s), static_cast<std::uint32_t>(v), slice);
    __atomic_fetch_sub(waiters_of(s), 1, __ATOMIC_SEQ_CST);
  }
}

}  // namespace hsad::agent
