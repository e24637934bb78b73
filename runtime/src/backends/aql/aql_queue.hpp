// AqlQueue: the batch submission path shared by every AQL backend. It owns the ring, the kernarg
// and signal pools made at setup, and the replay images; a submit chooses its writer:
// AqlBatchWriter lowers the commands under the five flags, write_image copies a replay image.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "aql_packets/packet.hpp"
#include "backends/aql/aql_agent.hpp"
#include "backends/aql/aql_image_cache.hpp"
#include "backends/aql/aql_packet_image.hpp"
#include "backends/aql/aql_records.hpp"
#include "backends/aql/aql_submission.hpp"
#include "pools/kernarg_pool.hpp"
#include "pools/signal_pool.hpp"

namespace hsad::detail {

class AqlQueue : public QueueImpl, public std::enable_shared_from_this<AqlQueue> {
 public:
  struct Config {
    std::size_t kernarg_pool_bytes = 1 << 20;  // made once, at queue creation
    std::size_t signal_pool_size = 64;
    bool cooperative = false;  // the ring takes cooperative dispatches (ROCr's COOPERATIVE queue)
  };

  // `owner` keeps the device (and so `agent`) alive as long as the queue.
  AqlQueue(std::shared_ptr<DeviceImpl> owner, AqlAgent& agent, std::unique_ptr<AqlRing> ring, Config config);
  ~AqlQueue() override;

  std::unique_ptr<SubmissionImpl> submit(const Batch& batch, const Options& options, const Deadline& deadline,
                                         const ResolvedWaits& waits) override;
  std::uint32_t size() const override { return ring_->size(); }
  DeviceImpl& owner() const override { return *owner_; }
  std::string still_running() override;
  void shut_down(const std::string& why) override;
  // rocr: the application's hsa_signal_t in the barrier-AND packets; the cpu agent refuses it.
  std::shared_ptr<CompletionImpl> native_wait(std::uint64_t handle) override;
  std::uint64_t native() const override { return ring_ ? ring_->native() : 0; }
  // A replayed submission's completion is its record's signal: it is counted, not made, here, and
  // made only when something asks for it by number.
  void record(SubmissionImpl& sub) override;
  std::shared_ptr<CompletionImpl> completion_of(std::uint64_t number) override;
  void append_in_flight(std::vector<InFlight>& out) override;

  // A submission whose wait timed out: the queue takes its final signal (what tells that it
  // ended), and refuses later work while the signal has not reached 0.
  void abandon(const HeldSignal& final_signal, std::string what);
  // Whether that abandoned submission still runs; false, the signal given back, once it ended.
  bool abandoned_still_running(hsa_signal_t final_signal);
  // Which submission and command wrote the packet at ring index `index` (AqlBatchWriter).
  void note_slot(std::uint64_t index, std::uint64_t serial, std::uint32_t command) {
    slot_owner_[index & ring_mask_] = {serial, command};
  }
  struct SlotOwner {
    std::uint64_t serial = 0;  // 0: a packet of no command (a barrier the writer added)
    std::uint32_t command = 0;
  };
  SlotOwner slot_owner(std::uint64_t index) const { return slot_owner_[index & ring_mask_]; }
  std::uint64_t next_serial() { return ++serial_; }
  bool cooperative() const { return cooperative_; }
  // Whether this queue's latest submission may still run (asked under the submit mutex).
  bool earlier_work_in_flight();

  DeviceImpl& device() const { return *owner_; }
  AqlAgent& agent() const { return agent_; }
  AqlRing& ring() const { return *ring_; }
  // The ring's geometry, read once (the ring's own accessors are virtual calls): its packets (a
  // power of two), that minus one, and slot 0.
  std::uint64_t ring_size() const { return ring_mask_ + 1; }
  std::uint64_t ring_mask() const { return ring_mask_; }
  unsigned char* ring_base() const { return ring_base_; }
  Counters& counters() const { return counters_; }
  std::size_t submission_records() const { return records_->size(); }  // tests: made and not let go
  // Packets written to this queue's ring: counted here, not in the device's counters (add_counts).
  // Under the submit mutex (the one writer), so a load and a store, not a locked add.
  void count_packets(std::uint64_t n) { add_own(own_packets_, n); }
  void add_counts(Stats& stats) const override {
    stats.packets += own_packets_.load(std::memory_order_relaxed);
    stats.doorbells += own_doorbells_.load(std::memory_order_relaxed);
  }
  KernargPool& kernarg_pool() { return *kernarg_pool_; }

  // A signal for one submission: `pooled` asks the pool first (the signal flag); beyond the
  // pool, or without the flag, one is created (and counted). `wait_for_pool`: block until the
  // pool has one rather than create (a submission's first signal, as the pool promises).
  HeldSignal take_signal(bool pooled, bool wait_for_pool, Clock::time_point deadline);
  void give_back(const HeldSignal& s) noexcept;
  // Grows the signal pool so that one submission needing `signals` never has to create any.
  void reserve_signals(std::size_t signals);

