// Queue and Submission: a batch goes out under Options; the host waits once, with a timeout.
#pragma once

#include "hsad/export.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hsad/batch.hpp"
#include "hsad/error.hpp"
#include "hsad/options.hpp"

namespace hsad {

namespace detail { class QueueImpl; class SubmissionImpl; class CompletionImpl; class Deadline; }

inline constexpr std::chrono::milliseconds kDefaultTimeout{30000};
// A timeout that never ends: wait(kWaitForever) waits as long as the work runs. Any timeout past
// the clock's range means the same; zero (or less) means "do not wait": a check.
inline constexpr std::chrono::milliseconds kWaitForever = std::chrono::milliseconds::max();

// How the device schedules a queue's work against other queues' when both wait for it: work that
// others wait for (a stencil's boundary planes and their halo pushes) goes on a high-priority one.
// cuda: a stream of the context's greatest priority; rocr: hsa_amd_queue_set_priority(HIGH); the
// cpu agent runs every queue alike.
enum class Priority : std::uint8_t { normal, high };

// When one dispatch or copy of a submission ran on the device (Options::profile). Times are
// nanoseconds of the device's clock: differences within one device are meaningful, the
// absolute values are not comparable across devices or with the host's clock.
struct HSAD_API CommandTime {
  std::uint32_t command = 0;  // index into the batch's commands()
  std::string what;           // the kernel's name, or "copy_to_device", "copy_to_host", "copy"
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
};

// What a submission still holds until it is waited for: its completion signal, kernarg blocks.
// Waiting is required to see errors; the destructor waits too (swallowing errors) so nothing leaks.
class HSAD_API Submission {
 public:
  Submission();
  explicit Submission(std::unique_ptr<detail::SubmissionImpl> impl);
  Submission(Submission&&) noexcept;
  Submission& operator=(Submission&&) noexcept;
  ~Submission();

  // Blocks until every dispatch of the batch has completed. Throws hsad::Error on a timeout
  // (Errc::timeout: the submission is abandoned, its queue runs nothing more until the work ends)
  // or when the queue failed (Errc::device_fault: a kernel that faulted or threw); the error names
  // this submission (Error::submission) and, where known, the command. kWaitForever never times
  // out; a timeout of zero checks once. To poll without risking an abandon, ask ready() first.
  void wait(std::chrono::milliseconds timeout = kDefaultTimeout);
  // True once wait() would return or throw at once: every command completed, or the submission
  // failed. Never blocks; an event loop's way to poll. An empty Submission is ready.
  [[nodiscard]] bool ready() const;
  // Hands the submission to the library's completion watcher (one thread per process), which
  // calls `callback` once it has ended: with nullptr when it completed, or with the error wait()
  // throws. The callback runs on that thread and may submit more work; keep it short. Within
  // about a millisecond of the end (the watcher polls, backing off from 20 us while idle). The
  // Submission is consumed: `std::move(s).on_complete(...)`. Throws for an empty one.
  void on_complete(std::function<void(const Error*)> callback) &&;

  // After wait(), for a batch submitted with Options::profile: one entry per dispatch and copy,
  // in batch order (on CUDA under replay, one per graph: "graph of N commands", since events time
  // what a stream runs, not a graph's nodes). Empty without profile. Throws before wait().
  std::vector<CommandTime> timestamps() const;

  // After wait(): how many iterations device-run loop `loop` of the batch ran (Batch::loop_begin,
  // counted from 1; its max_iterations where it stopped at its guard). Throws before wait(), for
  // a loop past the batch's, or for an empty Submission.
  std::uint64_t loop_iterations(std::size_t loop = 0) const;

  // The submission's completion as the driver knows it, for the application's own work to wait
  // for: rocr and the cpu agent: an hsa_signal_t's handle whose value becomes 0 once the
  // submission has completed (on the cpu agent only Batch::wait_native understands it); cuda: a
  // CUevent that completes with it. Valid while this Submission (or anything holding its
  // completion) lives. Throws for an empty Submission.
  std::uint64_t native_handle() const;

  // What another batch waits for (Batch::wait); shared, so it outlives this handle as needed.
  std::shared_ptr<detail::CompletionImpl> completion() const;
  explicit operator bool() const { return impl_ != nullptr; }

 private:
  std::unique_ptr<detail::SubmissionImpl> impl_;
};

// The queue as the driver knows it, as an integer (docs/api.md, "Interoperability").
struct HSAD_API NativeQueue {
  std::string backend;
  std::uint64_t queue = 0;  // rocr: the hsa_queue_t*; cuda: the CUstream; the cpu agent: 0 (no HSA queue)
};

class HSAD_API Queue {
 public:
  Queue() = default;
  explicit Queue(std::shared_ptr<detail::QueueImpl> impl) : impl_(std::move(impl)) {}

  // Writes the batch's packets under `options` and rings the doorbell. Without `nosync` it
  // already waits on the host after every dispatch, as the baseline does.
  // The returned Submission is the only way to see the batch's errors: dropping it at once
  // (`q.submit(b);`) makes the call a synchronous run whose errors are lost, hence [[nodiscard]].
  [[nodiscard]] Submission submit(const Batch& batch, const Options& options = Options{},
                                  std::chrono::milliseconds timeout = kDefaultTimeout);
  // submit + wait.
  void run(const Batch& batch, const Options& options = Options{}, std::chrono::milliseconds timeout = kDefaultTimeout);

  // Submits like submit(), with no handle: the queue holds the work until finish() (OpenCL's
  // enqueue without an event, then clFinish; cudaGraphLaunch, then cudaStreamSynchronize). The
  // cheapest submit: on cuda, a replayed batch whose graph is current is its graph's launch and
  // nothing else. What submit() refuses is thrown here at once; what goes wrong while the work runs
  // (a fault, a loop past its guard) is thrown by the next finish(). A counted submission: Batch::wait
  // (queue, offset) finds it as it finds a submitted one. Work enqueued and never finished is
  // waited for when the queue's last handle goes, as a dropped Submission's is, its errors lost.
  void enqueue(const Batch& batch, const Options& options = Options{},
               std::chrono::milliseconds timeout = kDefaultTimeout);
  // Blocks until everything enqueued to this queue so far has completed (a submit()'s work is its
  // Submission's to wait for). Throws the first error among it in enqueue order, as
  // Submission::wait throws it (naming the submission and, where known, the command), after
  // waiting for the rest; a timeout (Errc::timeout) abandons the work still running, as
  // Submission::wait does, and keeps it enqueued: a later finish() waits for it again. Nothing
  // enqueued: returns at once.
  void finish(std::chrono::milliseconds timeout = kDefaultTimeout);

  std::uint32_t size() const;  // ring size in packets
  // The queue's number in the process, unique for its life (what TraceEvent::queue names).
  std::uint64_t id() const;
  NativeQueue native() const;
  // Submissions made to this queue so far: the timeline Batch::wait(queue, offset) counts on.
  std::uint64_t submissions() const;
  explicit operator bool() const { return impl_ != nullptr; }
  detail::QueueImpl& impl() const { return *impl_; }
  const std::shared_ptr<detail::QueueImpl>& shared_impl() const { return impl_; }

 private:
  std::unique_ptr<detail::SubmissionImpl> submit_impl(const Batch& batch, const Options& options,
                                                      const detail::Deadline& deadline);
  std::shared_ptr<detail::QueueImpl> impl_;
};

}  // namespace hsad
