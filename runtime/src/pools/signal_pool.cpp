// SignalPool: a free list under a mutex; the condition variable wakes a waiting acquirer.
#include "pools/signal_pool.hpp"

#include "hsad/error.hpp"

namespace hsad {

SignalPool::SignalPool(std::size_t count, Create create, Destroy destroy) : destroy_(std::move(destroy)) {
  all_.reserve(count);
  try {
    for (std::size_t i = 0; i < count; ++i) all_.push_back(create());
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
  std::unique_lock<std::mutex> lock(mutex_);
  if (!returned_.wait_for(lock, timeout, [&] { return !free_.empty(); })) {
    throw Error("pool", "SignalPool::acquire",
                "all " + std::to_string(all_.size()) + " completion signals are in flight after " +
                    std::to_string(timeout.count()) + " ms",
                "wait for earlier submissions before submitting more");
  }
  Handle h = free_.back();
  free_.pop_back();
  return h;
}

void SignalPool::release(Handle h) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(h);
  }
  returned_.notify_one();
}

std::size_t SignalPool::available() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return free_.size();
}

}  // namespace hsad
