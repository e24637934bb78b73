// AqlSubmission: one wait, then everything it held goes back, except what a timed-out or
// abandoned submission may still read. AqlCompletion: the final signal, handed over to whoever
// waits for it on another queue, and given back when the last of them lets go.
#include "backends/aql/aql_submission.hpp"

#include <algorithm>
#include <utility>

#include "backends/aql/aql_queue.hpp"
#include "command_labels.hpp"
#include "graveyard.hpp"

#include <thread>
#include "hsad/error.hpp"
#include "loop_control.hpp"
#include "pools/recycled_blocks.hpp"

namespace hsad::detail {

AqlCompletion::AqlCompletion(std::shared_ptr<AqlQueue> queue, HeldSignal signal, const std::string& failed)
    : CompletionImpl(queue->device()), queue_(std::move(queue)), signal_(signal), failed_(failed) {}

AqlCompletion::AqlCompletion(std::shared_ptr<AqlQueue> queue, hsa_signal_t external)
    : CompletionImpl(queue->device()), queue_(std::move(queue)), signal_{external, false},
      external_(true) {}

AqlCompletion::~AqlCompletion() {
  if (zero_.handle) queue_->agent().destroy_signal(zero_);
  if (signal_.signal.handle && !external_) queue_->give_back(signal_);
}

std::uint64_t AqlCompletion::native_handle() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (signal_.signal.handle) return signal_.signal.handle;
  // Without a signal it completed, or was abandoned after a timeout (failed_ says why): that one is
  // never seen to complete, so its handle stays 1.
  if (!zero_.handle) zero_ = queue_->agent().create_signal(failed_.empty() ? 0 : 1);
  return zero_.handle;
}

HeldSignal AqlCompletion::take_signal(std::string why) {
  std::lock_guard<std::mutex> lock(mutex_);
  failed_ = std::move(why);
  return std::exchange(signal_, HeldSignal{});
}

bool AqlCompletion::ended() const {
  hsa_signal_t signal;
  bool abandoned;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    signal = signal_.signal;
    abandoned = !failed_.empty();
  }
  if (!signal.handle) return !abandoned;  // abandoned: it still runs (the device counts as stuck)
  return queue_->agent().load_signal(signal) == 0 || (!external_ && queue_->ring().failed());
}

std::string AqlCompletion::failure() const {
  hsa_signal_t signal;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!failed_.empty()) return failed_;
    signal = signal_.signal;
  }
  if (external_) return {};  // the application's: nothing here knows whether its producer failed
  if (signal.handle && queue_->ring().failed() && queue_->agent().load_signal(signal) != 0) {
    return queue_->ring().error();
  }
  // Stuck behind a failed dependency of its own: it will never complete either.
  if (signal.handle && queue_->blocked() && queue_->agent().load_signal(signal) != 0) {
    return queue_->blocked_reason();
  }
  return {};
}

AqlSubmission::AqlSubmission(std::shared_ptr<AqlQueue> queue, const Options& options)
    : queue_(std::move(queue)), options_(options) {}

AqlSubmission::~AqlSubmission() {
  if (abandoned_ && !release_if_complete()) {
    // Still running: the code it runs and the submissions it waits for must outlive it; its
    // kernarg blocks and other signals stay taken from the queue's pools.
    keep_forever(std::shared_ptr<const void>(code));
    if (image) keep_forever(std::shared_ptr<const void>(image));  // its kernarg blocks are read
    for (auto& w : waits_for) keep_forever(std::shared_ptr<const void>(w));
    return;
  }
  release_all();
}

