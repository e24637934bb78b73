// Queue and Submission: deadlines from timeouts, and the destructor's bounded wait.
#include "hsad/queue.hpp"

#include <algorithm>
#include <atomic>
#include <deque>
#include <limits>
#include <optional>

#include "backends/backend.hpp"
#include "command_labels.hpp"
#include "completion_watcher.hpp"
#include "hot_path.hpp"
#include "hsad/error.hpp"
#include "native_handles.hpp"
#include "tool_ranges.hpp"

namespace hsad {

Submission::Submission() = default;
Submission::Submission(std::unique_ptr<detail::SubmissionImpl> impl) : impl_(std::move(impl)) {}
Submission::Submission(Submission&&) noexcept = default;
namespace {
// One host-time event of a traced submission, stamped now.
TraceEvent event_of(const detail::SubmissionImpl& sub, TraceEvent::Kind kind, std::int64_t command, std::string_view what) {
  TraceEvent e;
  e.kind = kind;
  e.queue = sub.traced->queue;
  e.submission = sub.serial;
  e.command = command;
  e.what = what;
  e.start_ns = e.end_ns = std::uint64_t(
      std::chrono::duration_cast<std::chrono::nanoseconds>(detail::Clock::now().time_since_epoch()).count());
  return e;
}
void report(const detail::SubmissionImpl& sub, TraceEvent::Kind kind, std::int64_t command, std::string_view what) {
  (*sub.traced->callback)(event_of(sub, kind, command, what));
}
}  // namespace

namespace {
// A handle let go without wait(): what it held comes back, with no host wait when it had already
// completed. Otherwise it waits, but no longer than the submit's own timeout (a little, where
// that has passed): then the submission is abandoned, and its queue keeps what the work still
// uses. One already abandoned is not waited for again. Errors were the caller's to see through
// wait(); this must not throw.
// `hurry`: a little only (work behind one that was abandoned will not end sooner).
void release(detail::SubmissionImpl* impl, bool hurry = false) noexcept {
  try {
    if (!impl || impl->release_if_complete() || impl->abandoned()) return;
    const auto now = detail::Clock::now();
    const auto little = now + std::chrono::milliseconds(10);
    impl->wait(hurry ? little : std::max(detail::deadline_after(impl->timeout), little));
  } catch (...) {
  }
}
}  // namespace

Submission& Submission::operator=(Submission&& o) noexcept {
  if (this != &o) {
    release(impl_.get());
    impl_ = std::move(o.impl_);
  }
  return *this;
}

Submission::~Submission() { release(impl_.get()); }

namespace detail {
Clock::time_point deadline_after(std::chrono::milliseconds timeout) {
  const Clock::time_point now = Clock::now();
  if (timeout <= std::chrono::milliseconds::zero()) return now;
  // now + milliseconds::max() overflows the clock's nanoseconds: anything past its end is forever.
  if (timeout >= std::chrono::duration_cast<std::chrono::milliseconds>(Clock::time_point::max() - now)) {
    return Clock::time_point::max();
  }
  return now + timeout;
}
}  // namespace detail

namespace {
// The backend's wait, its error naming the submission (and the command, where the backend found
// it); then memory parked behind the work that has now ended goes back. A traced submission
// reports how the wait ended, once.
void wait_naming_errors(detail::SubmissionImpl& sub, detail::Clock::time_point deadline) {
  if (sub.failure) throw *sub.failure;
  try {
    sub.wait(deadline);
  } catch (const Error& e) {
    const Error named = e.submission() != 0 ? e : e.at(sub.serial, sub.failed_command);
    if (named.code() != Errc::timeout) sub.failure = std::make_unique<Error>(named);
    if (sub.traced && !sub.traced->reported) {
      sub.traced->reported = true;
      const bool abandoned = named.code() == Errc::timeout && sub.abandoned();
      if (abandoned || named.code() != Errc::timeout) {
        report(sub, abandoned ? TraceEvent::Kind::abandon : TraceEvent::Kind::fault, sub.failed_command, named.what());
      }
    }
    if (e.submission() != 0) throw;
    throw named;
  }
  sub.device->release_parked();
  if (sub.traced && !sub.traced->reported) {
    sub.traced->reported = true;
    if (sub.traced->profiled) {
      for (const CommandTime& t : sub.timestamps()) {
        TraceEvent c;
        c.kind = TraceEvent::Kind::command;
        c.queue = sub.traced->queue;
        c.submission = sub.serial;
        c.command = t.command;
        c.what = t.what;
        c.start_ns = t.start_ns;
        c.end_ns = t.end_ns;
        (*sub.traced->callback)(c);
      }
    }
    report(sub, TraceEvent::Kind::complete, -1, sub.traced->summary);
  }
}
}  // namespace

void Submission::wait(std::chrono::milliseconds timeout) {
  if (impl_) wait_naming_errors(*impl_, detail::deadline_after(timeout));
}

bool Submission::ready() const { return !impl_ || impl_->ready(); }

void Submission::on_complete(std::function<void(const Error*)> callback) && {
  if (!impl_) throw Error(Errc::invalid_argument, "queue", "on_complete", "the Submission is empty (moved from, or default-constructed)");
  if (!callback) throw Error("queue", "on_complete", "an empty callback");
  detail::watch(std::move(*this), std::move(callback));
}

std::vector<CommandTime> Submission::timestamps() const {
  if (!impl_) throw Error(Errc::invalid_argument, "queue", "timestamps", "the Submission is empty");
  return impl_->timestamps();
}

std::uint64_t Submission::loop_iterations(std::size_t loop) const {
  if (!impl_) throw Error(Errc::invalid_argument, "queue", "loop_iterations", "the Submission is empty");
  if (loop >= impl_->loops) {
    throw Error("queue", "loop_iterations",
                "loop " + std::to_string(loop) + " of a batch of " + std::to_string(impl_->loops) + " loops",
                "loops are numbered 0 to Batch::loop_count() - 1 in recording order");
  }
  if (impl_->loop_iterations.size() != impl_->loops) {
    throw Error("queue", "loop_iterations", "the submission has not been waited for",
                "call wait() first: the count is read once the loop ended");
  }
  return impl_->loop_iterations[loop];
}

std::shared_ptr<detail::CompletionImpl> Submission::completion() const {
  return impl_ ? impl_->completion() : nullptr;
}

namespace {
// What each wait of `batch` means for the submission `self` is about to make (its number is
// self.timeline.submitted() + 1; the caller holds its submit mutex). Out of line: the submit path
// of a batch without waits stays short (hot_path.hpp).
[[gnu::noinline]] detail::ResolvedWaits resolve_nonempty_waits(const Batch& batch, detail::QueueImpl& self) {
  detail::ResolvedWaits resolved;
  resolved.reserve(batch.waits().size());
  const std::uint64_t before = self.timeline.submitted();
  for (const detail::Wait& w : batch.waits()) {
    if (w.completion) {
      resolved.push_back(w.completion);
      continue;
    }
    if (w.native) {
      // The application's signal or event; or one of the library's handles whose submission
      // was gone when the batch was recorded, and so completed (the backend tells which).
      if (auto own = detail::find_native_handle(w.native)) resolved.push_back(std::move(own));
      else resolved.push_back(self.native_wait(w.native));
      continue;
    }
    // A huge offset would wrap into "nothing to wait for": past the end, it waits for a
    // submission no queue has made, refused below.
    std::int64_t number = 0;
    if (__builtin_add_overflow(std::int64_t(before), w.offset, &number)) number = std::numeric_limits<std::int64_t>::max();
    if (number <= 0) {
      resolved.push_back(nullptr);
      continue;
    }
    const std::uint64_t made = w.queue->timeline.submitted();
    if (std::uint64_t(number) > made) {
      throw Error(Errc::invalid_argument, self.owner().info().backend, "submit",
                  "the batch waits for submission " + std::to_string(number) + " of a queue that has made " +
                      std::to_string(made) + " (this queue has made " + std::to_string(before) + ", offset " +
                      std::to_string(w.offset) + ")",
                  "submit to the other queue first, or wait for an earlier submission of it");
    }
    resolved.push_back(w.queue->completion_of(std::uint64_t(number)));
  }
  return resolved;
}
detail::ResolvedWaits resolve_waits(const Batch& batch, detail::QueueImpl& self) {
  return batch.waits().empty() ? detail::ResolvedWaits() : resolve_nonempty_waits(batch, self);
}
Options with_nosync(Options o) {
  o.nosync = true;
  return o;
}
// Submit's refusals, out of line: the checks every submit pays stay a few compares.
[[noreturn, gnu::cold, gnu::noinline]] void refuse_behind(const detail::DeviceImpl& device, std::string running) {
  throw Error(Errc::queue_stopped, device.info().backend, "submit", running + ": this queue runs nothing after it",
              "other queues of the device still run; Device::reset() stops it where the backend can");
}
[[noreturn, gnu::cold, gnu::noinline]] void refuse_open_loop(const detail::DeviceImpl& device) {
  throw Error(Errc::invalid_argument, device.info().backend, "submit",
              "the batch has a loop_begin() without its loop_while(): its loop is not closed",
              "end the loop's commands with loop_while(condition, max_iterations)");
}
// The profilers' name of a submission's range (tool_ranges.hpp), built only where one is attached.
[[gnu::cold, gnu::noinline]] std::string range_name(const detail::QueueImpl& q, const Batch& batch) {
  return "hsad queue " + std::to_string(q.id) + " submission " + std::to_string(q.timeline.submitted() + 1) + ": " +
         (batch.labels() ? detail::summarize_commands(*batch.labels()) : std::string("empty"));
}
// Device::set_trace is on: the submission keeps what its later events need.
[[gnu::noinline]] void keep_trace(detail::SubmissionImpl& sub, std::shared_ptr<const TraceCallback> trace,
                                  const detail::QueueImpl& q, const Batch& batch, const Options& effective) {
  auto t = std::make_unique<detail::SubmissionImpl::Traced>();
  t->callback = std::move(trace);
  t->queue = q.id;
  t->summary = batch.labels() ? detail::summarize_commands(*batch.labels()) : std::string();
  t->profiled = effective.profile;
  sub.traced = std::move(t);
}
// And its submit is reported, with the submit mutex given back first (the callback may submit,
// to this queue too).
[[gnu::noinline]] void trace_submit(detail::SubmissionImpl& sub, std::shared_ptr<const TraceCallback> trace,
                                    const detail::QueueImpl& q, const Batch& batch, const Options& effective,
                                    std::unique_lock<detail::SubmitMutex>& lock) {
  keep_trace(sub, std::move(trace), q, batch, effective);
  lock.unlock();
  try {
    report(sub, TraceEvent::Kind::submit, -1, sub.traced->summary);
  } catch (...) {
    // A callback that throws (it must not): the work is out, so it is waited for as a handle
    // let go without wait() is, never dropped while the device still counts on its signal.
    release(&sub);
    throw;
  }
}
}  // namespace

HSAD_HOT Submission Queue::submit(const Batch& batch, const Options& options, std::chrono::milliseconds timeout) {
  return Submission(submit_impl(batch, options, detail::Deadline(timeout)));
}

namespace {
// What every submit and enqueue refuses first, under the submit mutex.
HSAD_HOT inline void admit(detail::QueueImpl& q, detail::DeviceImpl& device, const Batch& batch) {
  device.check_generation(q.generation, "queue", "submit");
  device.release_parked();
  if (std::string running = q.still_running(); !running.empty()) refuse_behind(device, std::move(running));
  if (batch.loop_open()) refuse_open_loop(device);
}
// The backend's submission of `batch`, counted in the timeline. Under the submit mutex.
HSAD_HOT inline std::unique_ptr<detail::SubmissionImpl> make_submission(detail::QueueImpl& q, detail::DeviceImpl& device,
                                                                       const Batch& batch, const Options& effective,
                                                                       const detail::Deadline& deadline) {
  auto sub = q.submit(batch, effective, deadline, resolve_waits(batch, q));
  sub->timeout = deadline.timeout();
  sub->device = &device;
  sub->loops = batch.loop_count();
  q.record(*sub);
  return sub;
}
[[noreturn, gnu::cold, gnu::noinline]] void refuse_empty(const char* call) {
  throw Error(Errc::invalid_argument, "queue", call, "the Queue is empty (moved from, or default-constructed)");
}
}  // namespace

HSAD_HOT std::unique_ptr<detail::SubmissionImpl> Queue::submit_impl(const Batch& batch, const Options& options,
                                                           const detail::Deadline& deadline) {
  if (!impl_) refuse_empty("submit");
  detail::QueueImpl& q = *impl_;
  std::unique_lock<detail::SubmitMutex> lock(q.timeline.submit_mutex());
  // As Queue::enqueue: the backend's own replay first, where it can tell the checks would pass.
  if (auto sub = q.submit_bare(batch, options, deadline.timeout())) return sub;
  detail::DeviceImpl& device = q.owner();
  admit(q, device, batch);
  // A replayed batch is one image with one completion: replay implies nosync.
  const Options& effective = options.replay && !options.nosync ? with_nosync(options) : options;
  // NVTX and roctx: one range around what the submit does (the launches, a graph, the packets).
  const detail::ToolRange range([&] { return range_name(q, batch); });
  auto sub = make_submission(q, device, batch, effective, deadline);
  if (auto trace = device.trace()) trace_submit(*sub, std::move(trace), q, batch, effective, lock);
  return sub;
}

namespace {
// The queue holds as much enqueued work as EnqueuedWork's bounds allow: past them, the oldest is
// waited for here, without the submit mutex (its wait may report to a trace callback, which may
// submit) and in the wait's turn (a finish() meanwhile waits for it), as a full ring makes a
// submit wait. Its error is kept for the next finish(); a wait past the deadline puts it back and
// throws, the submission abandoned as a wait abandons it.
[[gnu::noinline]] void make_room(detail::QueueImpl& q, std::size_t commands, detail::Clock::time_point deadline,
                                 std::unique_lock<detail::SubmitMutex>& lock) {
  q.enqueued.reap();
  if (!q.enqueued.full_for(commands)) return;
  lock.unlock();  // the wait's turn first, then the submit mutex (EnqueuedWork::wait_turn)
  const detail::EnqueuedWork::Turn turn = q.enqueued.wait_turn(deadline, "enqueue");
  lock.lock();
  while (q.enqueued.full_for(commands)) {
    std::optional<detail::EnqueuedWork::Held> oldest = q.enqueued.take_oldest();
    lock.unlock();
    try {
      wait_naming_errors(*oldest->sub, deadline);
    } catch (const Error& e) {
      lock.lock();
      if (e.code() != Errc::timeout) {
        q.enqueued.note_error(e);
        continue;
      }
      q.enqueued.put_back(std::move(*oldest));
      throw Error(Errc::timeout, e.backend(), "enqueue",
                  e.status() + " (waited for as the oldest of " + std::to_string(detail::EnqueuedWork::kMaxSubmissions) +
                      " unfinished enqueued submissions)",
                  "call finish() now and then, or raise the timeout");
    } catch (...) {
      lock.lock();  // a trace callback's own exception: the work is still the queue's
      q.enqueued.put_back(std::move(*oldest));
      throw;
    }
    oldest.reset();  // what it held goes back before the next look
    lock.lock();
  }
}
}  // namespace

HSAD_HOT void Queue::enqueue(const Batch& batch, const Options& options, std::chrono::milliseconds timeout) {
  if (!impl_) refuse_empty("enqueue");
  detail::QueueImpl& q = *impl_;
  std::unique_lock<detail::SubmitMutex> lock(q.timeline.submit_mutex());
  // The backend's send without a submission, where it can: it checks for itself what would make
  // the checks below refuse, in the lines it reads anyway (after a large graph's launch each line
  // read costs about 0.1 us: docs/results.md, issue 60).
  if (q.enqueue_bare(batch, options, timeout)) return;
  detail::DeviceImpl& device = q.owner();
  admit(q, device, batch);
  const Options& effective = options.replay && !options.nosync ? with_nosync(options) : options;
  std::shared_ptr<const TraceCallback> trace = device.trace();
  const detail::ToolRange range([&] { return range_name(q, batch); });
  const detail::Deadline deadline(timeout);
  if (q.enqueued.size()) {
    make_room(q, batch.size(), deadline, lock);
    admit(q, device, batch);  // what the mutex let happen meanwhile (a reset, an abandon)
  }
  auto sub = make_submission(q, device, batch, effective, deadline);
  if (!trace) {
    q.enqueued.keep(std::move(sub), batch.size());
    return;
  }
  // Reported from a copy: once the mutex is given back, a finish() on another thread may end it.
  keep_trace(*sub, trace, q, batch, effective);
  const TraceEvent submitted = event_of(*sub, TraceEvent::Kind::submit, -1, sub->traced->summary);
  q.enqueued.keep(std::move(sub), batch.size());
  lock.unlock();
  (*trace)(submitted);
}

void Queue::finish(std::chrono::milliseconds timeout) {
  if (!impl_) refuse_empty("finish");
  detail::QueueImpl& q = *impl_;
  const detail::Clock::time_point deadline = detail::deadline_after(timeout);
  const detail::EnqueuedWork::Turn turn = q.enqueued.wait_turn(deadline, "finish");
  std::deque<detail::EnqueuedWork::Held> mine;
  std::optional<Error> first;  // in enqueue order: one found while making room came first
  {
    std::lock_guard<detail::SubmitMutex> lock(q.timeline.submit_mutex());
    mine = q.enqueued.take_all();
    first = q.enqueued.take_error();
  }
  // What is not waited for yet goes back, before anything enqueued since, for a later finish();
  // so does an error found before it.
  const auto put_back = [&] {
    std::lock_guard<detail::SubmitMutex> lock(q.timeline.submit_mutex());
    q.enqueued.put_back(std::move(mine));
    if (first) q.enqueued.note_error(*first);
  };
  for (; !mine.empty(); mine.pop_front()) {
    try {
      wait_naming_errors(*mine.front().sub, deadline);
    } catch (const Error& e) {
      if (e.code() != Errc::timeout) {
        if (!first) first = e;
        continue;
      }
      put_back();  // abandoned and still running: it and what follows
      throw;
    } catch (...) {
      put_back();  // a trace callback's own exception: the work is still the queue's
      throw;
    }
  }
  try {
    q.finish_bare(deadline);
  } catch (const Error& e) {
    // The earlier of the two in the queue's numbering: a fault of a launch the count had not
    // passed comes before the held submissions behind it that failed with the stream.
    if (!first || (e.code() != Errc::timeout && e.submission() != 0 && e.submission() < first->submission())) throw;
  }
  if (first) throw *first;
}

namespace detail {
namespace {
// Holds the queue for the application's handles (with_front).
class QueueFront {
 public:
  explicit QueueFront(std::shared_ptr<QueueImpl> queue) : queue_(std::move(queue)) {}
  QueueFront(const QueueFront&) = delete;
  QueueFront& operator=(const QueueFront&) = delete;
  // Each enqueued submission as a dropped Submission: waited for up to its timeout, else
  // abandoned, its errors lost; then what the backend sent bare.
  ~QueueFront() {
    std::deque<EnqueuedWork::Held> left;
    {
      std::lock_guard<SubmitMutex> lock(queue_->timeline.submit_mutex());
      left = queue_->enqueued.take_all();
      (void)queue_->enqueued.take_error();
    }
    bool hurry = false;
    for (const auto& held : left) {
      release(held.sub.get(), hurry);
      hurry = hurry || held.sub->abandoned();
    }
    left.clear();
    queue_->let_go_bare();
  }

 private:
  std::shared_ptr<QueueImpl> queue_;
};
}  // namespace

std::shared_ptr<QueueImpl> with_front(std::shared_ptr<QueueImpl> queue) {
  QueueImpl* raw = queue.get();
  return std::shared_ptr<QueueImpl>(std::make_shared<QueueFront>(std::move(queue)), raw);
}
}  // namespace detail

void Queue::run(const Batch& batch, const Options& options, std::chrono::milliseconds timeout) {
  const detail::Deadline deadline(timeout);
  auto sub = submit_impl(batch, options, deadline);
  wait_naming_errors(*sub, deadline.at());
}

std::uint64_t Queue::submissions() const {
  if (!impl_) refuse_empty("submissions");
  return impl_->timeline.submitted();
}

std::uint32_t Queue::size() const {
  if (!impl_) refuse_empty("size");
  return impl_->size();
}

std::uint64_t Queue::id() const {
  if (!impl_) throw Error(Errc::invalid_argument, "queue", "id", "the Queue is empty (moved from, or default-constructed)");
  return impl_->id;
}

std::uint64_t detail::QueueImpl::next_id() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace hsad
