// SignalPool: a free list under a mutex; the condition variable wakes a waiting acquirer.
#include "pools/signal_pool.hpp"

#include <algorithm>

#include "hsad/error.hpp"

namespace hsad {

SignalPool::SignalPool(std::size_t count, Create create, Destroy destroy)
    : create_(std::move(create)), destroy_(std::move(destroy)) {
  all_.reserve(count);
  try {
    for (std::size_t i = 0; i < count; ++i) all_.push_back(create_());
  } catch (...) {
    for (Handle h : all_) destroy_(h);
    throw;
  }
  free_ = all_;
}

SignalPool::~SignalPool() {
  for (Handle h : all_) destroy_(h);
}

SignalPool::Handle SignalPool::acquire(std::chrono::milliseconds timeout) {
  // condition_variable::wait_for adds the timeout to the clock: a "forever" (kWaitForever, as
  // far as the steady clock reaches) would overflow into the past and time out at once.
  constexpr std::chrono::milliseconds kLongest = std::chrono::hours(24 * 365 * 100);
  timeout = std::min(timeout, kLongest);
  std::unique_lock<std::mutex> lock(mutex_);
  if (!returned_.wait_for(lock, timeout, [&] { return !free_.empty(); })) {
    throw Error(Errc::timeout, "pool", "SignalPool::acquire",
                "all " + std::to_string(all_.size()) + " completion signals are still held after " +
                    std::to_string(timeout.count()) + " ms (by work in flight, or by Submission handles "
                    "neither waited for nor destroyed)",
                "wait for earlier submissions, or let their handles go, before submitting more");
  }
  Handle h = free_.back();
  free_.pop_back();
  return h;
}

std::optional<SignalPool::Handle> SignalPool::try_acquire() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (free_.empty()) return std::nullopt;
  Handle h = free_.back();
  free_.pop_back();
  return h;
}

void SignalPool::grow(std::size_t more) {
  std::vector<Handle> made;
  made.reserve(more);
  try {
    for (std::size_t i = 0; i < more; ++i) made.push_back(create_());
  } catch (...) {
    for (Handle h : made) destroy_(h);
    throw;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    all_.insert(all_.end(), made.begin(), made.end());
    free_.insert(free_.end(), made.begin(), made.end());
  }
  returned_.notify_all();
}

void SignalPool::release(Handle h) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(h);
  }
  returned_.notify_one();
}

std::size_t SignalPool::capacity() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return all_.size();
}

std::size_t SignalPool::available() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return free_.size();
}

}  // namespace hsad
