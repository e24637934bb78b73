// The cpu agent's queue: an AQL ring in host memory, its indices and doorbell signal, and the
// packet processor thread that drains it.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <optional>

#include "backends/aql/aql_agent.hpp"
#include "agent/packet_processor.hpp"

namespace hsad::cpu {

class CpuRing : public detail::AqlRing {
 public:
  // The pool is shared: a processor left running by a shut-down keeps using it.
  CpuRing(std::uint32_t packets, std::shared_ptr<agent::WorkerPool> pool, std::uint64_t queue_id);
  ~CpuRing() override;

  std::uint32_t size() const override { return size_; }
  void* base() const override { return base_; }
  std::uint64_t add_write_index(std::uint64_t n) override;
  std::uint64_t load_read_index() const override;
  void ring_doorbell(std::uint64_t index) override;
  const void* doorbell_line() const override { return reinterpret_cast<const void*>(doorbell_.handle); }
  void throw_if_failed() const override;
  bool failed() const override;
  std::string error() const override;
  void enable_profiling() override { __atomic_store_n(&profiling_, 1u, __ATOMIC_RELEASE); }
  std::uint64_t failed_packet() const override;
  bool shut_down(const std::string& why) override;
  // The stuck work-group returned and the processor's thread ended (the processor is kept).
  bool left_work_running() const override;

  DeviceView device_view() const override {
    return {reinterpret_cast<std::uint64_t>(base_), size_ - 1u, reinterpret_cast<std::uint64_t>(&write_index_),
            reinterpret_cast<std::uint64_t>(&read_index_), doorbell_.handle};
  }
  const agent::PacketProcessor& processor() const { return *proc_; }

 private:
  // The producer's line: read-mostly fields and the write index.
  std::uint32_t size_;
  std::shared_ptr<agent::WorkerPool> pool_;
  void* base_ = nullptr;
  hsa_signal_t doorbell_{0};
  std::uint64_t write_index_ = 0;
  // The consumer's: the processor stores it for every packet, so nothing a submit reads shares
  // its line (a submit would miss in the cache on each).
  alignas(64) std::uint64_t read_index_ = 0;
  alignas(64) std::uint32_t profiling_ = 0;  // read by the processor (agent::RingView::profiling_word)
  // Owned until a shut-down leaves it running; then kept forever, still read through `proc_`.
  std::unique_ptr<agent::PacketProcessor> processor_;
  agent::PacketProcessor* proc_ = nullptr;
  std::once_flag shut_down_once_;
  std::string shut_down_;              // why; written once, before is_shut_down_
  std::atomic<bool> is_shut_down_{false};
  bool left_running_ = false;  // a work-group did not return: the ring memory and processor stay
};

}  // namespace hsad::cpu
