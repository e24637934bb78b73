// CudaSubmission: what one submission on a CUDA stream holds until it has completed (its signal,
// argument memory, timing events, the code it runs, what it waits for), its one wait, and how it
// is abandoned after a timeout. CudaCompletion (cuda_queue.hpp) is what another batch waits for.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "backends/cuda/cuda_queue.hpp"
#include "command_labels.hpp"
#include "graveyard.hpp"
#include "pools/recycled_blocks.hpp"
#include "hsad/error.hpp"

namespace hsad::cuda {

// One per submit: from the thread's recycled blocks (pools/recycled_blocks.hpp), not the heap, so
// that a replayed submit runs none of malloc's code (hot_path.hpp says why that counts).
class CudaSubmission : public detail::SubmissionImpl, public detail::Recycled<CudaSubmission> {
 public:
  explicit CudaSubmission(std::shared_ptr<CudaQueue> q) : q_(std::move(q)) {}

  void wait(detail::Clock::time_point deadline) override {
    if (abandoned_) {
      // Waited again after a timeout: the queue holds the signal while the work runs.
      while (q_->abandoned_still_running(signal)) {
        const std::string why = q_->error();
        if (!why.empty()) throw Error(Errc::device_fault, "cuda", "wait", why);
        if (detail::Clock::now() > deadline) {
          throw detail::TimeoutError("cuda", "wait", describe() + " still runs",
                                     "raise the timeout, or look for a kernel that never ends");
        }
        std::this_thread::yield();
      }
      abandoned_ = pending_ = false;
      signal = {};
      pooled = 0;
      handed_over_ = true;  // the queue gave it back
    }
    if (pending_) {
      try {
        q_->wait(signal, deadline, this);
      } catch (const detail::TimeoutError& e) {
        failed_ = std::string(e.what()) + ": " + describe() + " is abandoned and still runs";
        abandon();
        throw detail::TimeoutError("cuda", "wait", e.status() + ": " + describe() + " is abandoned",
                                   "its queue runs nothing more until it ends; the process's exit stops it");
      } catch (const Error& e) {
        const std::string where = where_it_failed();
        failed_ = e.what() + where;
        if (where.empty()) throw;
        throw Error(e.code(), e.backend(), e.call(), e.status() + where, e.hint());
      }
      pending_ = false;
      read_times();
    }
    std::unique_ptr<Error> loop_error = !waited_ && !loops_read.empty() ? read_loops() : nullptr;
    waited_ = true;
    release();
    // Complete: a completion nobody else holds gives its signal back now; a queue's timeline
    // then finds nothing left to wait for.
    shared_.reset();
    if (loop_error) throw Error(*loop_error);
  }

  bool abandoned() const override { return abandoned_; }

  // "submission 3 of the queue (bitonic_step x120)"
  std::string describe() const {
    return detail::describe_submission(serial, labels.get());
  }

  // Which command failed: exact where each was timed (profile), else every command since the
  // last point the host saw complete (for a nosync batch, the whole batch).
  std::string where_it_failed() const {
    if (!labels || labels->empty()) return {};
    for (const Timed& t : timed) {
      if (!t.end || q_->d_.cuEventQuery(t.end) != CUDA_SUCCESS) {
        return " in " + detail::describe_commands(*labels, t.command, t.command);
      }
    }
    return " in " + detail::describe_commands(*labels, 0, labels->size() - 1);
  }

  ~CudaSubmission() override {
    if (abandoned_ && !release_if_complete()) {
      // Still running: the code it runs and what it waits for outlive it.
      detail::keep_forever(std::shared_ptr<const void>(code));
      for (auto& w : waits_for) detail::keep_forever(std::shared_ptr<const void>(w));
      return;
    }
    release();
  }

  bool ready() override {
    if (abandoned_) return !q_->abandoned_still_running(signal) || !q_->error().empty();
    return !pending_ || q_->reached(signal) || !q_->error().empty();
  }

  bool release_if_complete() noexcept override {
    if (abandoned_) {
      if (q_->abandoned_still_running(signal)) return false;
      abandoned_ = pending_ = false;
      signal = {};
      pooled = 0;
      handed_over_ = true;  // the queue gave it back
    }
    if (pending_) {
      if (!q_->reached(signal)) return false;
      pending_ = false;
    }
    release();
    shared_.reset();
    return true;
  }

  std::shared_ptr<detail::CompletionImpl> completion() override {
    if (!shared_) {
      // The signal now belongs to the completion, which outlives this submission while another
      // batch may wait for it; this submission still waits on it.
      shared_ = std::make_shared<CudaCompletion>(q_, signal, pooled, pending_, failed_, serial);
      handed_over_ = true;
    }
    return shared_;
  }

  std::vector<CommandTime> timestamps() const override {
    if (!waited_) throw Error(Errc::invalid_argument, "cuda", "timestamps", "the submission has not been waited for");
    return times_;
  }

