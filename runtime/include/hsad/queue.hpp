// Queue and Submission: a batch goes out under Options; the host waits once, with a timeout.
#pragma once

#include <chrono>
#include <memory>

#include "hsad/batch.hpp"
#include "hsad/options.hpp"

namespace hsad {

namespace detail { class QueueImpl; class SubmissionImpl; }

inline constexpr std::chrono::milliseconds kDefaultTimeout{30000};

// What a submission still holds until it is waited for: its completion signal, kernarg blocks.
// Waiting is required to see errors; the destructor waits too (swallowing errors) so nothing leaks.
class Submission {
 public:
  Submission() = default;
  explicit Submission(std::unique_ptr<detail::SubmissionImpl> impl);
  Submission(Submission&&) noexcept;
  Submission& operator=(Submission&&) noexcept;
  ~Submission();

  // Blocks until every dispatch of the batch has completed. Throws hsad::Error on a timeout
  // or when the queue failed (a kernel that faulted or threw).
  void wait(std::chrono::milliseconds timeout = kDefaultTimeout);

 private:
  std::unique_ptr<detail::SubmissionImpl> impl_;
};

class Queue {
 public:
  Queue() = default;
  explicit Queue(std::shared_ptr<detail::QueueImpl> impl) : impl_(std::move(impl)) {}

  // Writes the batch's packets under `options` and rings the doorbell. Without `nosync` it
  // already waits on the host after every dispatch, as the baseline does.
  Submission submit(const Batch& batch, const Options& options,
                    std::chrono::milliseconds timeout = kDefaultTimeout);
  // submit + wait.
  void run(const Batch& batch, const Options& options, std::chrono::milliseconds timeout = kDefaultTimeout);

  std::uint32_t size() const;  // ring size in packets
  explicit operator bool() const { return impl_ != nullptr; }
  detail::QueueImpl& impl() const { return *impl_; }

 private:
  std::shared_ptr<detail::QueueImpl> impl_;
};

}  // namespace hsad
