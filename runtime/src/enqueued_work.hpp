// EnqueuedWork: what a queue holds for Queue::enqueue until Queue::finish: the submissions that
// needed one (a backend's bare sends hold none), in enqueue order, and the first error found in
// them before a finish asked. Bounded: an application that enqueues and never finishes holds the
// work in flight, not everything it made, and the pools those submissions hold from stay usable.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "hsad/error.hpp"

namespace hsad::detail {

class SubmissionImpl;

class EnqueuedWork {
 public:
  // Past either, an enqueue first waits for the oldest (Queue::enqueue): a queue's signal pool
  // has 64, its kernarg pool 16384 blocks of 64 bytes (a dispatch takes one or a few).
  static constexpr std::size_t kMaxSubmissions = 32;
  static constexpr std::size_t kMaxCommands = 2048;

  struct Held {
    std::unique_ptr<SubmissionImpl> sub;
    std::size_t commands = 0;
  };

  EnqueuedWork();
  ~EnqueuedWork();
  EnqueuedWork(const EnqueuedWork&) = delete;
  EnqueuedWork& operator=(const EnqueuedWork&) = delete;

  // Held by whoever waits for enqueued submissions it took out of the list (Queue::finish, an
  // enqueue making room), so that a finish() on another thread, finding them gone, waits for that
  // wait to end instead of returning before the work it follows has completed. Taken before the
  // submit mutex, never while holding it. Throws Errc::timeout where `deadline` passes first, and
  // Errc::invalid_argument on the thread that holds it (a trace callback called from its wait).
  class Turn {
   public:
    explicit Turn(EnqueuedWork& work) : work_(work) {}
    Turn(const Turn&) = delete;
    Turn& operator=(const Turn&) = delete;
    ~Turn() { work_.end_turn(); }

   private:
    EnqueuedWork& work_;
  };
  Turn wait_turn(std::chrono::steady_clock::time_point deadline, const char* call);

  // All below: under the queue's submit mutex.
  // Lets go of the oldest submissions that completed with nothing left to report (no error, no
  // loop count to read, no trace to report), giving back what they held.
  void reap() noexcept;
  // Whether a submission of `commands` more would pass a bound with work held.
  bool full_for(std::size_t commands) const noexcept {
    return !held_.empty() && (held_.size() >= kMaxSubmissions || commands_ + commands > kMaxCommands);
  }
  void keep(std::unique_ptr<SubmissionImpl> sub, std::size_t commands);
  // The oldest, for its wait without the mutex; nullopt where none is held.
  std::optional<Held> take_oldest();
  // Everything held, oldest first (finish, the queue let go of).
  std::deque<Held> take_all();
  // Back in front of anything enqueued since (a wait that timed out), oldest first.
  void put_back(std::deque<Held> work);
  void put_back(Held oldest);
  // An error a wait found before a finish: the first one is kept for it.
  void note_error(const Error& e);
  std::optional<Error> take_error();
  std::size_t size() const noexcept { return held_.size(); }

 private:
  std::deque<Held> held_;
  std::size_t commands_ = 0;
  std::optional<Error> error_;
  void end_turn() noexcept;
  // The wait turn: who holds it (none: a default id), under its own mutex. A mutex and a condition
  // rather than std::timed_mutex, whose timed lock ThreadSanitizer's runtime here does not see.
  std::mutex turn_mutex_;
  std::condition_variable turn_free_;
  std::thread::id waiter_;
};

}  // namespace hsad::detail
