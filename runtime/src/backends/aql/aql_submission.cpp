// AqlSubmission: one wait, then everything it held goes back, except what a timed-out or
// abandoned submission may still read. AqlCompletion: the final signal, handed over to whoever
// waits for it on another queue, and given back when the last of them lets go.
#include "backends/aql/aql_submission.hpp"

#include <algorithm>

#include "backends/aql/aql_queue.hpp"
#include "hsad/error.hpp"

namespace hsad::detail {

AqlCompletion::AqlCompletion(std::shared_ptr<AqlQueue> queue, HeldSignal signal, std::string failed)
    : CompletionImpl(queue->device().shared_from_this()), queue_(std::move(queue)), signal_(signal),
      failed_(std::move(failed)) {}

AqlCompletion::~AqlCompletion() {
  if (signal_.signal.handle) queue_->give_back(signal_);
}

std::string AqlCompletion::failure() const {
  if (!failed_.empty()) return failed_;
  if (signal_.signal.handle && queue_->ring().failed() && queue_->agent().load_signal(signal_.signal) != 0) {
    return queue_->ring().error();
  }
  // Stuck behind a failed dependency of its own: it will never complete either.
  if (signal_.signal.handle && queue_->blocked() && queue_->agent().load_signal(signal_.signal) != 0) {
    return queue_->blocked_reason();
  }
  return {};
}

AqlSubmission::AqlSubmission(std::shared_ptr<AqlQueue> queue, const Options& options)
    : queue_(std::move(queue)), options_(options) {}

AqlSubmission::~AqlSubmission() { release_all(); }

void AqlSubmission::check_waits_for() const {
  for (const auto& w : waits_for) {
    const std::string why = w->failure();
    if (why.empty()) continue;
    const std::string text = "a submission this batch waits for failed: " + why;
    queue_->block(text);
    throw Error(queue_->agent().backend_name(), "wait", text,
                "this queue is blocked behind it; create a new queue");
  }
}

bool AqlSubmission::unblock_copies(Clock::time_point deadline) noexcept {
  for (hsa_signal_t s : copy_edges) queue_->agent().store_signal(s, 0);
  copy_edges.clear();
  try {
    for (hsa_signal_t s : copy_done) {
      if (!queue_->agent().wait_signal_zero(s, deadline, {})) return false;
    }
  } catch (...) {
    return false;
  }
  copy_done.clear();
  for (void* p : locked) queue_->agent().unlock_host(p);
  locked.clear();
  return true;
}

void AqlSubmission::wait(Clock::time_point deadline) {
  if (final_signal.handle != 0) {
    try {
      queue_->wait_zero(final_signal, deadline, "batch completion", this);
    } catch (const Error& e) {
      failed_ = e.what();
      const bool failed_queue = queue_->ring().failed();
      const bool failed_dependency = !failed_queue && queue_->blocked();
      // A failed queue runs nothing more: once its async copies have ended, its blocks and
      // signals are safe to reuse. After a timeout, or behind a failed dependency, packets may
      // still read them: they stay held.
      if ((failed_queue || failed_dependency) && !copy_done.empty()) {
        const bool copies_ended = unblock_copies(Clock::now() + std::chrono::seconds(5));
        if (!copies_ended) abandon_in_flight = true;
      }
      if (failed_queue && !abandon_in_flight) {
        final_signal = {0};
        release_all();
      }
      throw;
    }
    final_signal = {0};
  }
  if (options_.profile && !waited_ && !abandon_in_flight) read_times();  // the baseline's too: each was waited for
  waited_ = true;
  release_all();
  // Complete: a completion nobody else holds gives its signal back now; a queue's timeline then
  // finds nothing left to wait for. One a batch or an in-flight submission holds stays with it.
  shared_.reset();
}

bool AqlSubmission::release_if_complete() noexcept {
  if (abandon_in_flight) return false;
  if (final_signal.handle != 0) {
    if (queue_->agent().load_signal(final_signal) != 0) return false;
    final_signal = {0};
  }
  release_all();
  shared_.reset();
  return true;
}

void AqlSubmission::read_times() {
  times_.clear();
  times_.reserve(timed.size());
  for (const Timed& t : timed) {
    CommandTime c;
    c.command = t.command;
    c.what = t.what;
    queue_->agent().command_times(t.signal, t.async_copy, &c.start_ns, &c.end_ns);
    times_.push_back(std::move(c));
  }
}

std::vector<CommandTime> AqlSubmission::timestamps() const {
  if (!waited_) throw Error(queue_->agent().backend_name(), "timestamps", "the submission has not been waited for");
  return times_;
}

std::shared_ptr<CompletionImpl> AqlSubmission::completion() {
  if (shared_) return shared_;
  HeldSignal handed{};
  if (final_signal.handle != 0) {
    // The final signal now belongs to the completion: it must outlive this submission's wait for
    // as long as another batch may wait for it.
    if (step.signal.handle == final_signal.handle) {
      handed = step;
      step = {};
    } else {
      auto it = std::find_if(extra.begin(), extra.end(),
                             [&](const HeldSignal& h) { return h.signal.handle == final_signal.handle; });
      if (it != extra.end()) {
        handed = *it;
        extra.erase(it);
      }
    }
  }
  shared_ = std::make_shared<AqlCompletion>(queue_, handed, failed_);
  return shared_;
}

void AqlSubmission::release_tickets() {
  for (auto t : tickets) queue_->kernarg_pool().release(t);
  tickets.clear();
}

void AqlSubmission::release_all() noexcept {
  if (final_signal.handle != 0 || abandon_in_flight) return;  // still in flight: keep what it may read
  release_tickets();
  if (step.signal.handle) queue_->give_back(step);
  for (const HeldSignal& s : extra) queue_->give_back(s);
  step = {};
  extra.clear();
  for (void* p : locked) queue_->agent().unlock_host(p);
  locked.clear();
  if (own_kernarg) queue_->agent().free_kernarg(own_kernarg);
  own_kernarg = nullptr;
  waits_for.clear();
  code.reset();
}

}  // namespace hsad::detail
