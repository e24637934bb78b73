// AqlQueue: the batch submission path shared by every AQL backend. It applies the five flags:
// where signals and kernarg memory come from, barrier bits, fence scopes, doorbells and waits.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "aql/packet.hpp"
#include "backends/aql/aql_agent.hpp"
#include "pools/kernarg_pool.hpp"
#include "pools/signal_pool.hpp"

namespace hsad::detail {

class AqlSubmission;

class AqlQueue : public QueueImpl, public std::enable_shared_from_this<AqlQueue> {
 public:
  struct Config {
    std::size_t kernarg_pool_bytes = 1 << 20;  // made once, at queue creation
    std::size_t signal_pool_size = 64;
  };

  // `owner` keeps the device (and so `agent`) alive as long as the queue.
  AqlQueue(std::shared_ptr<DeviceImpl> owner, AqlAgent& agent, std::unique_ptr<AqlRing> ring, Config config);
  ~AqlQueue() override;

  std::unique_ptr<SubmissionImpl> submit(const Batch& batch, const Options& options,
                                         Clock::time_point deadline) override;
  std::uint32_t size() const override { return ring_->size(); }

  AqlRing& ring() { return *ring_; }
  KernargPool& kernarg_pool() { return *kernarg_pool_; }

 private:
  friend class AqlSubmission;
  // Reserves one slot, waiting (doorbell rung first) while the ring is full.
  std::uint64_t reserve_slot(Clock::time_point deadline, AqlSubmission& sub);
  KernargPool::Block acquire_block(std::size_t bytes, Clock::time_point deadline, AqlSubmission& sub);
  // A barrier-AND packet with a completion signal, waited on: every earlier packet of the
  // submission has then completed, so its kernarg blocks can be reused.
  void drain(AqlSubmission& sub, Clock::time_point deadline);
  void write_batch(const Batch& batch, const Options& options, Clock::time_point deadline, AqlSubmission& sub);
  void ring_doorbell(std::uint64_t index);
  void wait_zero(hsa_signal_t signal, Clock::time_point deadline, const char* what);

  std::shared_ptr<DeviceImpl> owner_;
  AqlAgent& agent_;
  Counters& counters_;
  std::unique_ptr<AqlRing> ring_;
  void* kernarg_memory_ = nullptr;
  std::optional<KernargPool> kernarg_pool_;
  std::optional<SignalPool> signal_pool_;
};

}  // namespace hsad::detail
