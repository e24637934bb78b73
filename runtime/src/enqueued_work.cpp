// EnqueuedWork: the bounded list of enqueued submissions and the first error found in them.
#include "enqueued_work.hpp"

#include <utility>

#include "backends/backend.hpp"

namespace hsad::detail {

EnqueuedWork::EnqueuedWork() = default;
EnqueuedWork::~EnqueuedWork() = default;

EnqueuedWork::Turn EnqueuedWork::wait_turn(std::chrono::steady_clock::time_point deadline, const char* call) {
  std::unique_lock<std::mutex> lock(turn_mutex_);
  if (waiter_ == std::this_thread::get_id()) {
    throw Error(Errc::invalid_argument, "queue", call,
                "called from within this queue's own wait for its enqueued work (a trace callback of it)",
                "finish the queue from another thread, or after the callback returns");
  }
  const auto free = [this] { return waiter_ == std::thread::id(); };
  // A deadline of forever is a plain wait: a time point that far would overflow the wait's clock.
  if (deadline == std::chrono::steady_clock::time_point::max()) {
    turn_free_.wait(lock, free);
  } else if (!turn_free_.wait_until(lock, deadline, free)) {
    throw Error(Errc::timeout, "queue", call, "another thread still waits for this queue's enqueued work",
                "raise the timeout; that thread's wait ends with the work");
  }
  waiter_ = std::this_thread::get_id();
  return Turn(*this);
}

void EnqueuedWork::end_turn() noexcept {
  {
    std::lock_guard<std::mutex> lock(turn_mutex_);
    waiter_ = std::thread::id();
  }
  turn_free_.notify_all();
}

void EnqueuedWork::reap() noexcept {
  while (!held_.empty()) {
    SubmissionImpl& oldest = *held_.front().sub;
    if (oldest.loops || oldest.traced || oldest.failure || !oldest.release_if_complete()) return;
    commands_ -= held_.front().commands;
    held_.pop_front();
  }
}

void EnqueuedWork::keep(std::unique_ptr<SubmissionImpl> sub, std::size_t commands) {
  held_.push_back({std::move(sub), commands});
  commands_ += commands;
}

std::optional<EnqueuedWork::Held> EnqueuedWork::take_oldest() {
  if (held_.empty()) return std::nullopt;
  Held oldest = std::move(held_.front());
  held_.pop_front();
  commands_ -= oldest.commands;
  return oldest;
}

std::deque<EnqueuedWork::Held> EnqueuedWork::take_all() {
  commands_ = 0;
  return std::exchange(held_, {});
}

void EnqueuedWork::put_back(std::deque<Held> work) {
  for (auto it = work.rbegin(); it != work.rend(); ++it) put_back(std::move(*it));
}

void EnqueuedWork::put_back(Held oldest) {
  commands_ += oldest.commands;
  held_.push_front(std::move(oldest));
}

void EnqueuedWork::note_error(const Error& e) {
  if (!error_) error_ = e;
}

std::optional<Error> EnqueuedWork::take_error() { return std::exchange(error_, std::nullopt); }

}  // namespace hsad::detail
