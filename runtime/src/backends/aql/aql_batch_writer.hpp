// AqlBatchWriter: lowers one batch's commands onto an AQL queue under Options.
//   exec   -> a kernel dispatch packet
//   copy   -> an agent-dispatch packet (cpu agent), or the driver's async copy ordered by signals,
//             with a barrier-AND packet before the next packet that must see its result (rocr)
//   wait   -> a barrier-AND packet on the other submission's completion signal
//   loop   -> a dispatch of the loop control kernel that writes the body into the queue's loop
//             ring from the device, and a barrier-AND on the loop's done signal
//             (kernels/loop_control.hpp)
// Barrier bits, fence scopes, completion signals and host waits follow the five flags.
#pragma once

#include "backends/aql/aql_queue.hpp"

namespace hsad::detail {

class AqlBatchWriter {
 public:
  AqlBatchWriter(AqlQueue& queue, const Batch& batch, const ResolvedWaits& waits, const Options& options,
                 Clock::time_point deadline, AqlSubmission& sub);

  // Signals beyond the submission's first that the batch takes at once (edges around async
  // copies, one per command when profiling), so the pool can be grown to hold them.
  std::size_t signals_needed() const;
  void write();

 private:
  static constexpr int kMaxDeps = 5;  // dependencies of one barrier-AND packet

  // The signal a step decrements: the submission's own (`step`) or a further one.
  hsa_signal_t signal_for(bool last, bool edge);
  void write_gws_init(std::uint32_t command, const Dispatch& d);
  void write_dispatch(std::uint32_t command, std::uint32_t index, bool last, bool before_copy);
  void write_ring_copy(std::uint32_t command, const Copy& c, bool last);
  void write_async_copy(std::uint32_t command, const Copy& c, bool last);
  void add_wait(const CompletionImpl* w);
  // Loop `index` of the batch (its body: the commands up to its end_command).
  void write_loop(std::size_t index);
  // Barrier-AND packets for the dependencies the next packet must wait for; `completion` goes on
  // the last of them (written even without dependencies), `system_after` sets its release scope.
  void flush_deps(hsa_signal_t completion = {0}, bool system_after = false);
  void publish(void* slot, const aql::Header& header, std::uint16_t setup, hsa_signal_t signal);
  // The baseline waits on the host after every command.
  void after_step(hsa_signal_t signal, const char* what);
  void count_copy(const Copy& c);
  void record_time(std::uint32_t command, const std::string& what, hsa_signal_t signal, bool async_copy);

  AqlQueue& q_;
  AqlAgent& agent_;
  AqlRing& ring_;
  Counters& counters_;
  const Batch& batch_;
  const ResolvedWaits& waits_;
  const Options& o_;
  Clock::time_point deadline_;
  AqlSubmission& sub_;
  const bool copies_in_ring_;
  std::size_t own_stride_ = 0;

  hsa_signal_t deps_[kMaxDeps] = {};  // what the next packet (or async copy) must wait for
  int dep_count_ = 0;
  bool deps_need_system_ = false;     // one of them is a copy, or another device's submission
  bool foreign_deps_ = false;         // one of them is another submission's
  bool system_acquire_next_ = true;   // the next packet follows the host, a copy, or another device
  hsa_signal_t last_ring_signal_{0};  // the signal of the last packet, when an async copy follows it
  bool ring_since_copy_ = false;      // a packet was written since the last async copy
  // An earlier submission of this queue may still run and nothing of this one is in the ring yet:
  // an async copy (the driver's engine, outside the ring's order) must wait for the ring first.
  bool behind_earlier_work_ = false;
  bool tail_unsignalled_ = false;     // the last packet written carries no completion signal
  hsa_signal_t last_signal_{0};       // the signal of the last dispatch, copy or barrier with one
};

}  // namespace hsad::detail
