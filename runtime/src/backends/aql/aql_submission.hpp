// What one submission on an AQL queue holds until it has completed (signals, kernarg blocks,
// locked host ranges, the code it runs, the submissions it waits for), and how a batch on
// another queue waits for it (AqlCompletion: the signal its last packet or copy decrements).
#pragma once

#include <hsa/hsa.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/aql/aql_packet_image.hpp"
#include "backends/aql/aql_records.hpp"
#include "backends/backend.hpp"
#include "pools/recycled_blocks.hpp"

namespace hsad::loop { struct Program; }

namespace hsad::detail {

class AqlQueue;

// A completion signal taken for one submission: from the queue's pool, or created for it (the
// baseline's, and any beyond the pool's size), or a submission record's (a reference to it);
// given back the same way.
struct HeldSignal {
  hsa_signal_t signal{0};
  bool pooled = false;
  AqlRecords::Record* record = nullptr;
};

class AqlCompletion : public CompletionImpl {
 public:
  // `signal` 0: nothing left to wait for. `failed`: the submission's own wait already failed.
  AqlCompletion(std::shared_ptr<AqlQueue> queue, HeldSignal signal, const std::string& failed);
  // The application's own signal (Batch::wait_native): waited for, never given back or destroyed.
  AqlCompletion(std::shared_ptr<AqlQueue> queue, hsa_signal_t external);
  ~AqlCompletion() override;  // gives the signal back

  hsa_signal_t signal() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return signal_.signal;
  }
  std::string failure() const override;
  bool ended() const override;
  // The final signal; once there is none (the submission had completed, or was empty), a signal
  // made at 0 for the purpose.
  std::uint64_t native_handle() override;
  bool external() const override { return external_; }
  // The submission was abandoned: its signal goes to the queue, and waiting for it fails.
  HeldSignal take_signal(std::string why);

 private:
  std::shared_ptr<AqlQueue> queue_;
  // take_signal (an abandon, on the waiting thread) changes the signal and the reason while other
  // threads read them (a batch waiting for it, memory parked behind it): under this lock.
  mutable std::mutex mutex_;
  HeldSignal signal_;
  std::string failed_;
  bool external_ = false;
  hsa_signal_t zero_{0};  // native_handle() of a completion with no signal: created at 0, destroyed here
};

// One per submit: from the thread's recycled blocks (pools/recycled_blocks.hpp), not the heap.
class AqlSubmission : public SubmissionImpl, public Recycled<AqlSubmission> {
 public:
  AqlSubmission(std::shared_ptr<AqlQueue> queue, const Options& options);
  ~AqlSubmission() override;

  void wait(Clock::time_point deadline) override;
  bool release_if_complete() noexcept override;
  bool ready() override;
  bool abandoned() const override { return abandoned_; }
  // "submission 3 of the queue (bitonic_step x120)"
  std::string describe() const;
  std::shared_ptr<CompletionImpl> completion() override;
  std::vector<CommandTime> timestamps() const override;

  // Throws hsad::Error when a submission this one waits for failed (then this one never runs,
  // and its queue is blocked behind it).
  void check_waits_for() const;
  void release_tickets();

  // Filled while the batch is written (AqlBatchWriter).
  HeldSignal step;                // the baseline waits on it after each command; a nosync batch's completion
  std::vector<HeldSignal> extra;  // edge, profiling and final signals beyond `step`
  hsa_signal_t final_signal{0};   // what wait() waits for; 0 when nothing is in flight
  void* own_kernarg = nullptr;    // the baseline's kernarg allocation
  std::vector<std::uint64_t> tickets;              // kernarg pool blocks still in flight
  std::vector<void*> locked;                       // pageable host ranges locked for async copies
  std::vector<hsa_signal_t> copy_edges;            // this ring's signals the async copies wait for
  std::vector<hsa_signal_t> copy_done;             // the async copies' own signals
  std::vector<std::shared_ptr<CompletionImpl>> waits_for;  // kept until this submission completed
  std::shared_ptr<const void> code;                // the batch's code objects, same lifetime
  std::shared_ptr<const AqlPacketImage> image;     // a replay's packet image (kernarg blocks, code, labels), same lifetime
  std::vector<const loop::Program*> loop_programs;  // each device-run loop's, in kernarg blocks of `tickets`
  struct Timed {
    std::uint32_t command;
    std::string what;
    hsa_signal_t signal;
    bool async_copy;
  };
  std::vector<Timed> timed;  // Options::profile: the signal each dispatch and copy decremented
  std::uint64_t last_published = 0;
  bool has_published = false;     // something reached the device: on a write error it may still run
  bool doorbell_pending = false;
  bool abandon_in_flight = false;  // an error left work running: never free what it reads
  std::shared_ptr<const std::vector<std::string>> labels;  // the batch's command names (a replay's: its image's)
  const std::vector<std::string>* command_labels() const { return labels ? labels.get() : image ? image->labels() : nullptr; }

 private:
  void release_all() noexcept;
  void read_times();
  // After this queue failed (or stuck behind a failed dependency), its packets never decrement
  // the signals the driver's copy engine waits for: release those, so the engine (which every
  // queue of the process shares) is not blocked for good, and wait for the copies to end.
  // True when every copy has ended: what they read and write may then be given back.
  bool unblock_copies(Clock::time_point deadline) noexcept;
  // The wait timed out: the queue takes the final signal and the submission keeps the rest.
  void abandon();
  // Takes the final signal out of `step` or `extra` (for a completion or the queue to own it).
  HeldSignal take_final_signal();
  // Once complete: each loop's iteration count into loop_iterations; what to throw (as
  // Errc::loop_limit) for a loop that stopped at its guard, or empty.
  std::string read_loops();
  // What the queue's failure was in this submission: " in command 3 of 7 (name)", or empty.
  std::string where_it_failed() const;

  std::shared_ptr<AqlQueue> queue_;
  Options options_;
  std::shared_ptr<AqlCompletion> shared_;  // once another batch waits for this one
  std::vector<CommandTime> times_;
  std::string failed_;  // why wait() failed, for a batch that waits for this one later
  bool waited_ = false;
  bool abandoned_ = false;
};

}  // namespace hsad::detail
