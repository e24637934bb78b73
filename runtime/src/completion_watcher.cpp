// The completion watcher: submissions handed over with Submission::on_complete, polled with
// ready() (never blocking, never abandoning) from one thread that sleeps between looks, a little
// longer each time nothing ended (20 us up to 1 ms), and at once again when one is added.
#include "completion_watcher.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <list>
#include <mutex>
#include <thread>

#include "hsad/error.hpp"

namespace hsad::detail {
namespace {

class Watcher {
 public:
  Watcher() : thread_([this] { loop(); }) {}
  ~Watcher() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();  // what is still watched is let go: each Submission's destructor bounds its wait
  }

  void add(Submission s, std::function<void(const Error*)> callback) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      watched_.push_back({std::move(s), std::move(callback)});
    }
    wake_.notify_one();
  }

 private:
  struct Watched {
    Submission submission;
    std::function<void(const Error*)> callback;
  };

  void loop() {
    auto pause = std::chrono::microseconds(20);
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait_for(lock, pause, [this] { return stopping_ || added_since_look(); });
      if (stopping_) return;
      // Take the ended ones out under the lock; run their callbacks without it, so a callback
      // may submit and watch more work.
      std::list<Watched> ended;
      for (auto it = watched_.begin(); it != watched_.end();) {
        auto next = std::next(it);
        if (it->submission.ready()) ended.splice(ended.end(), watched_, it);
        it = next;
      }
      seen_ = watched_.size();
      const bool any = !ended.empty();
      lock.unlock();
      for (Watched& w : ended) finish(w);
      ended.clear();  // the submissions' destructors: already complete, no wait
      lock.lock();
      pause = any ? std::chrono::microseconds(20)
                  : std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(1));
    }
  }
  bool added_since_look() const { return watched_.size() > seen_; }

  static void finish(Watched& w) noexcept {
    try {
      try {
        w.submission.wait(std::chrono::milliseconds(0));
      } catch (const Error& e) {
        w.callback(&e);
        return;
      } catch (const std::exception& e) {  // a trace callback's own, thrown through the wait
        const Error error(Errc::runtime, "trace", "on_complete", std::string("the wait threw: ") + e.what());
        w.callback(&error);
        return;
      } catch (...) {
        const Error error(Errc::runtime, "trace", "on_complete", "the wait threw an exception of no std::exception type");
        w.callback(&error);
        return;
      }
      w.callback(nullptr);
    } catch (...) {
      // A callback that throws has nowhere to throw to: the watcher goes on.
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::list<Watched> watched_;
  std::size_t seen_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

Watcher& watcher() {
  static Watcher w;
  return w;
}

}  // namespace

void watch(Submission s, std::function<void(const Error*)> callback) { watcher().add(std::move(s), std::move(callback)); }

}  // namespace hsad::detail
