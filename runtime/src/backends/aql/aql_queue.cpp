// The AQL queue: pools made at setup, the ring's back-pressure, host waits, and the checks a
// submission passes before anything is written. Lowering the commands is AqlBatchWriter's.
#include "backends/aql/aql_queue.hpp"

#include <algorithm>
#include <sstream>

#include <cstddef>
#include <cstring>

#include <thread>

#include "backends/aql/aql_batch_writer.hpp"
#include "backends/aql/aql_image_writer.hpp"
#include "loop_control.hpp"
#include "graveyard.hpp"
#include "hsad/error.hpp"

namespace hsad::detail {

namespace {
std::size_t round_up64(std::size_t n) { return (n + 63) & ~std::size_t(63); }
}  // namespace

AqlQueue::AqlQueue(std::shared_ptr<DeviceImpl> owner, AqlAgent& agent, std::unique_ptr<AqlRing> ring, Config config)
    : owner_(std::move(owner)), agent_(agent), counters_(owner_->counters()), ring_(std::move(ring)),
      slot_owner_(ring_->size()), cooperative_(config.cooperative) {
  // Both pools are made here, at setup; the counters show it once per queue.
  kernarg_memory_ = agent_.alloc_kernarg(config.kernarg_pool_bytes);
  counters_.kernarg_allocations.fetch_add(1, std::memory_order_relaxed);
  kernarg_pool_ = std::make_unique<KernargPool>(kernarg_memory_, config.kernarg_pool_bytes);
  signal_pool_ = std::make_unique<SignalPool>(
      config.signal_pool_size,
      [this] {
        counters_.signals_created.fetch_add(1, std::memory_order_relaxed);
        return agent_.create_signal(0).handle;
      },
      [this](SignalPool::Handle h) { agent_.destroy_signal(hsa_signal_t{h}); });
  records_ = std::make_unique<AqlRecords>(agent_, counters_);
  doorbell_line_ = ring_->doorbell_line();
  ring_mask_ = ring_->size() - 1;
  ring_base_ = static_cast<unsigned char*>(ring_->base());
}

AqlQueue::~AqlQueue() {
  // What this queue counted itself stays in the device's counts.
  counters_.packets.fetch_add(own_packets_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  counters_.doorbells.fetch_add(own_doorbells_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  // Stops the ring first (the packet processor, or ROCr's queue) before its kernarg memory and
  // signals go. Where work could not be stopped, it keeps all of them.
  shut_down("the queue was destroyed");
  if (left_running_) {
    keep_forever(std::move(ring_));
    if (loop_ring_) keep_forever(std::move(loop_ring_));
    if (loop_working_) keep_forever(std::move(loop_working_));
    keep_forever(std::move(kernarg_pool_));
    keep_forever(std::move(signal_pool_));
    keep_forever(std::move(records_));
    return;
  }
  {
    std::lock_guard<std::mutex> lock(abandoned_mutex_);
    for (const Abandoned& a : abandoned_) give_back(a.signal);
    abandoned_.clear();
  }
  signal_pool_.reset();
  records_.reset();
  kernarg_pool_.reset();
  loop_ring_.reset();
  loop_working_.reset();  // after the ring: no control kernel runs any more
  ring_.reset();
  agent_.free_kernarg(kernarg_memory_);
}

void AqlQueue::shut_down(const std::string& why) {
  if (!ring_) return;
  // A loop still running writes into its own ring only: stopped first, it writes no more.
  const bool loops_stopped = !loop_ring_ || loop_ring_->shut_down(why);
  const bool stopped = ring_->shut_down(why) && loops_stopped;
  if (!stopped && !left_running_) {
    left_running_ = true;
    std::string what;
    {
      std::lock_guard<std::mutex> lock(abandoned_mutex_);
      if (!abandoned_.empty()) what = abandoned_.front().what;
    }
    // The ring is kept for good from here on (the destructor), so the device may ask it later.
    const AqlRing* ring = ring_.get();
    const AqlRing* loops = loop_ring_.get();
    owner_->note_left_running((what.empty() ? std::string("a dispatch that did not return") : what) +
                                  " (left running when its queue stopped)",
                              [ring, loops] { return ring->left_work_running() || (loops && loops->left_work_running()); });
  }
  block(why);
  if (left_running_) return;
  // Nothing runs any more: what abandoned submissions held is free again.
  std::lock_guard<std::mutex> lock(abandoned_mutex_);
  for (const Abandoned& a : abandoned_) give_back(a.signal);
  abandoned_.clear();
}

bool AqlQueue::earlier_work_in_flight() {
  const std::shared_ptr<CompletionImpl> previous = completion_of(timeline.submitted());
  if (!previous) return false;  // none, or released: a Submission is released once it completed
  const hsa_signal_t s = static_cast<const AqlCompletion&>(*previous).signal();
  return s.handle != 0 && agent_.load_signal(s) != 0;
}

std::shared_ptr<CompletionImpl> AqlQueue::native_wait(std::uint64_t handle) {
  if (!agent_.takes_native_signals()) {
    std::ostringstream h;
    h << "0x" << std::hex << handle;
    throw Error(Errc::invalid_argument, agent_.backend_name(), "wait_native",
                "handle " + h.str() + " is not the native handle of a live submission of this backend",
                "the cpu agent waits only for Submission::native_handle() of its own submissions that still exist");
  }
  return std::make_shared<AqlCompletion>(shared_from_this(), hsa_signal_t{handle});
}

void AqlQueue::record(SubmissionImpl& s) {
  auto& sub = static_cast<AqlSubmission&>(s);
  if (sub.step.record && sub.final_signal.handle == sub.step.signal.handle) {
    records_->publish(*sub.step.record, timeline.submitted() + 1);
    timeline.count();
    return;
  }
  timeline.record(sub.completion());
}

std::shared_ptr<CompletionImpl> AqlQueue::completion_for(AqlRecords::Record& r) {
  try {
    if (r.abandoned.load(std::memory_order_acquire)) {
      std::string why = r.why;
      AqlRecords::unref(r);
      return std::make_shared<AqlCompletion>(shared_from_this(), HeldSignal{}, why);
    }
    return std::make_shared<AqlCompletion>(shared_from_this(), HeldSignal{r.signal, false, &r}, std::string());
  } catch (...) {
    AqlRecords::unref(r);
    throw;
  }
}

std::shared_ptr<CompletionImpl> AqlQueue::completion_of(std::uint64_t number) {
  if (AqlRecords::Record* r = records_->find(number)) return completion_for(*r);
  return timeline.completion_of(number);
}

namespace {
// What memory freed while a replayed submission runs waits for (append_in_flight): a reference to
// its record, so the signal is not reused meanwhile, and its queue held weakly, so a parked mark
// keeps no queue, nor through it the device that parks it, alive. A queue that is gone stopped
// its work, or kept it for good (the device counts as stuck, and frees nothing more, then).
class RecordMark : public CompletionImpl {
 public:
  RecordMark(const std::shared_ptr<AqlQueue>& queue, AqlRecords::Record& r)
      : CompletionImpl(queue->device()), queue_(queue), record_(&r), signal_(r.signal) {}
  ~RecordMark() override {
    if (const auto q = queue_.lock()) AqlRecords::unref(*record_);  // else the records went with it
  }
  std::string failure() const override { return {}; }
  bool ended() const override {
    const auto q = queue_.lock();
    return !q || q->agent().load_signal(signal_) == 0 || q->ring().failed();
  }
  std::uint64_t native_handle() override { return signal_.handle; }

 private:
  std::weak_ptr<AqlQueue> queue_;
  AqlRecords::Record* record_;
  hsa_signal_t signal_;
};
}  // namespace

void AqlQueue::append_in_flight(std::vector<InFlight>& out) {
  timeline.append_in_flight(out);
  const std::vector<AqlRecords::Record*> held = records_->referenced();
  const std::shared_ptr<AqlQueue> self = shared_from_this();
  for (std::size_t i = 0; i < held.size(); ++i) {
    std::shared_ptr<CompletionImpl> mark;
    try {
      mark = std::make_shared<RecordMark>(self, *held[i]);
    } catch (...) {
      for (std::size_t k = i; k < held.size(); ++k) AqlRecords::unref(*held[k]);
      throw;
    }
    if (!mark->ended()) out.push_back({{}, std::move(mark)});
  }
}

void AqlQueue::abandon(const HeldSignal& final_signal, std::string what) {
  std::lock_guard<std::mutex> lock(abandoned_mutex_);
  // A batch that finds it by its number later is told, as one holding its completion is.
  if (final_signal.record) AqlRecords::mark_abandoned(*final_signal.record, "abandoned: " + what);
  abandoned_.push_back({final_signal, std::move(what)});
  any_abandoned_.store(true, std::memory_order_release);
}

bool AqlQueue::abandoned_still_running(hsa_signal_t final_signal) {
  std::lock_guard<std::mutex> lock(abandoned_mutex_);
  for (auto it = abandoned_.begin(); it != abandoned_.end(); ++it) {
    if (it->signal.signal.handle != final_signal.handle) continue;
    if (agent_.load_signal(final_signal) != 0) return true;
    give_back(it->signal);
    abandoned_.erase(it);
    return false;
  }
  return false;
}

std::string AqlQueue::still_running() {
  if (!any_abandoned_.load(std::memory_order_acquire)) return {};
  std::lock_guard<std::mutex> lock(abandoned_mutex_);
  for (auto it = abandoned_.begin(); it != abandoned_.end();) {
    if (agent_.load_signal(it->signal.signal) != 0) {
      // A failed queue refuses work by itself; the signal stays held while the work may run.
      if (!ring_->failed()) return it->what;
      ++it;
      continue;
    }
    give_back(it->signal);  // it ended: nothing uses the signal any more
    it = abandoned_.erase(it);
  }
  if (abandoned_.empty()) any_abandoned_.store(false, std::memory_order_release);
  return {};
}

HeldSignal AqlQueue::take_signal(bool pooled, bool wait_for_pool, Clock::time_point deadline) {
  if (pooled) {
    // A free signal first: the clock is read only where the pool is empty and the submit waits.
    if (auto h = signal_pool_->try_acquire()) return {hsa_signal_t{*h}, true};
    if (wait_for_pool) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      return {hsa_signal_t{signal_pool_->acquire(std::max(left, std::chrono::milliseconds(0)))}, true};
    }
  }
  counters_.signals_created.fetch_add(1, std::memory_order_relaxed);
  return {agent_.create_signal(0), false};
}

void AqlQueue::give_back(const HeldSignal& s) noexcept {
  if (s.record) {
    AqlRecords::unref(*s.record);
    return;
  }
  if (s.signal.handle == 0) return;
  if (s.pooled) signal_pool_->release(s.signal.handle);
  else agent_.destroy_signal(s.signal);
}

void AqlQueue::reserve_signals(std::size_t signals) {
  const std::size_t have = signal_pool_->capacity();
  if (signals > have) signal_pool_->grow(signals - have);
}

void AqlQueue::ring_doorbell(std::uint64_t index) {
  ring_->ring_doorbell(index);
  add_own(own_doorbells_, 1);
}

void AqlQueue::wait_zero(hsa_signal_t signal, Clock::time_point deadline, const char* what, const AqlSubmission* sub) {
  counters_.host_waits.fetch_add(1, std::memory_order_relaxed);
  const Clock::time_point began = Clock::now();
  const auto check = [this, sub, began] {
    ring_->look_for_stop(Clock::now() - began);
    try {
      agent_.throw_if_faulted();
    } catch (const Error& e) {
      const std::string account = ring_->driver_account();
      if (account.empty()) throw;
      throw Error(e.code(), e.backend(), e.call(), e.status() + " (the driver's account: " + account + ")", e.hint());
    }
    ring_->throw_if_failed();
    throw_if_loop_failed();
    if (sub && !sub->waits_for.empty()) sub->check_waits_for();
  };
  if (!agent_.wait_signal_zero(signal, deadline, check)) {
    throw TimeoutError(agent_.backend_name(), "wait", std::string("timed out waiting for ") + what,
                       "raise the timeout, or look for a kernel that never ends");
  }
}

void AqlAgent::throw_no_loops() const {
  throw Error(Errc::unsupported, backend_name(), "submit", "this agent has no loop control kernel for device-run loops",
              "run the loop from the host: submit the body, wait, read the condition");
}

AqlRing& AqlQueue::loop_ring() {
  if (!loop_ring_) {
    // The queue's size, and at least 4: the control kernel writes the body in chunks of the
    // ring's size less its own packet and the next launch's, none at all in a ring of 2.
    loop_ring_ = agent_.create_loop_ring(std::max<std::uint32_t>(ring_->size(), 4));
    // Room for the program and a body of up to 1024 dispatches (or the ring's size) with the
    // control and done packets; a larger body stays where the host wrote it, the program moves.
    const std::uint32_t packets = std::min<std::uint32_t>(ring_->size(), 1024) + 2;
    const std::size_t bytes = loop::kWorkingProgramBytes + std::size_t(packets) * 64;
    if (void* p = agent_.alloc_loop_working(bytes)) loop_working_.reset(new LoopWorking{agent_, p, bytes, packets});
    loop_ring_view_.store(loop_ring_.get(), std::memory_order_release);
  }
  return *loop_ring_;
}

void AqlQueue::throw_if_loop_failed() const {
  const AqlRing* loops = loop_ring_view_.load(std::memory_order_acquire);
  if (!loops || !loops->failed()) return;
  throw Error(Errc::device_fault, agent_.backend_name(), "queue",
              "a device-run loop failed: " + loops->error(), "the queue runs nothing more; create a new one");
}

void AqlQueue::block(const std::string& why) {
  std::lock_guard<std::mutex> lock(blocked_mutex_);
  if (blocked_.empty()) blocked_ = why;
  is_blocked_.store(true, std::memory_order_release);
}

std::string AqlQueue::blocked_reason() const {
  std::lock_guard<std::mutex> lock(blocked_mutex_);
  return blocked_;
}

bool AqlQueue::has_room_to(std::uint64_t last) {
  if (last - seen_read_index_.load(std::memory_order_relaxed) <= ring_mask_) return true;
  const std::uint64_t read = ring_->load_read_index();
  seen_read_index_.store(read, std::memory_order_relaxed);
  return last - read <= ring_mask_;
}

std::uint64_t AqlQueue::reserve_slot(const Deadline& deadline, AqlSubmission& sub) {
  const std::uint64_t index = ring_->add_write_index(1);
  next_write_ = index + 1;
  int spins = 0;
  Clock::time_point full_since;
  while (!has_room_to(index)) {
    // Full: the processor must see what is already published before it can make room.
    if (sub.doorbell_pending) {
      ring_doorbell(sub.last_published);
      sub.doorbell_pending = false;
    }
    if (spins == 0) full_since = Clock::now();
    ring_->look_for_stop(Clock::now() - full_since);
    ring_->throw_if_failed();
    if (Clock::now() > deadline.at()) {
      throw Error(Errc::timeout, agent_.backend_name(), "submit", "queue full until the deadline (slot " + std::to_string(index) + ")",
                  "the queue is unusable now; create a new one");
    }
    if (++spins > 64) std::this_thread::yield();
  }
  return index;
}

std::uint64_t AqlQueue::reserve_slots(std::uint64_t count, const Deadline& deadline, AqlSubmission& sub) {
  const std::uint64_t first = ring_->add_write_index(count);
  next_write_ = first + count;
  int spins = 0;
  Clock::time_point full_since;
  while (!has_room_to(first + count - 1)) {
    if (sub.doorbell_pending) {
      ring_doorbell(sub.last_published);
      sub.doorbell_pending = false;
    }
    if (spins == 0) full_since = Clock::now();
    ring_->look_for_stop(Clock::now() - full_since);
    ring_->throw_if_failed();
    if (Clock::now() > deadline.at()) {
      throw Error(Errc::timeout, agent_.backend_name(), "submit",
                  "queue full until the deadline (" + std::to_string(count) + " slots from " + std::to_string(first) + ")",
                  "the queue is unusable now; create a new one");
    }
    if (++spins > 64) std::this_thread::yield();
  }
  return first;
}

void AqlQueue::drain(AqlSubmission& sub, Clock::time_point deadline) {
  const hsa_signal_t marker = sub.step.signal;
  agent_.store_signal(marker, 1);
  const std::uint64_t index = reserve_slot(deadline, sub);
  note_slot(index, 0, 0);
  auto* slot = reinterpret_cast<hsa_barrier_and_packet_t*>(ring_base_) + (index & ring_mask_);
  aql::write_barrier_body(slot, nullptr, 0, marker);
  aql::publish(slot, aql::encode({HSA_PACKET_TYPE_BARRIER_AND, true, aql::Scope::none, aql::Scope::agent}), 0);
  count_packets(1);
  ring_doorbell(index);
  sub.doorbell_pending = false;
  wait_zero(marker, deadline, "kernarg pool drain", &sub);
  sub.release_tickets();
}

KernargPool::Block AqlQueue::acquire_block(std::size_t bytes, Clock::time_point deadline, AqlSubmission& sub) {
  int spins = 0;
  for (;;) {
    if (auto block = kernarg_pool_->try_acquire(bytes)) return *block;
    if (!sub.tickets.empty() && sub.doorbell_pending) {
      drain(sub, deadline);  // our own packets hold the pool: wait for them once, then reuse
      continue;
    }
    // Other submissions hold every block: they give them back when they are waited for.
    ring_->throw_if_failed();
    if (Clock::now() > deadline) {
      throw Error(Errc::timeout, agent_.backend_name(), "submit", "kernarg pool exhausted until the deadline",
                  "wait for earlier submissions on this queue");
    }
    if (++spins > 64) std::this_thread::yield();
  }
}

// Everything a batch can be refused for is checked before its first packet is written. The
// refusals are out of line: the check every submit pays is a few loads and compares.
void AqlQueue::check_submittable(const Batch& batch, const ResolvedWaits& waits) const {
  if (is_blocked_.load(std::memory_order_acquire)) refuse_blocked();
  agent_.throw_if_faulted();
  ring_->throw_if_failed();
  if (loop_ring_view_.load(std::memory_order_acquire)) throw_if_loop_failed();
  // ROCr needs the GWS of a cooperative queue; the software agent runs them on any queue.
  if (batch.cooperative_dispatch_count() && !cooperative_ && !agent_.marks_cooperative()) refuse_cooperative(batch);
  const DeviceImpl* recorded_for = batch.device();
  if (recorded_for && !owner_->same_device(recorded_for)) refuse_other_device(*recorded_for);
  const std::vector<Copy>& copies = batch.copies();
  if (!copies.empty()) check_copies(copies);
  if (!waits.empty()) check_waits(waits);
}

void AqlQueue::refuse_blocked() const {
  std::lock_guard<std::mutex> lock(blocked_mutex_);
  throw Error(Errc::queue_stopped, agent_.backend_name(), "submit", "the queue is blocked: " + blocked_, "create a new queue");
}

void AqlQueue::refuse_cooperative(const Batch& batch) const {
  throw Error(Errc::invalid_argument, agent_.backend_name(), "submit",
              "the batch holds " + std::to_string(batch.cooperative_dispatch_count()) +
                  " cooperative dispatch(es); this queue has no global wave sync (GWS) for their grid barrier",
              "submit it to a queue made by Device::create_cooperative_queue");
}

void AqlQueue::refuse_other_device(const DeviceImpl& recorded_for) const {
  throw Error(Errc::invalid_argument, agent_.backend_name(), "submit",
              "the batch names device " + recorded_for.describe() + ", this queue belongs to " + owner_->describe(),
              "submit it to a queue of the device it was recorded for");
}

void AqlQueue::check_copies(const std::vector<Copy>& copies) const {
  const char* backend = agent_.backend_name();
  for (const Copy& c : copies) {
    for (const DeviceImpl* d : {c.dst_device, c.src_device}) {
      if (d && d->info().backend != owner_->info().backend) {
        throw Error(Errc::invalid_argument, backend, "submit",
                    "a copy between devices of different backends (" + d->info().backend + " memory on a " +
                        owner_->info().backend + " queue)",
                    "copy through the host");
      }
    }
    if (!owner_->same_device(c.dst_device) && !owner_->same_device(c.src_device)) {
      throw Error(Errc::invalid_argument, backend, "submit", "a copy between two other devices on this device's queue",
                  "submit it to a queue of one of the two devices");
    }
  }
}

void AqlQueue::check_waits(const ResolvedWaits& waits) const {
  const char* backend = agent_.backend_name();
  for (const std::shared_ptr<CompletionImpl>& w : waits) {
    if (!w) continue;
    if (w->device().info().backend != owner_->info().backend) {
      throw Error(Errc::invalid_argument, backend, "submit",
                  "a dependency between devices of different backends (" + w->device().info().backend +
                      " submission, " + owner_->info().backend + " queue)",
                  "wait for it on the host (Submission::wait), then submit");
    }
    const std::string why = w->failure();
    if (!why.empty()) {
      throw Error(Errc::queue_stopped, backend, "submit", "the batch waits for a submission whose queue failed: " + why,
                  "resubmit the work it depends on on a new queue first");
    }
  }
}

std::unique_ptr<SubmissionImpl> AqlQueue::submit(const Batch& batch, const Options& o, const Deadline& deadline,
                                                 const ResolvedWaits& waits) {
  // The lines this submit will write that the packet processor wrote last (the next slot's
  // header, set INVALID as it consumed it; the next record's signal, which it decremented): asked
  // for now, their transfer overlaps the checks below instead of stalling the writes.
  prefetch_for_write(ring_base_ + (next_write_ & ring_mask_) * aql::kPacketBytes);
  records_->prefetch_next();
  if (doorbell_line_) prefetch_for_write(doorbell_line_);
  check_submittable(batch, waits);
  auto sub = std::make_unique<AqlSubmission>(shared_from_this(), o);
  sub->serial = next_serial();
  // A replayed one holds the batch's code and command names through its image.
  const bool replayed = AqlPacketImage::replayable(batch, o, agent_);
  if (!replayed) sub->labels = batch.labels();
  if (batch.empty()) return sub;
  if (!replayed) sub->code = batch.code();
  for (const std::shared_ptr<CompletionImpl>& w : waits) {
    if (w) sub->waits_for.push_back(w);
  }
  if (o.profile) std::call_once(profiling_enabled_, [this] { ring_->enable_profiling(); });

  // Signals: the baseline creates one in the timed run and uses it for every command. A replayed
  // one with pooled signals completes on a submission record's (the queue's record() counts it).
  if (replayed && o.signal) {
    AqlRecords::Record& r = records_->take();
    sub->step = {r.signal, false, &r};
  } else {
    sub->step = take_signal(o.signal, true, deadline);
  }
  if (replayed) {
    try {
      std::shared_ptr<const AqlPacketImage> image = images_.image_for(batch, o, agent_, ring_->native(), counters_);
      if (plain_image_fits(*this, *image, o)) write_plain_image(*this, batch, deadline, *sub, std::move(image));
      else write_image(*this, batch, waits, o, deadline, *sub, std::move(image));
    } catch (...) {
      if (!ring_->failed() && sub->has_published) sub->abandon_in_flight = true;
      throw;
    }
    return sub;
  }
  // Kernarg: the baseline allocates in the timed run: one block reused by every dispatch when the
  // host waits between them, else one block per dispatch (in flight together) in one allocation.
  if (!o.kernarg && !batch.dispatches().empty()) {
    std::size_t bytes = 0;
    for (auto& d : batch.dispatches()) {
      const std::size_t b = round_up64(d.kernel.info().kernarg_segment_size);
      bytes = o.nosync ? bytes + b : std::max(bytes, b);
    }
    sub->own_kernarg = agent_.alloc_kernarg(std::max<std::size_t>(bytes, 64));
    counters_.kernarg_allocations.fetch_add(1, std::memory_order_relaxed);
  }

  AqlBatchWriter writer(*this, batch, waits, o, deadline, *sub);
  if (o.signal) reserve_signals(writer.signals_needed() + 1);
  try {
    writer.write();
  } catch (const TimeoutError& e) {
    // The baseline timed out waiting after one of its commands: that one still runs, and the
    // queue keeps the signal it will decrement, refusing later work until it does.
    if (sub->has_published) sub->abandon_in_flight = true;
    if (!o.nosync && sub->step.signal.handle) {
      abandon(sub->step, sub->describe() + " timed out and still runs");
      sub->step = {};
    }
    throw;
  } catch (...) {
    if (!ring_->failed() && sub->has_published) sub->abandon_in_flight = true;
    throw;
  }
  return sub;
}

}  // namespace hsad::detail
