// A ROCr AQL queue as the shared submission path sees it: hsa_queue_create's ring, indices and
// doorbell, and the error its callback reports (a fault reaches the waiter, never a hang).
#pragma once

#include <atomic>

#include "backends/aql/aql_agent.hpp"
#include "backends/rocr/hsa_api.hpp"

namespace hsad::rocr {

class RocrRing : public detail::AqlRing {
 public:
  RocrRing(const Api& api, hsa_agent_t agent, std::uint32_t packets);
  // hsa_amd_queue_set_priority(HIGH): its dispatches go before normal queues' (Priority::high).
  void set_high_priority();
  ~RocrRing() override;
  RocrRing(const RocrRing&) = delete;
  RocrRing& operator=(const RocrRing&) = delete;

  std::uint32_t size() const override { return queue_->size; }
  void* base() const override { return queue_->base_address; }
  std::uint64_t add_write_index(std::uint64_t n) override;
  std::uint64_t load_read_index() const override;
  void ring_doorbell(std::uint64_t index) override;
  void throw_if_failed() const override;
  bool failed() const override { return status_.load(std::memory_order_acquire) != HSA_STATUS_SUCCESS; }
  std::string error() const override;
  // The packet processor then writes each completion signal's start and end; async copies too.
  void enable_profiling() override;

  hsa_queue_t* queue() const { return queue_; }

 private:
  static void on_error(hsa_status_t status, hsa_queue_t* source, void* data);

  const Api& api_;
  hsa_queue_t* queue_ = nullptr;
  std::atomic<hsa_status_t> status_{HSA_STATUS_SUCCESS};
};

}  // namespace hsad::rocr