void AqlSubmission::check_waits_for() const {
  for (const auto& w : waits_for) {
    const std::string why = w->failure();
    if (why.empty()) continue;
    const std::string text = "a submission this batch waits for failed: " + why;
    queue_->block(text);
    throw Error(Errc::queue_stopped, queue_->agent().backend_name(), "wait", text,
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

std::string AqlSubmission::describe() const {
  return describe_submission(serial, command_labels());
}

std::string AqlSubmission::where_it_failed() const {
  const std::vector<std::string>* names = command_labels();
  if (!names || names->empty()) return {};
  // The packet that faulted: the agent's own account where it has one; otherwise the last packet
  // the packet processor consumed (it consumes a barrier packet only once what precedes it ended).
  std::uint64_t packet = queue_->ring().failed_packet();
  if (packet == UINT64_MAX) {
    const std::uint64_t read = queue_->ring().load_read_index();
    if (read == 0) return {};
    packet = read - 1;
  }
  // A barrier packet the writer added belongs to no command: the command is the one before it.
  for (int back = 0; back < 4 && packet >= std::uint64_t(back); ++back) {
    const AqlQueue::SlotOwner owner = queue_->slot_owner(packet - back);
    if (owner.serial == 0) continue;
    if (owner.serial != serial) return " (the fault was in submission " + std::to_string(owner.serial) + " of the queue)";
    const_cast<AqlSubmission*>(this)->failed_command = owner.command;
    return " in " + describe_commands(*names, owner.command, owner.command);
  }
  return {};
}

void AqlSubmission::abandon() {
  abandoned_ = true;
  abandon_in_flight = true;
  const std::string what = describe() + " timed out and still runs";
  const HeldSignal held = shared_ ? shared_->take_signal("abandoned: " + what) : take_final_signal();
  if (held.signal.handle) queue_->abandon(held, what);
}

void AqlSubmission::wait(Clock::time_point deadline) {
  if (abandoned_) {
    // Waited again after a timeout: the queue holds the signal while the work runs.
    const Clock::time_point began = Clock::now();
    while (queue_->abandoned_still_running(final_signal)) {
      queue_->ring().look_for_stop(Clock::now() - began);
      queue_->agent().throw_if_faulted();
      queue_->ring().throw_if_failed();
      if (Clock::now() > deadline) {
        throw TimeoutError(queue_->agent().backend_name(), "wait", describe() + " still runs",
                           "raise the timeout, or look for a kernel that never ends");
      }
      std::this_thread::yield();
    }
    final_signal = {0};
    abandoned_ = abandon_in_flight = false;
  }
  if (final_signal.handle != 0) {
    try {
      queue_->wait_zero(final_signal, deadline, "batch completion", this);
    } catch (const TimeoutError& e) {
      failed_ = std::string(e.what()) + ": " + describe() + " is abandoned and still runs";
      abandon();
      throw TimeoutError(e.backend(), e.call(), e.status() + ": " + describe() + " is abandoned",
                         "its queue runs nothing more until it ends; Device::reset() stops it where the backend can");
    } catch (const Error& e) {
      const std::string where = where_it_failed();
      failed_ = e.what() + where;
      const bool failed_queue = queue_->ring().failed();
      const bool failed_dependency = !failed_queue && queue_->blocked();
      // A failed queue runs nothing more: once its async copies have ended, its blocks and
      // signals are safe to reuse. Behind a failed dependency, packets may still read them: they
      // stay held.
      if ((failed_queue || failed_dependency) && !copy_done.empty()) {
        const bool copies_ended = unblock_copies(Clock::now() + std::chrono::seconds(5));
        if (!copies_ended) abandon_in_flight = true;
      }
      if (failed_queue && !abandon_in_flight) {
        final_signal = {0};
        release_all();
      }
      if (where.empty()) throw;
      throw Error(e.code(), e.backend(), e.call(), e.status() + where, e.hint());
    }
    final_signal = {0};
  }
  if (options_.profile && !waited_ && !abandon_in_flight) read_times();  // the baseline's too: each was waited for
  const std::string over_guard = !waited_ && !loop_programs.empty() ? read_loops() : std::string();
  waited_ = true;
  release_all();
  // Complete: a completion nobody else holds gives its signal back now; a queue's timeline then
  // finds nothing left to wait for. One a batch or an in-flight submission holds stays with it.
  shared_.reset();
  if (!over_guard.empty()) {
    throw Error(Errc::loop_limit, queue_->agent().backend_name(), "wait", over_guard,
                "raise max_iterations, or look at what the loop's kernels write into its condition");
  }
}

std::string AqlSubmission::read_loops() {
  loop_iterations.clear();
  std::string over;
  for (std::size_t i = 0; i < loop_programs.size(); ++i) {
    const loop::Program& p = *loop_programs[i];
    loop_iterations.push_back(p.iterations);
    if (p.status == loop::guard_reached && over.empty()) {
      over = "loop " + std::to_string(i) + " of " + describe() + " reached its max_iterations (" +
             std::to_string(p.max_iterations) + ") with its condition still non-zero";
    }
  }
  loop_programs.clear();  // their memory goes back with the tickets
  return over;
}

bool AqlSubmission::ready() {
  if (waited_) return true;
  const bool failed = queue_->ring().failed() || queue_->blocked();
  if (abandoned_) return failed || !queue_->abandoned_still_running(final_signal);
  return failed || final_signal.handle == 0 || queue_->agent().load_signal(final_signal) == 0;
}

bool AqlSubmission::release_if_complete() noexcept {
  if (abandoned_) {
    // The queue holds the final signal; once the work ended, the rest comes back.
    if (queue_->abandoned_still_running(final_signal)) return false;
    final_signal = {0};
    abandoned_ = abandon_in_flight = false;
  }
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
  if (!waited_) throw Error(Errc::invalid_argument, queue_->agent().backend_name(), "timestamps", "the submission has not been waited for");
  return times_;
}

std::shared_ptr<CompletionImpl> AqlSubmission::completion() {
  if (shared_) return shared_;
  // The final signal now belongs to the completion: it must outlive this submission's wait for as
  // long as another batch may wait for it.
  shared_ = std::allocate_shared<AqlCompletion>(RecycledAllocator<AqlCompletion>{}, queue_, take_final_signal(), failed_);
  return shared_;
}

HeldSignal AqlSubmission::take_final_signal() {
  if (final_signal.handle == 0) return {};
  if (step.signal.handle == final_signal.handle) return std::exchange(step, HeldSignal{});
  auto it = std::find_if(extra.begin(), extra.end(),
                         [&](const HeldSignal& h) { return h.signal.handle == final_signal.handle; });
  if (it == extra.end()) return {};
  const HeldSignal taken = *it;
  extra.erase(it);
  return taken;
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
  image.reset();
}

}  // namespace hsad::detail
