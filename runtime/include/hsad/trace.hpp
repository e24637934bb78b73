// A device's trace: what happened to the work its queues run, for applications that log their
// own (Device::set_trace). Profilers see the same submissions as NVTX and roctx ranges.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

namespace hsad {

struct TraceEvent {
  enum class Kind : std::uint8_t {
    submit,    // a batch went to a queue (host time)
    command,   // one command ran (device time; only for submissions made with Options::profile)
    complete,  // a wait saw the submission complete (host time)
    fault,     // a wait saw it fail: a kernel faulted, its queue stopped (host time)
    abandon,   // a wait timed out and left it running (host time)
  };
  Kind kind = Kind::submit;
  std::uint64_t queue = 0;       // Queue::id()
  std::uint64_t submission = 0;  // its number on that queue, from 1
  std::int64_t command = -1;     // command: its index among the batch's commands; fault: the failing one, where known
  // command: its label ("bitonic_step", "copy_to_device"); submit and complete: the batch's
  // commands ("bitonic_step x120"); fault and abandon: the error. Valid during the call only.
  std::string_view what;
  // command: start and end on the device's clock (one clock per device, as
  // Submission::timestamps); the others: the host's steady_clock in ns, start == end.
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
};

// Called on the thread that submitted or waited, or on the watcher thread (Submission::on_complete),
// with no lock of the library held: it may submit and wait. It must not throw, and must not set
// the trace of its own device.
using TraceCallback = std::function<void(const TraceEvent&)>;

}  // namespace hsad
