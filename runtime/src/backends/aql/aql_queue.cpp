// The AQL submission path. Baseline and optimized paths differ only where a flag says so, and
// each difference is counted in Stats so tests can check the mechanism.
#include "backends/aql/aql_queue.hpp"

#include <cstring>
#include <thread>

#include "aql/fence_policy.hpp"
#include "hsad/error.hpp"

namespace hsad::detail {

namespace {
std::size_t round_up64(std::size_t n) { return (n + 63) & ~std::size_t(63); }
}  // namespace

class AqlSubmission : public SubmissionImpl {
 public:
  AqlSubmission(std::shared_ptr<AqlQueue> queue, const Options& o) : queue_(std::move(queue)), options_(o) {}
  ~AqlSubmission() override { release_all(); }

  void wait(Clock::time_point deadline) override {
    if (final_signal_.handle != 0) {
      try {
        queue_->wait_zero(final_signal_, deadline, "batch completion");
      } catch (const Error&) {
        // A failed queue runs nothing more: its blocks and signals are safe to reuse. After a
        // timeout the packets may still read them, so they stay held.
        if (queue_->ring_->failed()) abandon_in_flight = false, final_signal_ = {0}, release_all();
        throw;
      }
      final_signal_ = {0};
    }
    release_all();
  }

  // Everything the submission holds and gives back once its packets completed.
  hsa_signal_t own_signal{0};       // baseline: created in the timed run, destroyed at the end
  hsa_signal_t pooled_signal{0};    // signal flag: taken from the queue's pool
  void* own_kernarg = nullptr;      // baseline: allocated in the timed run, freed at the end
  std::vector<std::uint64_t> tickets;  // kernarg flag: pool blocks still in flight
  std::uint64_t last_published = 0;
  bool has_published = false;
  bool doorbell_pending = false;
  bool abandon_in_flight = false;  // an error left packets running: never free what they read
  hsa_signal_t completion() const { return pooled_signal.handle ? pooled_signal : own_signal; }
  void set_final(hsa_signal_t s) { final_signal_ = s; }

  void release_tickets() {
    for (auto t : tickets) queue_->kernarg_pool_->release(t);
    tickets.clear();
  }

 private:
  void release_all() noexcept {
    if (final_signal_.handle != 0 || abandon_in_flight) return;  // still in flight (timed out): keep what it may read
    release_tickets();
    if (pooled_signal.handle) queue_->signal_pool_->release(pooled_signal.handle);
    if (own_signal.handle) queue_->agent_.destroy_signal(own_signal);
    if (own_kernarg) queue_->agent_.free_kernarg(own_kernarg);
    pooled_signal = own_signal = {0};
    own_kernarg = nullptr;
  }

  std::shared_ptr<AqlQueue> queue_;
  Options options_;
  hsa_signal_t final_signal_{0};
};

AqlQueue::AqlQueue(std::shared_ptr<DeviceImpl> owner, AqlAgent& agent, std::unique_ptr<AqlRing> ring, Config config)
    : owner_(std::move(owner)), agent_(agent), counters_(owner_->counters()), ring_(std::move(ring)) {
  // Both pools are made here, at setup; the counters show it once per queue.
  kernarg_memory_ = agent_.alloc_kernarg(config.kernarg_pool_bytes);
  counters_.kernarg_allocations.fetch_add(1, std::memory_order_relaxed);
  kernarg_pool_.emplace(kernarg_memory_, config.kernarg_pool_bytes);
  signal_pool_.emplace(
      config.signal_pool_size,
      [this] {
        counters_.signals_created.fetch_add(1, std::memory_order_relaxed);
        return agent_.create_signal(0).handle;
      },
      [this](SignalPool::Handle h) { agent_.destroy_signal(hsa_signal_t{h}); });
}

AqlQueue::~AqlQueue() {
  signal_pool_.reset();
  kernarg_pool_.reset();
  ring_.reset();  // stops the packet processor before its kernarg memory goes
  agent_.free_kernarg(kernarg_memory_);
}

void AqlQueue::ring_doorbell(std::uint64_t index) {
  ring_->ring_doorbell(index);
  counters_.doorbells.fetch_add(1, std::memory_order_relaxed);
}

void AqlQueue::wait_zero(hsa_signal_t signal, Clock::time_point deadline, const char* what) {
  counters_.host_waits.fetch_add(1, std::memory_order_relaxed);
  if (!agent_.wait_signal_zero(signal, deadline, *ring_)) {
    throw Error(agent_.backend_name(), "wait", std::string("timed out waiting for ") + what,
                "raise the timeout, or look for a kernel that never ends");
  }
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
      throw Error(agent_.backend_name(), "submit", "queue full until the deadline (slot " + std::to_string(index) + ")",
                  "the queue is unusable now; create a new one");
    }
    if (++spins > 64) std::this_thread::yield();
  }
  return index;
}