  // Waits on the host for `signal` to reach 0, counting the wait; throws on a timeout, a failed
  // ring or (with `sub`) a failed submission that `sub` waits for.
  void wait_zero(hsa_signal_t signal, Clock::time_point deadline, const char* what, const AqlSubmission* sub);
  void ring_doorbell(std::uint64_t index);
  // Reserves one slot, waiting (doorbell rung first) while the ring is full.
  std::uint64_t reserve_slot(const Deadline& deadline, AqlSubmission& sub);
  // Reserves `count` consecutive slots (at most the ring's size) with one write-index add.
  std::uint64_t reserve_slots(std::uint64_t count, const Deadline& deadline, AqlSubmission& sub);
  KernargPool::Block acquire_block(std::size_t bytes, Clock::time_point deadline, AqlSubmission& sub);
  // Whether slot `last` (reserved) is within the ring's size of the read index: first against the
  // read index seen last, which can only be behind (it only grows), so the line the packet
  // processor writes after every packet is read only when that one shows no room.
  bool has_room_to(std::uint64_t last);

  // The ring device-run loops run in (kernels/loop_control.hpp), made on the first loop, as
  // large as the queue's; only the loop control kernel writes it. Under the submit mutex.
  AqlRing& loop_ring();
  // The loop working area made with the loop ring (one loop runs at a time on a queue: the next
  // one's first launch waits in the queue's ring behind the barrier-AND on this one's end), or
  // nullptr where the agent has none. `packets`: what it holds after the program.
  struct LoopWorking {
    AqlAgent& agent;
    void* ptr;
    std::size_t bytes;
    std::uint32_t packets;
    ~LoopWorking() { agent.free_loop_working(ptr, bytes); }
  };
  const LoopWorking* loop_working() const { return loop_working_.get(); }
  // Throws hsad::Error when the loop ring failed (a kernel of a loop's body faulted or threw).
  void throw_if_loop_failed() const;

  // A submission this queue waits for failed: the ring is stuck behind a barrier that never
  // opens, so the queue refuses further work, saying why.
  void block(const std::string& why);
  bool blocked() const { return is_blocked_.load(std::memory_order_acquire); }
  std::string blocked_reason() const;

 private:
  // A barrier-AND packet with a completion signal, waited on: every earlier packet of the
  // submission has then completed, so its kernarg blocks can be reused.
  void drain(AqlSubmission& sub, Clock::time_point deadline);
  void check_submittable(const Batch& batch, const ResolvedWaits& waits) const;
  [[noreturn, gnu::cold, gnu::noinline]] void refuse_blocked() const;
  [[noreturn, gnu::cold, gnu::noinline]] void refuse_cooperative(const Batch& batch) const;
  [[noreturn, gnu::cold, gnu::noinline]] void refuse_other_device(const DeviceImpl& recorded_for) const;
  void check_copies(const std::vector<Copy>& copies) const;
  void check_waits(const ResolvedWaits& waits) const;
  // A completion holding the caller's reference to `r`, for a batch to wait for: an abandoned
  // submission's says so (and holds no signal), as its own completion would.
  std::shared_ptr<CompletionImpl> completion_for(AqlRecords::Record& r);

  std::shared_ptr<DeviceImpl> owner_;
  AqlAgent& agent_;
  Counters& counters_;
  std::unique_ptr<AqlRing> ring_;
  std::unique_ptr<AqlRing> loop_ring_;  // loop_ring(): set once, under the submit mutex
  std::unique_ptr<LoopWorking> loop_working_;  // with it
  std::atomic<AqlRing*> loop_ring_view_{nullptr};  // the same, for the waits' checks on any thread
  void* kernarg_memory_ = nullptr;
  std::unique_ptr<KernargPool> kernarg_pool_;
  std::unique_ptr<SignalPool> signal_pool_;
  std::unique_ptr<AqlRecords> records_;  // replayed submissions' completions (Options::signal)
  std::once_flag profiling_enabled_;
  mutable std::mutex blocked_mutex_;
  std::string blocked_;
  std::atomic<bool> is_blocked_{false};
  std::atomic<std::uint64_t> seen_read_index_{0};  // has_room_to's: any thread may store an older one
  struct Abandoned {
    HeldSignal signal;
    std::string what;
  };
  std::mutex abandoned_mutex_;
  std::vector<Abandoned> abandoned_;
  std::atomic<bool> any_abandoned_{false};  // every submit asks: no lock while there is none
  std::vector<SlotOwner> slot_owner_;
  AqlImageCache images_;  // Options::replay's images; under the timeline's submit mutex
  std::uint64_t serial_ = 0;  // under the timeline's submit mutex
  const void* doorbell_line_ = nullptr;  // AqlRing::doorbell_line()
  std::uint64_t ring_mask_ = 0;
  unsigned char* ring_base_ = nullptr;
  std::uint64_t next_write_ = 0;
  std::atomic<std::uint64_t> own_packets_{0}, own_doorbells_{0};  // add_counts; given to the device's at the end
  static void add_own(std::atomic<std::uint64_t>& count, std::uint64_t n) {
    count.store(count.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);  // one writer
  }  // the write index after the last reservation (submit mutex)
  bool left_running_ = false;  // shut down with work it could not stop: keep what it uses
  bool cooperative_ = false;   // Config::cooperative
};

}  // namespace hsad::detail
