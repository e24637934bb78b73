// RocrRing. The queue callback runs on ROCr's event thread when the packet processor stops the
// queue (a memory fault, an illegal instruction); it only records the status, which every wait
// and every full-queue spin checks.
#include "backends/rocr/rocr_ring.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>

#include <hsa/amd_hsa_queue.h>

#include "hsad/error.hpp"

namespace hsad::rocr {
namespace {
// ROCr says only that a queue stopped (HSA_STATUS_ERROR_EXCEPTION). The simulated GPU (sim/,
// hsad-sim, whose door is preloaded into the process) also says why - the kernel, the program
// counter, the instruction - through a call no AMD driver has; where it is there, the error
// carries it.
std::string driver_explanation(const void* ring) {
  using Explain = std::size_t (*)(const void*, char*, std::size_t);
  static const Explain explain = reinterpret_cast<Explain>(dlsym(RTLD_DEFAULT, "hsad_sim_queue_error"));
  if (!explain) return {};
  char text[1024];
  return explain(ring, text, sizeof text) ? std::string(text) : std::string();
}

// ROCr refuses a queue smaller than the agent's minimum (HSA_AGENT_INFO_QUEUE_MIN_SIZE, 64 or
// more on AMD's GPUs) with an INVALID_ARGUMENT that names nothing; the library's sizes are a
// power of two from 2, so a smaller one is made at the minimum (Queue::size() says so).
std::uint32_t at_least_the_minimum(const Api& api, hsa_agent_t agent, std::uint32_t packets) {
  std::uint32_t least = 0;
  if (api.hsa_agent_get_info(agent, HSA_AGENT_INFO_QUEUE_MIN_SIZE, &least) != HSA_STATUS_SUCCESS) return packets;
  return std::max(packets, least);
}
}  // namespace

RocrRing::RocrRing(const Api& api, hsa_agent_t agent, std::uint32_t packets, hsa_queue_type32_t type) : api_(api) {
  packets = at_least_the_minimum(api_, agent, packets);
  check(api_.hsa_queue_create(agent, packets, type, &RocrRing::on_error, this, UINT32_MAX,
                              UINT32_MAX, &queue_),
        "hsa_queue_create", "the queue size must be a power of two no larger than the agent's maximum");
  size_ = queue_->size;
  base_ = queue_->base_address;
}

RocrRing::RocrRing(const Api& api, hsa_agent_t agent, std::uint32_t packets, std::shared_ptr<SharedCooperativeQueue> shared)
    : api_(api), shared_(std::move(shared)), status_(&shared_->status) {
  // ROCr ignores the callback for this type: the queue was made, with its own handler, before.
  packets = at_least_the_minimum(api_, agent, packets);
  check(api_.hsa_queue_create(agent, packets, HSA_QUEUE_TYPE_COOPERATIVE, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue_),
        "hsa_queue_create(COOPERATIVE)");
  if (!shared_->queue) shared_->queue = queue_;
  if (shared_->queue != queue_) {  // ROCr made a new one: the device's state was stale
    api_.hsa_queue_destroy(queue_);
    throw Error(Errc::runtime, "rocr", "create_cooperative_queue", "ROCr's cooperative queue changed while one was held");
  }
  size_ = queue_->size;
  base_ = queue_->base_address;
}

void RocrRing::look_for_stop(detail::Clock::duration waited) {
  if (!shared_ || waited < std::chrono::milliseconds(1)) return;
  if (status_->load(std::memory_order_acquire) != HSA_STATUS_SUCCESS || destroyed_.load(std::memory_order_acquire)) return;
  const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(detail::Clock::now().time_since_epoch()).count();
  std::int64_t next = shared_->next_look_ns.load(std::memory_order_relaxed);
  const std::int64_t gap = shared_->gap_ns.load(std::memory_order_relaxed);
  // One look at a time, however many threads wait: the one that moves the next time on makes it.
  if (now < next || !shared_->next_look_ns.compare_exchange_strong(next, now + gap)) return;
  if (api_.hsa_amd_queue_set_priority(queue_, HSA_AMD_QUEUE_PRIORITY_NORMAL) == HSA_STATUS_ERROR_INVALID_QUEUE) {
    hsa_status_t ok = HSA_STATUS_SUCCESS;
    status_->compare_exchange_strong(ok, HSA_STATUS_ERROR_EXCEPTION);
    return;
  }
  shared_->gap_ns.store(std::min<std::int64_t>(gap * 2, 1'000'000'000), std::memory_order_relaxed);
}

detail::AqlRing::DeviceView RocrRing::device_view() const {
  auto* amd = reinterpret_cast<amd_queue_t*>(queue_);
  return {reinterpret_cast<std::uint64_t>(base_), size_ - 1u, reinterpret_cast<std::uint64_t>(&amd->write_dispatch_id),
          reinterpret_cast<std::uint64_t>(&amd->read_dispatch_id), queue_->doorbell_signal.handle};
}

RocrRing::~RocrRing() { shut_down("the queue was destroyed"); }

bool RocrRing::shut_down(const std::string& why) {
  if (destroyed_.load(std::memory_order_acquire)) return true;
  shut_down_ = why;
  last_read_index_ = api_.hsa_queue_load_read_index_scacquire(queue_);
  destroyed_.store(true, std::memory_order_release);
  api_.hsa_queue_destroy(queue_);
  return true;
}

std::string RocrRing::driver_account() const { return driver_explanation(base_); }

std::uint64_t RocrRing::failed_packet() const {
  if (status_->load(std::memory_order_acquire) == HSA_STATUS_SUCCESS) return UINT64_MAX;
  // The simulated GPU's account starts "packet N: ..." for the packet that failed.
  const std::string why = driver_explanation(base_);
  if (why.rfind("packet ", 0) != 0) return UINT64_MAX;
  try {
    return std::stoull(why.substr(7));
  } catch (...) {
    return UINT64_MAX;
  }
}

void RocrRing::set_high_priority() {
  check(api_.hsa_amd_queue_set_priority(queue_, HSA_AMD_QUEUE_PRIORITY_HIGH), "hsa_amd_queue_set_priority");
}

void RocrRing::on_error(hsa_status_t status, hsa_queue_t*, void* data) {
  static_cast<RocrRing*>(data)->status_->store(status, std::memory_order_release);
}

std::uint64_t RocrRing::add_write_index(std::uint64_t n) {
  // Relaxed is enough: the packet header's release store is what publishes the slot.
  return api_.hsa_queue_add_write_index_relaxed(queue_, n);
}

std::uint64_t RocrRing::load_read_index() const {
  if (destroyed_.load(std::memory_order_acquire)) return last_read_index_;
  return api_.hsa_queue_load_read_index_scacquire(queue_);
}

void RocrRing::ring_doorbell(std::uint64_t index) {
  api_.hsa_signal_store_screlease(queue_->doorbell_signal, hsa_signal_value_t(index));
}

std::string RocrRing::error() const {
  const hsa_status_t s = status_->load(std::memory_order_acquire);
  if (s == HSA_STATUS_SUCCESS) return destroyed_.load(std::memory_order_acquire) ? shut_down_ : std::string();
  const std::string why = driver_explanation(base_);
  const std::string which = shared_ ? "the agent's cooperative queue (ROCr's one, shared by every cooperative queue of the "
                                      "process) stopped after an error in it: ROCr suspended it and reports no status; "
                                    : "the queue stopped: " + status_text(s);
  return which + (why.empty() ? "" : (shared_ ? "" : ": ") + why);
}

void RocrRing::enable_profiling() {
  check(api_.hsa_amd_profiling_set_profiler_enabled(queue_, 1), "hsa_amd_profiling_set_profiler_enabled");
  check(api_.hsa_amd_profiling_async_copy_enable(true), "hsa_amd_profiling_async_copy_enable");
}

void RocrRing::throw_if_failed() const {
  const hsa_status_t s = status_->load(std::memory_order_acquire);
  if (s == HSA_STATUS_SUCCESS) {
    if (destroyed_.load(std::memory_order_acquire)) throw Error(Errc::queue_stopped, "rocr", "queue", shut_down_, "create a new queue");
    return;
  }
  throw Error(Errc::device_fault, "rocr", "queue", error(), "a kernel faulted; this queue is unusable, create a new one");
}

}  // namespace hsad::rocr
