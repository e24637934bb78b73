// CpuRing: ring memory with every header INVALID, and the processor that consumes it.
#include "backends/cpu/cpu_ring.hpp"

#include <cstdlib>
#include <cstring>

#include "agent/signal_ops.hpp"
#include "graveyard.hpp"
#include "hsad/error.hpp"
#include "hsad/host_kernel.hpp"

namespace hsad::cpu {

CpuRing::CpuRing(std::uint32_t packets, std::shared_ptr<agent::WorkerPool> pool, std::uint64_t queue_id)
    : size_(packets), pool_(std::move(pool)) {
  base_ = std::aligned_alloc(aql::kPacketBytes, std::size_t(packets) * aql::kPacketBytes);
  if (!base_) throw Error(Errc::out_of_memory, "cpu", "create_queue", "out of host memory for a ring of " + std::to_string(packets) + " packets");
  std::memset(base_, 0, std::size_t(packets) * aql::kPacketBytes);
  for (std::uint32_t i = 0; i < packets; ++i) {
    auto* header = reinterpret_cast<std::uint16_t*>(static_cast<unsigned char*>(base_) + i * aql::kPacketBytes);
    *header = HSA_PACKET_TYPE_INVALID << HSA_PACKET_HEADER_TYPE;
  }
  doorbell_ = agent::create_soft_signal(0);
  agent::ProcessorHooks hooks;
  // On the cpu agent a kernel_object is the address of the registered HostKernel.
  hooks.resolve = [](std::uint64_t object) { return reinterpret_cast<const HostKernel*>(object); };
  agent::RingView view{base_, size_, &read_index_, doorbell_, queue_id};
  view.profiling_word = &profiling_;
  view.profiling_mask = 1;
  processor_ = std::make_unique<agent::PacketProcessor>(view, *pool_, std::move(hooks));
  proc_ = processor_.get();
}

CpuRing::~CpuRing() {
  shut_down("the queue was destroyed");
  if (left_running_) return;  // the stuck processor still reads the ring and its doorbell
  processor_.reset();
  agent::destroy_soft_signal(doorbell_);
  std::free(base_);
}

bool CpuRing::shut_down(const std::string& why) {
  std::call_once(shut_down_once_, [&] {
    shut_down_ = why;
    is_shut_down_.store(true, std::memory_order_release);
    if (!proc_->stop(detail::kStopGrace)) {
      left_running_ = true;
      // Kept: the stuck threads still use the processor, the ring, its doorbell signal and the
      // worker pool.
      detail::keep_forever(std::move(processor_));
      detail::keep_forever(std::shared_ptr<const void>(pool_));
    }
  });
  return !left_running_;
}

bool CpuRing::left_work_running() const { return left_running_ && !proc_->quiet(); }

bool CpuRing::failed() const { return is_shut_down_.load(std::memory_order_acquire) || proc_->failed(); }

std::string CpuRing::error() const {
  if (proc_->failed()) return proc_->error();
  return is_shut_down_.load(std::memory_order_acquire) ? shut_down_ : std::string();
}

std::uint64_t CpuRing::failed_packet() const { return proc_->failed_packet(); }

std::uint64_t CpuRing::add_write_index(std::uint64_t n) {
  return __atomic_fetch_add(&write_index_, n, __ATOMIC_ACQ_REL);
}

std::uint64_t CpuRing::load_read_index() const { return __atomic_load_n(&read_index_, __ATOMIC_ACQUIRE); }

void CpuRing::ring_doorbell(std::uint64_t index) { agent::signal_store(doorbell_, static_cast<std::int64_t>(index)); }

void CpuRing::throw_if_failed() const {
  if (failed()) throw Error(Errc::device_fault, "cpu", "queue", "the queue is in error: " + error(), "the queue runs nothing more; create a new one");
}

}  // namespace hsad::cpu
