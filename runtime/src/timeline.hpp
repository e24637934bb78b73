// Timeline: a queue's count of submissions and a view of the recent ones' completions, so that a
// batch recorded once can wait for "queue X's submission number k" (Batch::wait(queue, offset)),
// resolved to that submission's completion each time the batch is submitted.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "submit_mutex.hpp"

namespace hsad::detail {

class CompletionImpl;

// What memory freed while work runs waits for (DeviceImpl::deallocate, parked): a submission's
// completion held weakly (released means completed, as for the timeline), or a mark an AQL queue
// made for a submission record, held strongly (a mark holds its queue weakly, so nothing here
// keeps a queue, and through it its device, alive). Neither: unknown, ended at the next look.
struct InFlight {
  std::weak_ptr<CompletionImpl> completion;
  std::shared_ptr<CompletionImpl> mark;
  std::shared_ptr<const std::atomic<bool>> gone;  // the completion's (CompletionImpl::gone)
  bool ended() const;
};

class Timeline {
 public:
  // Held across one whole submit of the owning queue, so that its number and the numbers its
  // waits resolve against are consistent when several threads submit to one queue.
  SubmitMutex& submit_mutex() { return submit_mutex_; }

  // Submissions made so far (the next one is number submitted() + 1). Lock-free: every submit
  // asks it.
  std::uint64_t submitted() const { return submitted_.load(std::memory_order_acquire); }
  // Records the next submission's completion (nullptr: nothing left to wait for).
  void record(const std::shared_ptr<CompletionImpl>& completion);
  // Counts the next submission without a completion here: its queue finds it another way (an AQL
  // queue's submission records). Under the submit mutex; no lock of its own.
  void count() { submitted_.store(submitted_.load(std::memory_order_relaxed) + 1, std::memory_order_release); }
  // What waiting for submission `number` (1-based) means now: its completion, or nullptr when
  // there is nothing to wait for (number 0, or the submission was released, which a Submission
  // is only once it completed). `number` past submitted() is the caller's error to report.
  std::shared_ptr<CompletionImpl> completion_of(std::uint64_t number) const;
  // Appends the completions of the submissions still held (not yet released) whose work has not
  // ended: what memory freed now must outlive (DeviceImpl::deallocate).
  void append_in_flight(std::vector<InFlight>& out) const;

 private:
  // The submit mutex and the count a submit takes under it share a cache line.
  SubmitMutex submit_mutex_;
  std::atomic<std::uint64_t> submitted_{0};  // written under the submit mutex (and mutex_ by record)
  mutable std::mutex mutex_;  // a leaf: never held while taking another lock
  // Weak: a timeline keeps nothing alive; a submission's own handle does until it completed. In
  // number order, with gaps where count() counted one.
  struct Entry {
    std::uint64_t number;
    std::weak_ptr<CompletionImpl> completion;
  };
  std::deque<Entry> recent_;
};

}  // namespace hsad::detail
