// SignalPool: completion signals created once at setup and handed out again only after the
// waiter gave them back. When every signal is out, acquire waits (bounded by a timeout).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <vector>

namespace hsad {

class SignalPool {
 public:
  using Handle = std::uint64_t;
  using Create = std::function<Handle()>;
  using Destroy = std::function<void(Handle)>;

  SignalPool(std::size_t count, Create create, Destroy destroy);
  ~SignalPool();
  SignalPool(const SignalPool&) = delete;
  SignalPool& operator=(const SignalPool&) = delete;

  // Throws hsad::Error after `timeout` with every signal still out.
  Handle acquire(std::chrono::milliseconds timeout);
  // A free signal, or nothing at once.
  std::optional<Handle> try_acquire();
  void release(Handle h);
  // Creates `more` signals (for a batch that needs more at once than the pool holds).
  void grow(std::size_t more);

  std::size_t capacity() const;
  std::size_t available() const;

 private:
  Create create_;
  Destroy destroy_;
  std::vector<Handle> all_;
  mutable std::mutex mutex_;
  std::condition_variable returned_;
  std::vector<Handle> free_;
};

}  // namespace hsad
