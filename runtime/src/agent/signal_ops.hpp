// Signals with ROCr's amd_signal_t layout: the 64-bit value at offset 8 of the address that is
// the handle. The cpu agent's own signals use it, so one decrement serves them and ROCr's
// signals on the simulated GPU. The cpu agent's signals also count sleeping waiters at offset 28
// (amd_signal_t's reserved1, zero in ROCr's) so that a decrement wakes them.
#pragma once

#include <hsa/hsa.h>

#include <chrono>
#include <cstdint>
#include <functional>

namespace hsad::agent {

struct alignas(64) SoftSignal {
  std::int64_t kind = 1;  // AMD_SIGNAL_KIND_USER
  std::int64_t value = 0;
  std::uint64_t event_mailbox_ptr = 0;
  std::uint32_t event_id = 0;
  std::uint32_t waiters = 0;
  std::uint64_t start_ts = 0;
  std::uint64_t end_ts = 0;
  std::uint64_t queue_ptr = 0;
  std::uint32_t reserved3[2] = {0, 0};
};
static_assert(sizeof(SoftSignal) == 64, "amd_signal_t is 64 bytes");

hsa_signal_t create_soft_signal(std::int64_t initial);
void destroy_soft_signal(hsa_signal_t s) noexcept;

std::int64_t signal_load(hsa_signal_t s);
void signal_store(hsa_signal_t s, std::int64_t v);   // release, wakes waiters
// Arms a signal for a packet not yet published (a completion set to 1 before its header goes
// out): a plain store, no wake. Every waiter waits for 0, so no one can be woken by it, and the
// header's release store orders it before the packet that decrements it.
void signal_arm(hsa_signal_t s, std::int64_t v);
void signal_subtract(hsa_signal_t s, std::int64_t v); // acq_rel, wakes waiters

inline constexpr std::chrono::microseconds kWaitSpin{10};

// Waits until the value is 0. Spins briefly (latency), then sleeps on a futex in short slices,
// calling `check` between them (it throws to abort, e.g. when the queue failed).
// Returns false at the deadline.
bool signal_wait_zero(hsa_signal_t s, std::chrono::steady_clock::time_point deadline,
                      const std::function<void()>& check);

}  // namespace hsad::agent
