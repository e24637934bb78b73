// A ROCr AQL queue as the shared submission path sees it: hsa_queue_create's ring, indices and
// doorbell, and the error its callback reports (a fault reaches the waiter, never a hang).
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "backends/aql/aql_agent.hpp"
#include "backends/rocr/hsa_api.hpp"

namespace hsad::rocr {

// The agent's one cooperative queue (HSA_QUEUE_TYPE_COOPERATIVE, the queue that holds its GWS),
// which ROCr hands to every caller in the process that asks for one, and whose errors it reports
// to no callback: its own handler prints and aborts, which HSA_ENABLE_QUEUE_FAULT_MESSAGE=0 turns
// off (hsa_api.cpp), and leaves the queue suspended. Every ring over it shares this state; a ring
// learns of the stop by asking ROCr to set the queue's priority, which ROCr refuses for a
// suspended queue (AqlQueue::SetPriority, ROCr 5.2 to 7.x). The look reprograms the queue in the
// driver, so it is made only while a wait sees no progress, and ever more rarely.
struct SharedCooperativeQueue {
  hsa_queue_t* queue = nullptr;
  std::atomic<hsa_status_t> status{HSA_STATUS_SUCCESS};
  std::atomic<std::int64_t> next_look_ns{0};   // steady clock
  std::atomic<std::int64_t> gap_ns{1'000'000};  // 1 ms, doubling to 1 s
};

class RocrRing : public detail::AqlRing {
 public:
  // `type`: HSA_QUEUE_TYPE_MULTI, or COOPERATIVE (the agent's GWS goes with it).
  RocrRing(const Api& api, hsa_agent_t agent, std::uint32_t packets, hsa_queue_type32_t type);
  // A ring over the agent's shared cooperative queue (`shared->queue` is filled by the first).
  RocrRing(const Api& api, hsa_agent_t agent, std::uint32_t packets, std::shared_ptr<SharedCooperativeQueue> shared);
  // hsa_amd_queue_set_priority(HIGH): its dispatches go before normal queues' (Priority::high).
  void set_high_priority();
  ~RocrRing() override;
  RocrRing(const RocrRing&) = delete;
  RocrRing& operator=(const RocrRing&) = delete;

  std::uint32_t size() const override { return size_; }
  void* base() const override { return base_; }
  std::uint64_t add_write_index(std::uint64_t n) override;
  std::uint64_t load_read_index() const override;
  void ring_doorbell(std::uint64_t index) override;
  // ROCr's amd_signal_t of the doorbell: the pointer its store follows.
  const void* doorbell_line() const override { return reinterpret_cast<const void*>(queue_->doorbell_signal.handle); }
  void throw_if_failed() const override;
  bool failed() const override {
    return destroyed_.load(std::memory_order_acquire) || status_->load(std::memory_order_acquire) != HSA_STATUS_SUCCESS;
  }
  void look_for_stop(detail::Clock::duration waited) override;
  std::string error() const override;
  // The packet processor then writes each completion signal's start and end; async copies too.
  void enable_profiling() override;
  // The packet the simulated GPU names in its account of the error; UINT64_MAX on a real driver.
  std::uint64_t failed_packet() const override;
  // hsa_queue_destroy: the driver preempts the queue's waves.
  bool shut_down(const std::string& why) override;
  std::string driver_account() const override;

  hsa_queue_t* queue() const { return queue_; }
  // amd_queue_t (hsa/amd_hsa_queue.h) starts with the hsa_queue_t: its dispatch ids are the
  // indices the command processor reads, and device code writes them as ockl's queue functions do.
  DeviceView device_view() const override;
  std::uint64_t native() const override { return reinterpret_cast<std::uint64_t>(queue_); }

 private:
  static void on_error(hsa_status_t status, hsa_queue_t* source, void* data);

  const Api& api_;
  hsa_queue_t* queue_ = nullptr;
  std::shared_ptr<SharedCooperativeQueue> shared_;  // the agent's cooperative queue; null for the others
  std::atomic<hsa_status_t> own_status_{HSA_STATUS_SUCCESS};
  std::atomic<hsa_status_t>* status_ = &own_status_;  // the shared queue's, where there is one
  std::atomic<bool> destroyed_{false};
  std::uint32_t size_ = 0;   // kept: the queue is gone after a shut-down, its numbers are not
  void* base_ = nullptr;
  std::uint64_t last_read_index_ = 0;
  std::string shut_down_;  // why, written before destroyed_
};

}  // namespace hsad::rocr
