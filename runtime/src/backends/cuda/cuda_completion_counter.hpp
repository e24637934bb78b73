// CompletionCounter: a CUDA queue's count of the launches of its counting graphs
// (ReplayCompletion::counter). The last node of such a graph (kernels/completion.cu) raises the
// count when everything before it has ended, so a replayed submission completes when the count
// reaches its target: the submit makes no driver call for its completion, holds no pooled event
// and makes no completion object. The count's targets are cyclic 32-bit values (never 0), as
// cuStreamWaitValue32's CU_STREAM_WAIT_VALUE_GEQ compares them.
//
// A batch that waits for "submission k of this queue" finds k's target here: a ring of the last
// kRing counted submissions, written by the submitting thread alone (under the queue's submit
// mutex) with one atomic word per place, read by any thread. A submission pushed out of the ring
// while still running (kRing later ones in flight behind it) is kept aside, under a lock, until
// its target is reached, so every lookup is exact.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>

namespace hsad::cuda {

class CompletionCounter {
 public:
  static constexpr std::size_t kRing = 1024;

  // Cyclic: has `count` reached `target`? (0, "none yet", reaches nothing.)
  static bool reached(std::uint32_t count, std::uint32_t target) noexcept {
    return count != 0 && std::int32_t(count - target) >= 0;
  }

  // `host`: the pinned word the device writes each new count into.
  explicit CompletionCounter(const std::uint32_t* host) : host_(host) {}
  CompletionCounter(const CompletionCounter&) = delete;
  CompletionCounter& operator=(const CompletionCounter&) = delete;

  // Under the submit mutex: one more launch of a counting graph; the count it ends with.
  std::uint32_t launched() noexcept { return launches_ = next(); }
  // The count the next launch will end with (launched() then returns it). Never 0.
  std::uint32_t next() const noexcept { return launches_ + 1 ? launches_ + 1 : 1; }
  // The count of the latest launch (0: none yet). Under the submit mutex.
  std::uint32_t latest() const noexcept { return launches_; }
  // Under the submit mutex: submission `number` completes at `target`.
  void note(std::uint64_t number, std::uint32_t target);
  // The target of submission `number`, or nothing where it was not counted here (or has long
  // completed: pushed out of the ring after its target was reached). Any thread.
  std::optional<std::uint32_t> target_of(std::uint64_t number);
  // The count the device wrote last.
  std::uint32_t count() const noexcept { return __atomic_load_n(host_, __ATOMIC_ACQUIRE); }

 private:
  static std::uint64_t pack(std::uint64_t number, std::uint32_t target) {
    return std::uint64_t(std::uint32_t(number)) << 32 | target;
  }
  // What every counted submit reads and writes, together before the ring (one cache line).
  const std::uint32_t* host_;
  std::uint32_t launches_ = 0;  // under the submit mutex
  std::uint32_t seen_ = 0;  // a count read earlier (the writer's): targets it reached need no read
  std::atomic<bool> any_aside_{false};
  // number's low 32 bits << 32 | target; 0: empty. Indexed by number % kRing.
  std::atomic<std::uint64_t> ring_[kRing] = {};
  std::mutex aside_mutex_;
  std::map<std::uint64_t, std::uint32_t> aside_;  // number -> target, pushed out while running
};

}  // namespace hsad::cuda