void AqlQueue::drain(AqlSubmission& sub, Clock::time_point deadline) {
  const hsa_signal_t marker = sub.completion();
  agent_.store_signal(marker, 1);
  const std::uint64_t index = reserve_slot(deadline, sub);
  auto* slot = static_cast<hsa_barrier_and_packet_t*>(ring_->base()) + (index & (ring_->size() - 1));
  aql::write_barrier_body(slot, nullptr, 0, marker);
  aql::publish(slot, aql::encode({HSA_PACKET_TYPE_BARRIER_AND, true, aql::Scope::none, aql::Scope::agent}), 0);
  counters_.packets.fetch_add(1, std::memory_order_relaxed);
  ring_doorbell(index);
  sub.doorbell_pending = false;
  wait_zero(marker, deadline, "kernarg pool drain");
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
      throw Error(agent_.backend_name(), "submit", "kernarg pool exhausted until the deadline",
                  "wait for earlier submissions on this queue");
    }
    if (++spins > 64) std::this_thread::yield();
  }
}

std::unique_ptr<SubmissionImpl> AqlQueue::submit(const Batch& batch, const Options& o, Clock::time_point deadline) {
  auto sub = std::make_unique<AqlSubmission>(shared_from_this(), o);
  const std::size_t count = batch.size();
  if (count == 0) return sub;
  ring_->throw_if_failed();

  // Signals: the baseline creates one in the timed run and shares it between the dispatches.
  if (o.signal) {
    sub->pooled_signal = {signal_pool_->acquire(std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - Clock::now()))};
  } else {
    sub->own_signal = agent_.create_signal(0);
    counters_.signals_created.fetch_add(1, std::memory_order_relaxed);
  }
  // Kernarg: the baseline allocates in the timed run: one block reused by every dispatch when the
  // host waits between them, else one block per dispatch (in flight together) in one allocation.
  if (!o.kernarg) {
    std::size_t bytes = 0;
    for (auto& d : batch.dispatches()) {
      const std::size_t b = round_up64(d.kernel.info().kernarg_segment_size);
      bytes = o.nosync ? bytes + b : std::max(bytes, b);
    }
    sub->own_kernarg = agent_.alloc_kernarg(std::max<std::size_t>(bytes, 64));
    counters_.kernarg_allocations.fetch_add(1, std::memory_order_relaxed);
  }

  try {
    write_batch(batch, o, deadline, *sub);
  } catch (...) {
    if (!ring_->failed() && sub->has_published) sub->abandon_in_flight = true;
    throw;
  }
  return sub;
}

void AqlQueue::write_batch(const Batch& batch, const Options& o, Clock::time_point deadline, AqlSubmission& s) {
  AqlSubmission* sub = &s;
  const std::size_t count = batch.size();
  std::size_t own_stride = 0;
  const hsa_signal_t completion = sub->completion();
  if (o.kernarg) sub->tickets.reserve(count);  // no allocation per dispatch on the submit path
  auto* ring_base = static_cast<hsa_kernel_dispatch_packet_t*>(ring_->base());
  const std::uint64_t mask = ring_->size() - 1;
  for (std::size_t i = 0; i < count; ++i) {
    const detail::Dispatch& d = batch.dispatches()[i];
    const KernelImpl& k = d.kernel.impl();
    const std::size_t kbytes = k.info.kernarg_segment_size;

    void* kernarg;
    if (o.kernarg) {
      KernargPool::Block block = acquire_block(kbytes, deadline, *sub);
      sub->tickets.push_back(block.ticket);
      kernarg = block.ptr;
    } else {
      kernarg = static_cast<unsigned char*>(sub->own_kernarg) + own_stride;
      if (o.nosync) own_stride += round_up64(kbytes);
    }
    if (kbytes != 0) std::memcpy(kernarg, batch.kernarg_image(i), kbytes);  // no-argument kernels have no image
    if (!k.hidden_args.empty()) aql::fill_hidden_args(k.hidden_args, kernarg, d.grid, d.group);

    const bool last = i + 1 == count;
    const bool signalled = !o.nosync || last;
    if (signalled) agent_.store_signal(completion, 1);

    const aql::Fences f = aql::fences_for(i, count, o.fence);
    const std::uint64_t index = reserve_slot(deadline, *sub);
    hsa_kernel_dispatch_packet_t* slot = ring_base + (index & mask);
    aql::write_dispatch_body(slot, {d.grid, d.group, k.info.private_segment_size, k.info.group_segment_size,
                                    k.kernel_object, kernarg, signalled ? completion : hsa_signal_t{0}});
    aql::publish(slot, aql::encode({HSA_PACKET_TYPE_KERNEL_DISPATCH, true, f.acquire, f.release}),
                 aql::dispatch_setup(d.grid, d.group));
    counters_.packets.fetch_add(1, std::memory_order_relaxed);
    counters_.system_fences.fetch_add((f.acquire == aql::Scope::system) + (f.release == aql::Scope::system),
                                      std::memory_order_relaxed);
    sub->last_published = index;
    sub->has_published = true;
    sub->doorbell_pending = true;

    if (!o.nosync) {
      // The baseline: ring, and wait on the host before the next dispatch.
      ring_doorbell(index);
      sub->doorbell_pending = false;
      wait_zero(completion, deadline, "dispatch completion");
      sub->release_tickets();
    }
  }
  if (sub->doorbell_pending) {
    ring_doorbell(sub->last_published);
    sub->doorbell_pending = false;
    sub->set_final(completion);
  }
}

}  // namespace hsad::detail
