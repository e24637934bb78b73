// WorkerPool: runs the work-groups of kernel dispatches on one thread per core. Active jobs sit
// in a fixed table; any thread (a worker, or a packet processor that would otherwise wait) takes
// a chunk of groups at a time, and whoever finishes the last group completes the job.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "agent/queue_fault.hpp"
#include "hsad/host_kernel.hpp"

namespace hsad::agent {

class Job;

// Told when a job's last work-group ended (on the thread that ran it).
class JobSink {
 public:
  virtual ~JobSink() = default;
  virtual void job_done(Job& job) = 0;
};

class Job {
 public:
  // Set by the owner before post(); read-only while posted.
  const HostKernel* kernel = nullptr;
  const void* kernarg = nullptr;
  Dim3 grid, group, groups;  // groups: work-group counts per dimension
  std::uint32_t group_memory = 0;  // bytes of group memory per work-group (the packet's group segment)
  bool cooperative = false;  // every work-group at once, each on a thread of its own (WorkGroup::grid_sync)
  std::uint64_t total = 0;   // groups.volume()
  std::uint64_t chunk = 1;
  std::uint64_t completion_signal = 0;
  std::uint64_t packet_id = 0;
  std::uint64_t start_ns = 0;  // when the dispatch started (packet timestamps)
  JobSink* sink = nullptr;
  const std::atomic<bool>* cancel = nullptr;  // set: start no more groups; the job fails "cancelled"
  const void* queue_context = nullptr;        // RingView::context, handed to every work-group
  // Arguments the processor makes itself (a parallel copy): `kernarg` points here then.
  alignas(16) unsigned char inline_args[32] = {};
  // The dispatch packet, copied: the ring slot is the producer's again once the packet is read.
  alignas(64) unsigned char packet[64] = {};
  bool has_packet = false;

  void prepare();  // resets the counters for a new dispatch
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  const std::string& error() const { return error_; }  // valid once failed() and done
  const std::optional<MemoryAccess>& access() const { return access_; }  // a memory fault's, likewise
  std::uint32_t users() const { return users_.load(); }  // sequentially consistent: WorkerPool::quiesce

 private:
  friend class WorkerPool;
  void fail(const std::string& what, std::optional<MemoryAccess> access = std::nullopt);
  std::atomic<std::uint64_t> next_{0};
  std::atomic<std::uint64_t> done_{0};
  std::atomic<std::uint32_t> users_{0};
  std::atomic<bool> failing_{false};  // the first failure writes error_
  std::atomic<bool> failed_{false};
  std::string error_;
  std::optional<MemoryAccess> access_;
};

class WorkerPool {
 public:
  explicit WorkerPool(unsigned workers);
  ~WorkerPool();
  // Stops the workers, giving one stuck inside a work-group `grace` to return. False when one did
  // not: it is left running, and the pool must then be kept (graveyard.hpp), not destroyed.
  bool stop(std::chrono::milliseconds grace);
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  unsigned threads() const { return static_cast<unsigned>(workers_.size()) + 1; }
  // Makes the job's groups available; returns false if the table is full (help, then retry).
  bool post(Job& job);
  // Runs one chunk of some posted job on the calling thread; false if there was none.
  bool help();
  // Runs every group of `job` on the calling thread, without posting it (small dispatches).
  static void run_inline(Job& job);
  // For an owner about to destroy jobs that are no longer posted: true once no thread is between
  // reading a job from a slot and counting itself among that job's users (each slot seen free of
  // readers once), so that Job::users() == 0 then means nobody will touch the job again. False
  // at the deadline.
  bool quiesce(std::chrono::steady_clock::time_point deadline) const;

 private:
  static constexpr std::size_t kSlots = 64;
  bool run_chunk(std::size_t slot);
  void worker_main();

  std::atomic<Job*> slots_[kSlots] = {};
  // Threads reading each slot: from before they load its job until that job counts them as users.
  std::atomic<std::uint32_t> slot_readers_[kSlots] = {};
  std::atomic<std::uint32_t> epoch_{0};   // futex word: bumped on every post
  std::atomic<std::uint32_t> sleepers_{0};
  std::atomic<bool> stop_{false};
  std::vector<std::thread> workers_;
  std::unique_ptr<std::atomic<bool>[]> exited_;  // per worker: its loop returned
};

}  // namespace hsad::agent