  void check_waits_for() const {
    for (const auto& w : waits_for) {
      const std::string why = w->failure();
      if (!why.empty()) throw Error(Errc::queue_stopped, "cuda", "wait", "a submission this batch waits for failed: " + why);
    }
  }

  CudaSignal signal;
  SignalPool::Handle pooled = 0;
  void* own_kernarg = nullptr;
  std::vector<std::shared_ptr<detail::CompletionImpl>> waits_for;
  std::shared_ptr<const void> code;
  struct Timed {
    std::uint32_t command;
    std::string what;
    CUevent start, end;
    bool owned;  // made for this submission
  };
  std::vector<Timed> timed;
  // Each device-run loop's slot of this launch (CudaQueue::LoopSlots), read once complete.
  struct LoopRead {
    std::shared_ptr<std::uint32_t> words;
    std::uint64_t launch = 0;
    std::uint64_t max_iterations = 0;
    std::shared_ptr<void> live;  // the loop's device words, which the launch uses until it ends
  };
  std::vector<LoopRead> loops_read;
  void set_pending() { pending_ = true; }
  std::shared_ptr<const std::vector<std::string>> labels;
  // The host already waited for every command (no nosync): nothing is pending.
  void completed_on_the_host() { read_times(); }

 private:
  // Each loop's iterations into loop_iterations; what to throw for a loop past its guard (or a
  // count lost), or nullptr.
  std::unique_ptr<Error> read_loops() {
    loop_iterations.clear();
    std::unique_ptr<Error> over;
    for (std::size_t i = 0; i < loops_read.size(); ++i) {
      const LoopRead& l = loops_read[i];
      const std::uint32_t* slot = l.words.get() + 2 + (l.launch % CudaQueue::kLoopSlots) * 4;
      if (__atomic_load_n(&slot[0], __ATOMIC_ACQUIRE) != std::uint32_t(l.launch)) {
        loops_read.clear();
        loop_iterations.clear();
        return std::make_unique<Error>(
            Errc::runtime, "cuda", "wait",
            "loop " + std::to_string(i) + " of " + describe() + ": its count was overwritten by " +
                std::to_string(CudaQueue::kLoopSlots) + " later submissions of the batch before this one was waited for",
            "wait for a looped batch's submissions before that many more are submitted");
      }
      loop_iterations.push_back(slot[1]);
      if (slot[2] == 2 && !over) {  // hsad::loop::guard_reached
        over = std::make_unique<Error>(Errc::loop_limit, "cuda", "wait",
                                       "loop " + std::to_string(i) + " of " + describe() + " reached its max_iterations (" +
                                           std::to_string(l.max_iterations) + ") with its condition still non-zero",
                                       "raise max_iterations, or look at what the loop's kernels write into its condition");
      }
    }
    loops_read.clear();
    return over;
  }

  void read_times() {
    times_.clear();
    if (timed.empty()) return;
    CUevent base = timed.front().start;
    for (const Timed& t : timed) {
      float start_ms = 0, end_ms = 0;
      check(q_->d_.cuEventElapsedTime(&start_ms, base, t.start), "cuEventElapsedTime");
      check(q_->d_.cuEventElapsedTime(&end_ms, base, t.end), "cuEventElapsedTime");
      times_.push_back({t.command, t.what, std::uint64_t(double(start_ms) * 1e6), std::uint64_t(double(end_ms) * 1e6)});
    }
  }

  void release() noexcept {
    if (pending_) return;  // still running after a timeout: keep what it uses
    if (!handed_over_) q_->give_back(signal, pooled);
    pooled = 0;
    signal = {};
    std::free(own_kernarg);
    own_kernarg = nullptr;
    for (const Timed& t : timed) {
      if (!t.owned) continue;
      q_->destroy_event(t.start);
      q_->destroy_event(t.end);
    }
    timed.clear();
    waits_for.clear();
    code.reset();
  }

  // The wait timed out while the batch runs: the queue takes its signal and refuses later work
  // until the signal is reached; the rest stays with this handle.
  void abandon() {
    abandoned_ = true;
    const std::string what = describe() + " timed out and still runs";
    if (shared_) {
      auto [s, p] = shared_->take_signal("abandoned: " + what);
      q_->abandon(s, p, what);
    } else {
      q_->abandon(signal, handed_over_ ? 0 : pooled, what);
    }
    handed_over_ = true;  // the queue owns the signal now
  }

  std::shared_ptr<CudaQueue> q_;
  std::shared_ptr<CudaCompletion> shared_;
  std::vector<CommandTime> times_;
  std::string failed_;
  bool pending_ = false;
  bool handed_over_ = false;
  bool waited_ = false;
  bool abandoned_ = false;
};

}  // namespace hsad::cuda
