// Queue and Submission: deadlines from timeouts, and the destructor's bounded wait.
#include "hsad/queue.hpp"

#include "backends/backend.hpp"
#include "hsad/error.hpp"

namespace hsad {

Submission::Submission() = default;
Submission::Submission(std::unique_ptr<detail::SubmissionImpl> impl) : impl_(std::move(impl)) {}
Submission::Submission(Submission&&) noexcept = default;
Submission& Submission::operator=(Submission&& o) noexcept {
  if (this != &o) {
    try {
      if (impl_) impl_->wait(detail::Clock::now() + kDefaultTimeout);
    } catch (...) {
    }
    impl_ = std::move(o.impl_);
  }
  return *this;
}

Submission::~Submission() {
  // A submission that was never waited for still holds pool blocks and signals: take them back.
  // Errors were the caller's to see through wait(); a destructor must not throw.
  try {
    if (impl_) impl_->wait(detail::Clock::now() + kDefaultTimeout);
  } catch (...) {
  }
}

void Submission::wait(std::chrono::milliseconds timeout) {
  if (impl_) impl_->wait(detail::Clock::now() + timeout);
}

std::vector<CommandTime> Submission::timestamps() const {
  if (!impl_) throw Error("queue", "timestamps", "the Submission is empty");
  return impl_->timestamps();
}

std::shared_ptr<detail::CompletionImpl> Submission::completion() const {
  return impl_ ? impl_->completion() : nullptr;
}

Submission Queue::submit(const Batch& batch, const Options& options, std::chrono::milliseconds timeout) {
  return Submission(impl_->submit(batch, options, detail::Clock::now() + timeout));
}

void Queue::run(const Batch& batch, const Options& options, std::chrono::milliseconds timeout) {
  const auto deadline = detail::Clock::now() + timeout;
  auto s = impl_->submit(batch, options, deadline);
  s->wait(deadline);
}

std::uint32_t Queue::size() const { return impl_->size(); }

}  // namespace hsad
