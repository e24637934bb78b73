// The AQL queue: pools made at setup, the ring's back-pressure, host waits, and the checks a
// submission passes before anything is written. Lowering the commands is AqlBatchWriter's.
#include "backends/aql/aql_queue.hpp"

#include <algorithm>
#include <sstream>

#include <cstddef>
#include <cstring>

#include <thread>

#include "backends/aql/aql_batch_writer.hpp"
#include "graveyard.hpp"
#include "hsad/error.hpp"

namespace hsad::detail {

namespace {
std::size_t round_up64(std::size_t n) { return (n + 63) & ~std::size_t(63); }
}  // namespace

AqlQueue::AqlQueue(std::shared_ptr<DeviceImpl> owner, AqlAgent& agent, std::unique_ptr<AqlRing> ring, Config config)
    : owner_(std::move(owner)), agent_(agent), counters_(owner_->counters()), ring_(std::move(ring)),
      slot_owner_(ring_->size()) {
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
}

AqlQueue::~AqlQueue() {
  // Stops the ring first (the packet processor, or ROCr's queue) before its kernarg memory and
  // signals go. Where work could not be stopped, it keeps all of them.
  shut_down("the queue was destroyed");
  if (left_running_) {
    keep_forever(std::move(ring_));
    keep_forever(std::move(kernarg_pool_));
    keep_forever(std::move(signal_pool_));
    return;
  }
  {
    std::lock_guard<std::mutex> lock(abandoned_mutex_);
    for (const Abandoned& a : abandoned_) give_back(a.signal);
    abandoned_.clear();
  }
  signal_pool_.reset();
  kernarg_pool_.reset();
  ring_.reset();
  agent_.free_kernarg(kernarg_memory_);
}

void AqlQueue::shut_down(const std::string& why) {
  if (!ring_) return;
  if (!ring_->shut_down(why) && !left_running_) {
    left_running_ = true;
    std::string what;
    {
      std::lock_guard<std::mutex> lock(abandoned_mutex_);
      if (!abandoned_.empty()) what = abandoned_.front().what;
    }
    // The ring is kept for good from here on (the destructor), so the device may ask it later.
    const AqlRing* ring = ring_.get();
    owner_->note_left_running((what.empty() ? std::string("a dispatch that did not return") : what) +
                                  " (left running when its queue stopped)",
                              [ring] { return ring->left_work_running(); });
  }
  block(why);
  if (left_running_) return;
  // Nothing runs any more: what abandoned submissions held is free again.
  std::lock_guard<std::mutex> lock(abandoned_mutex_);
  for (const Abandoned& a : abandoned_) give_back(a.signal);
  abandoned_.clear();
}

bool AqlQueue::earlier_work_in_flight() {
  const std::shared_ptr<CompletionImpl> previous = timeline.completion_of(timeline.submitted());
  if (!previous) return false;  // none, or released: a Submission is released once it completed
  const hsa_signal_t s = static_cast<const AqlCompletion&>(*previous).signal();
  return s.handle != 0 && agent_.load_signal(s) != 0;
}

std::shared_ptr<CompletionImpl> AqlQueue::native_wait(std::uint64_t handle) {
  if (!agent_.takes_native_signals()) {
    std::ostringstream h;
    h << "0x" << std::hex << handle;
    throw Error(agent_.backend_name(), "wait_native",
                "handle " + h.str() + " is not the native handle of a live submission of this backend",
                "the cpu agent waits only for Submission::native_handle() of its own submissions that still exist");
  }
  return std::make_shared<AqlCompletion>(shared_from_this(), hsa_signal_t{handle});
}

void AqlQueue::abandon(const HeldSignal& final_signal, std::string what) {
  std::lock_guard<std::mutex> lock(abandoned_mutex_);
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
  counters_.doorbells.fetch_add(1, std::memory_order_relaxed);
}

void AqlQueue::wait_zero(hsa_signal_t signal, Clock::time_point deadline, const char* what, const AqlSubmission* sub) {
  counters_.host_waits.fetch_add(1, std::memory_order_relaxed);
  const auto check = [this, sub] {
    try {
      agent_.throw_if_faulted();
    } catch (const Error& e) {
      const std::string account = ring_->driver_account();
      if (account.empty()) throw;
      throw Error(e.code(), e.backend(), e.call(), e.status() + " (the driver's account: " + account + ")", e.hint());
    }
    ring_->throw_if_failed();
    if (sub && !sub->waits_for.empty()) sub->check_waits_for();
  };
  if (!agent_.wait_signal_zero(signal, deadline, check)) {
    throw TimeoutError(agent_.backend_name(), "wait", std::string("timed out waiting for ") + what,
                       "raise the timeout, or look for a kernel that never ends");
  }
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

std::uint64_t AqlQueue::reserve_slot(Clock::time_point deadline, AqlSubmission& sub) {
  const std::uint64_t index = ring_->add_write_index(1);
  int spins = 0;
  while (index - ring_->load_read_index() >= ring_->size()) {
    // Full: the processor must see what is already published before it can make room.
    if (sub.doorbell_pending) {
      ring_doorbell(sub.last_published);
      sub.doorbell_pending = false;
    }
    ring_->throw_if_failed();
    if (Clock::now() > deadline) {
      throw Error(Errc::timeout, agent_.backend_name(), "submit", "queue full until the deadline (slot " + std::to_string(index) + ")",
                  "the queue is unusable now; create a new one");
    }
    if (++spins > 64) std::this_thread::yield();
  }
  return index;
}

std::uint64_t AqlQueue::reserve_slots(std::uint64_t count, Clock::time_point deadline, AqlSubmission& sub) {
  const std::uint64_t first = ring_->add_write_index(count);
  int spins = 0;
  while (first + count - 1 - ring_->load_read_index() >= ring_->size()) {
    if (sub.doorbell_pending) {
      ring_doorbell(sub.last_published);
      sub.doorbell_pending = false;
    }
    ring_->throw_if_failed();
    if (Clock::now() > deadline) {
      throw Error(Errc::timeout, agent_.backend_name(), "submit",
                  "queue full until the deadline (" + std::to_string(count) + " slots from " + std::to_string(first) + ")",
                  "the queue is unusable now; create a new one");
    }
    if (++spins > 64) std::this_thread::yield();
  }
  return first;
}

std::shared_ptr<const AqlPacketImage> AqlQueue::image_for(const Batch& batch, const Options& o) {
  for (auto it = images_.begin(); it != images_.end(); ++it) {
    if (it->first != batch.id()) continue;
    if (it->second->batch_version() == batch.version()) {
      std::shared_ptr<AqlPacketImage>& image = it->second;
      if (image->args_version() != batch.args_version()) {
        // set_args since: rewrite the changed blocks, in a copy where a submission in flight
        // still reads these (every holder but this cache is one).
        if (image.use_count() > 1) {
          image = image->clone();
          counters_.kernarg_allocations.fetch_add(1, std::memory_order_relaxed);
          counters_.kernarg_writes.fetch_add(image->dispatches(), std::memory_order_relaxed);
        }
        counters_.kernarg_writes.fetch_add(image->update_args(batch), std::memory_order_relaxed);
      }
      // Most recently used last: eviction takes the front, the least recently used.
      if (std::next(it) != images_.end()) std::rotate(it, std::next(it), images_.end());
      return images_.back().second;
    }
    images_.erase(it);  // recorded again since: the old image stays with the submissions using it
    break;
  }
  auto image = std::make_shared<AqlPacketImage>(agent_, batch, o);
  counters_.images_built.fetch_add(1, std::memory_order_relaxed);
  if (image->dispatches()) counters_.kernarg_allocations.fetch_add(1, std::memory_order_relaxed);
  counters_.kernarg_writes.fetch_add(image->dispatches(), std::memory_order_relaxed);
  if (images_.size() == kMaxImages) images_.erase(images_.begin());
  images_.emplace_back(batch.id(), image);
  return image;
}

void AqlQueue::replay(const Batch& batch, const Options& o, const ResolvedWaits& waits, Clock::time_point deadline,
                      AqlSubmission& sub) {
  // Every field but these is the image's: the submission's completion on the last packet, each
  // wait's signal, resolved for this submit, in its barrier-AND packet, and where copies go to the
  // driver's engine, the edge and copy signals taken for this submit; under profile, each
  // dispatch's own signal.
  constexpr std::size_t kCompletionOffset = offsetof(hsa_kernel_dispatch_packet_t, completion_signal);
  constexpr std::size_t kFirstDependency = offsetof(hsa_barrier_and_packet_t, dep_signal);
  static_assert(offsetof(hsa_barrier_and_packet_t, completion_signal) == kCompletionOffset);
  static_assert(offsetof(hsa_agent_dispatch_packet_t, completion_signal) == kCompletionOffset);
  const std::shared_ptr<const AqlPacketImage> image = image_for(batch, o);
  sub.image = image;
  const hsa_signal_t done = sub.step.signal;
  agent_.store_signal(done, 1);
  const auto& packets = image->packets();
  const std::size_t n = packets.size();
  // Signals this submit takes beyond its completion: one per command under profile, else an edge
  // and a done signal per async copy (and one edge behind earlier work).
  if (o.signal && (image->async_copies() || o.profile)) reserve_signals(o.profile ? n + 2 : 2 * image->async_copies() + 2);
  // A signal of this submission's own (edges, copies, profiling), given back with it.
  const auto own_signal = [&] {
    const HeldSignal h = take_signal(o.signal, false, deadline);
    sub.extra.push_back(h);
    agent_.store_signal(h.signal, 1);
    return h.signal;
  };
  const std::uint64_t mask = ring_->size() - 1;
  auto* const base = static_cast<unsigned char*>(ring_->base());
  hsa_signal_t copy_done{0};  // the last async copy's signal: what the next barrier-AND or copy waits for
  hsa_signal_t edge{0};       // the last ring packet's edge signal, for the copy after it
  if (n && packets[0].copy >= 0 && earlier_work_in_flight()) {
    // Submissions on one queue run in order: a barrier-AND behind the earlier ones gives the copy
    // engine a signal for them (AqlBatchWriter does the same).
    edge = own_signal();
    sub.copy_edges.push_back(edge);
    const std::uint64_t index = reserve_slot(deadline, sub);
    note_slot(index, 0, 0);
    auto* slot = static_cast<hsa_barrier_and_packet_t*>(ring_->base()) + (index & mask);
    aql::write_barrier_body(slot, nullptr, 0, edge);
    aql::publish(slot, aql::encode({HSA_PACKET_TYPE_BARRIER_AND, true, aql::Scope::none, aql::Scope::system}), 0);
    counters_.packets.fetch_add(1, std::memory_order_relaxed);
    counters_.system_fences.fetch_add(1, std::memory_order_relaxed);
    sub.last_published = index;
    sub.has_published = true;
    ring_doorbell(index);
  }
  std::size_t i = 0;
  while (i < n) {
    if (packets[i].copy >= 0) {
      const AqlPacketImage::Packet& p = packets[i];
      const Copy& c = batch.copies()[std::size_t(p.copy)];
      hsa_signal_t deps[2];
      std::uint32_t count = 0;
      if (edge.handle) deps[count++] = edge;
      else if (copy_done.handle) deps[count++] = copy_done;  // two copies in a row: in order
      const hsa_signal_t signal = i + 1 == n ? done : own_signal();
      sub.has_published = true;
      agent_.async_copy(c, deps, count, signal, sub.locked);
      sub.copy_done.push_back(signal);
      if (o.profile) sub.timed.push_back({p.command, batch.labels()->at(p.command), signal, true});
      copy_done = signal;
      edge = {0};
      ++i;
      continue;
    }
    // The ring packets up to the next copy (or the end): an image larger than the ring goes out a
    // ring at a time, each waiting for room.
    std::size_t end = i;
    while (end < n && packets[end].copy < 0) ++end;
    while (i < end) {
      const std::size_t chunk = std::min<std::size_t>(end - i, ring_->size());
      const std::uint64_t first = reserve_slots(chunk, deadline, sub);
      for (std::size_t k = 0; k < chunk; ++k, ++i) {
        const AqlPacketImage::Packet& p = packets[i];
        unsigned char* slot = base + ((first + k) & mask) * aql::kPacketBytes;
        std::memcpy(slot + 4, reinterpret_cast<const unsigned char*>(&p.bytes) + 4, aql::kPacketBytes - 4);
        hsa_signal_t completion{0};
        if (i + 1 == n) completion = done;
        else if (p.edge) completion = edge = own_signal();
        else if (o.profile && p.timed) completion = own_signal();
        if (p.edge) sub.copy_edges.push_back(completion);
        if (completion.handle) std::memcpy(slot + kCompletionOffset, &completion, sizeof completion);
        if (o.profile && p.timed) sub.timed.push_back({p.command, batch.labels()->at(p.command), completion, false});
        if (p.wait >= 0) {
          const CompletionImpl* w = waits[std::size_t(p.wait)].get();
          const hsa_signal_t s = w ? static_cast<const AqlCompletion&>(*w).signal() : hsa_signal_t{0};
          if (s.handle) counters_.device_waits.fetch_add(1, std::memory_order_relaxed);
          std::memcpy(slot + kFirstDependency, &s, sizeof s);
        } else if (p.wait == AqlPacketImage::kAfterCopy) {
          std::memcpy(slot + kFirstDependency, &copy_done, sizeof copy_done);
        }
        note_slot(first + k, sub.serial, p.command);
        aql::publish(slot, p.header, p.setup);
        sub.last_published = first + k;
        sub.has_published = true;
        sub.doorbell_pending = true;
        if ((k + 1) % AqlPacketImage::kDoorbellEvery == 0) {
          ring_doorbell(first + k);
          sub.doorbell_pending = false;
        }
      }
      if (sub.doorbell_pending) {
        ring_doorbell(sub.last_published);
        sub.doorbell_pending = false;
      }
    }
  }
  counters_.packets.fetch_add(image->ring_packets(), std::memory_order_relaxed);
  counters_.system_fences.fetch_add(image->system_fences(), std::memory_order_relaxed);
  for (const Copy& c : batch.copies()) {
    counters_.copies.fetch_add(1, std::memory_order_relaxed);
    counters_.bytes_copied.fetch_add(c.bytes, std::memory_order_relaxed);
    if (!c.host_pinned) counters_.bytes_staged.fetch_add(c.bytes, std::memory_order_relaxed);
  }
  sub.final_signal = done;
}

void AqlQueue::drain(AqlSubmission& sub, Clock::time_point deadline) {
  const hsa_signal_t marker = sub.step.signal;
  agent_.store_signal(marker, 1);
  const std::uint64_t index = reserve_slot(deadline, sub);
  note_slot(index, 0, 0);
  auto* slot = static_cast<hsa_barrier_and_packet_t*>(ring_->base()) + (index & (ring_->size() - 1));
  aql::write_barrier_body(slot, nullptr, 0, marker);
  aql::publish(slot, aql::encode({HSA_PACKET_TYPE_BARRIER_AND, true, aql::Scope::none, aql::Scope::agent}), 0);
  counters_.packets.fetch_add(1, std::memory_order_relaxed);
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

// Everything a batch can be refused for is checked before its first packet is written.
void AqlQueue::check_submittable(const Batch& batch, const ResolvedWaits& waits) const {
  const char* backend = agent_.backend_name();
  if (is_blocked_.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(blocked_mutex_);
    throw Error(Errc::queue_stopped, backend, "submit", "the queue is blocked: " + blocked_, "create a new queue");
  }
  agent_.throw_if_faulted();
  ring_->throw_if_failed();
  if (batch.device() && !owner_->same_device(batch.device())) {
    throw Error(Errc::invalid_argument, backend, "submit",
                "the batch names device '" + batch.device()->info().name + "' (" + batch.device()->info().backend +
                    "), this queue belongs to '" + owner_->info().name + "'",
                "submit it to a queue of the device it was recorded for");
  }
  for (const Copy& c : batch.copies()) {
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

std::unique_ptr<SubmissionImpl> AqlQueue::submit(const Batch& batch, const Options& o, Clock::time_point deadline,
                                                 const ResolvedWaits& waits) {
  check_submittable(batch, waits);
  auto sub = std::make_unique<AqlSubmission>(shared_from_this(), o);
  sub->serial = next_serial();
  sub->labels = batch.labels();
  if (batch.empty()) return sub;
  sub->code = batch.code();
  for (const std::shared_ptr<CompletionImpl>& w : waits) {
    if (w) sub->waits_for.push_back(w);
  }
  if (o.profile) std::call_once(profiling_enabled_, [this] { ring_->enable_profiling(); });

  // Signals: the baseline creates one in the timed run and uses it for every command.
  sub->step = take_signal(o.signal, true, deadline);
  if (AqlPacketImage::replayable(batch, o, agent_)) {
    try {
      replay(batch, o, waits, deadline, *sub);
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
