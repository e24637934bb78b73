// PacketProcessor: gives AQL its meaning off a GPU. It reads 64-byte packets from a ring in plain
// memory, honours the barrier bit, waits on barrier-AND/OR dependencies, runs kernels by their
// host builds, and decrements completion signals. The cpu backend's queues use it, and so does
// the simulated GPU behind ROCr: only the ring memory and the kernel lookup differ.
#pragma once

#include <hsa/hsa.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "aql_packets/packet.hpp"
#include "agent/futex.hpp"
#include "agent/worker_pool.hpp"

namespace hsad::agent {

struct RingView {
  void* base = nullptr;
  std::uint32_t size = 0;               // packets, a power of two
  std::uint64_t* read_index = nullptr;  // advanced by the processor (release)
  hsa_signal_t doorbell{0};             // amd_signal_t layout; its value is the last index rung
  std::uint64_t queue_id = 0;
  // How long the idle processor sleeps before looking at the ring again when no producer wakes
  // it. The cpu agent's producers wake it; ROCr (on the simulated GPU) only stores the doorbell.
  std::chrono::microseconds idle_slice{2000};
  // Profiling is on while (*profiling_word & profiling_mask) != 0: completion signals then get
  // the start and end of their packet (amd_signal_t's start_ts and end_ts, in now_ns() time).
  const std::uint32_t* profiling_word = nullptr;
  std::uint32_t profiling_mask = 0;
  // Handed to every work-group of this ring's dispatches (WorkGroup::queue_context).
  const void* context = nullptr;
};

// The clock of packet timestamps: CLOCK_MONOTONIC_RAW in ns, which the simulated GPU also
// reports to ROCr as its GPU clock.
std::uint64_t now_ns();

struct PacketRecord {
  std::uint64_t queue_id = 0;
  std::uint64_t packet_id = 0;
  aql::Header header;
  std::string kernel;  // dispatches only
  Dim3 grid, group;
  bool has_completion_signal = false;
};

struct ProcessorHooks {
  // Maps a dispatch's kernel_object to the host kernel to run; nullptr if unknown.
  std::function<const HostKernel*(std::uint64_t kernel_object)> resolve;
  // Called once per packet as it is consumed, in queue order (optional).
  std::function<void(const PacketRecord&)> trace;
  // Returns a fault message to make this dispatch fail as a GPU fault would (optional).
  std::function<std::string(std::uint64_t dispatch_ordinal, const HostKernel& kernel)> fault;
  // Called once when the queue enters the error state (optional), with why.
  std::function<void(const QueueFault&)> on_error;
  // Called after the processor decremented a completion signal (optional): where a driver would
  // raise the signal's interrupt (the simulated GPU's KFD events).
  std::function<void(hsa_signal_t)> on_signal;
  // A packet's acquire fence, before it runs (a barrier packet: once its dependencies are met), and
  // its release fence, after it ended and before its completion signal changes, with whether it
  // has one (optional): where a GPU's command processor invalidates and writes back its caches
  // (the simulated GPU's L2 model).
  std::function<void(aql::Scope)> acquire;
  std::function<void(aql::Scope, bool signals)> release;
  // Where the processor itself reads `bytes` at a GPU address (a PM4 indirect buffer); null where
  // no allocation holds them (optional: without it GPU addresses are host addresses).
  std::function<const void*(std::uint64_t address, std::uint64_t bytes)> host_address;
};

class PacketProcessor : private JobSink {
 public:
  PacketProcessor(RingView ring, WorkerPool& pool, ProcessorHooks hooks);
  ~PacketProcessor() override;
  PacketProcessor(const PacketProcessor&) = delete;
  PacketProcessor& operator=(const PacketProcessor&) = delete;

  bool failed() const { return failed_.load(std::memory_order_acquire); }
  std::string error() const;
  // The packet (its ring index) whose dispatch or copy failed; UINT64_MAX where none did, or the
  // failure was not one packet's.
  std::uint64_t failed_packet() const { return failed_packet_.load(std::memory_order_acquire); }
  // Stops consuming packets and cancels the dispatches in flight (no more of their work-groups
  // start), giving a work-group already running `grace` to return. False when one did not: the
  // processor is then left running on its threads and must be kept, not destroyed.
  bool stop(std::chrono::milliseconds grace);
  // After a stop that timed out: true once its thread has ended and no dispatch of it runs.
  bool quiet() const;
  std::uint64_t ignored_packets() const { return ignored_.load(std::memory_order_relaxed); }

 private:
  static constexpr std::size_t kJobs = 8;
  static constexpr std::uint64_t kInlineGroups = 2;  // dispatches in flight at once (no barrier between them)

  void main();
  bool idle_wait(std::uint64_t index);
  void wait_all_complete();
  void execute_dispatch(const hsa_kernel_dispatch_packet_t& packet, std::uint64_t id);
  void execute_barrier(const hsa_barrier_and_packet_t& packet, bool any);
  // AMD's vendor-specific packets (vendor_packets.cpp): the barrier-value packet (HIP 6's markers
  // and stream waits) and a PM4 indirect buffer of cache operations (CLR's event flushes). Any
  // other stops the queue with an error naming it.
  void execute_vendor(const unsigned char* packet, std::uint64_t id);
  void execute_pm4_buffer(const unsigned char* packet, std::uint64_t id);
  // Runs the pool's work, then spins and naps, until `ready()`; false if the processor was stopped.
  template <class Ready>
  bool wait_until(Ready ready);
  // An agent-dispatch packet: the cpu agent's copy (aql::kAgentCopy); any other function is
  // counted, ignored and completed.
  void execute_agent_dispatch(const hsa_agent_dispatch_packet_t& packet, std::uint64_t id);
  void staged_copy(void* dst, const void* src, std::size_t bytes);
  bool profiling() const;
  // The packet's release fence, then decrements the completion signal, after writing the
  // packet's times where profiling is on.
  void complete(hsa_signal_t signal, std::uint64_t start_ns, aql::Scope release);
  Job& free_job();
  void job_done(Job& job) override;
  void fail(QueueFault fault, std::uint64_t packet = UINT64_MAX);

  RingView ring_;
  WorkerPool& pool_;
  ProcessorHooks hooks_;
  Job jobs_[kJobs];
  // Written by the processor and the workers on every dispatch.
  alignas(64) std::atomic<bool> job_busy_[kJobs] = {};
  std::atomic<std::uint32_t> in_flight_{0};
  // Read by every submit and by the work-groups, written once in a queue's life: a line of their
  // own, or each submit's check misses in the cache behind the processor's writes above.
  alignas(64) std::atomic<bool> failed_{false};
  std::atomic<bool> stop_{false};
  std::atomic<bool> cancel_{false};  // read by the jobs' work-groups
  std::atomic<bool> exited_{false};  // main() returned
  std::atomic<std::uint64_t> failed_packet_{UINT64_MAX};
  alignas(64) std::atomic<std::uint64_t> ignored_{0};
  std::uint64_t dispatch_ordinal_ = 0;
  std::vector<unsigned char> staging_;  // the bounce buffer of pageable copies (processor thread only)
  mutable std::mutex error_mutex_;
  std::string error_;
  std::thread thread_;
};

template <class Ready>
bool PacketProcessor::wait_until(Ready ready) {
  int idle = 0;
  while (!ready()) {
    if (stop_.load(std::memory_order_acquire)) return false;
    if (pool_.help()) continue;
    if (++idle > 256) std::this_thread::sleep_for(std::chrono::microseconds(20));
    else cpu_relax();
  }
  return true;
}

}  // namespace hsad::agent
