// The one small internal interface every backend implements: devices, kernels, queues,
// memory and submissions. Nothing here includes a driver header.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "aql_packets/hidden_args.hpp"
#include "hsad/error.hpp"
#include "hsad/batch.hpp"
#include "hsad/buffer.hpp"
#include "hsad/device.hpp"
#include "hsad/kernel.hpp"
#include "hsad/options.hpp"
#include "hsad/queue.hpp"
#include "hsad/runtime.hpp"
#include "hsad/stats.hpp"
#include "hsad/trace.hpp"
#include "batch_data.hpp"
#include "enqueued_work.hpp"
#include "timeline.hpp"

namespace hsad::detail {

using Clock = std::chrono::steady_clock;
// The point `timeout` from now: at once for zero or less, never (time_point::max()) for a timeout
// past the clock's range, such as kWaitForever.
Clock::time_point deadline_after(std::chrono::milliseconds timeout);

// A submit's deadline: its timeout, turned into a point in time (deadline_after) the first time
// something needs one: a full ring, an empty pool, the baseline's waits, a backend that takes a
// time point. A replayed submit that finds room never reads the clock (18 ns on the VM of
// docs/results.md, a tenth of such a submit). Made from a time point, it is that point.
class Deadline {
 public:
  explicit Deadline(std::chrono::milliseconds timeout) : timeout_(timeout) {}
  Deadline(Clock::time_point at) : at_(at), known_(true) {}  // NOLINT: a time point is a deadline
  Clock::time_point at() const {
    if (!known_) {
      at_ = deadline_after(timeout_);
      known_ = true;
    }
    return at_;
  }
  operator Clock::time_point() const { return at(); }  // NOLINT: where a point in time is needed
  std::chrono::milliseconds timeout() const { return timeout_; }  // the submit's, for its handle

 private:
  std::chrono::milliseconds timeout_{0};
  mutable Clock::time_point at_{};
  mutable bool known_ = false;
};

// A wait that reached its deadline while the work still ran: the submission is then abandoned
// (its resources stay with the work, its queue refuses later work while it runs).
class TimeoutError : public Error {
 public:
  TimeoutError(std::string backend, std::string call, std::string status, std::string hint = {})
      : Error(Errc::timeout, std::move(backend), std::move(call), std::move(status), std::move(hint)) {}
};

// How long a destructor gives work it has to stop (a cancelled cpu dispatch, a queue being
// destroyed) before leaving it running and keeping what it uses (graveyard.hpp).
inline constexpr std::chrono::milliseconds kStopGrace{250};

struct Counters {
  std::atomic<std::uint64_t> packets{0}, doorbells{0}, host_waits{0}, signals_created{0},
      kernarg_allocations{0}, system_fences{0}, bytes_copied{0}, bytes_staged{0}, copies{0}, device_waits{0},
      kernarg_writes{0}, images_built{0}, early_launches{0}, device_loops{0}, driver_calls{0};
  Stats snapshot() const;
};

class DeviceImpl;

struct KernelImpl {
  DeviceImpl* device = nullptr;        // the device it was loaded on (a batch runs on one)
  KernelInfo info;
  std::uint64_t kernel_object = 0;     // AQL backends: what goes into the packet
  std::vector<aql::HiddenArg> hidden_args;  // AMD code objects: what the dispatcher writes itself
  bool needs_hostcall = false;               // AMD: printf or malloc (the device's hostcall buffer)
  bool needs_heap = false;                   // AMD v5: malloc's device heap
  void* native = nullptr;              // CUDA: the CUfunction
  bool early_launch_ok = false;        // CUDA: the kernel waits for its predecessor itself (HSAD_BARRIER_WAIT)
  std::shared_ptr<const void> keep_alive;  // the module or executable that holds the code
  std::uint64_t generation = 0;            // the device's when loaded (a cuda reset unloads it)
};

// A submission as another batch sees it (Batch::wait): something to wait for on the device.
// Backends derive from it; it lives while the submission, or any batch or in-flight submission
// that waits for it, still refers to it, and keeps what the wait needs (a signal) until then.
class CompletionImpl {
 public:
  // `device` outlives this: the derived completion holds its queue, which holds the device (a
  // reference count here would be one more atomic per submit).
  explicit CompletionImpl(DeviceImpl& device) : device_(&device) {}
  virtual ~CompletionImpl();
  DeviceImpl& device() const { return *device_; }
  // Non-empty when the submission can no longer complete: its queue failed before it did.
  virtual std::string failure() const = 0;
  // True once the work has ended: completed, or stopped with its queue (a fault). Never blocks.
  // What memory released after the submission waits for (DeviceImpl::deallocate).
  virtual bool ended() const = 0;
  // Submission::native_handle: the signal (AQL) or event (cuda) that completes with the
  // submission, valid while this lives. Made on first use where the backend has none yet.
  virtual std::uint64_t native_handle() = 0;
  // The application's own signal or event (Batch::wait_native), not one of the library's: its
  // producer is unknown, so waiting for it acquires at system scope.
  virtual bool external() const { return false; }
  // Batch::wait_native finds the completion again by its handle (native_handles.hpp).
  std::uint64_t registered_handle = 0;
  // Set, with release order, by the destructor. Memory parked behind this completion (InFlight)
  // learns from it that the completion is gone, which the expiry of a weak pointer does not order:
  // whoever let go of the completion last had seen the work end, and the free must come after
  // everything that work did (ThreadSanitizer saw a free race the copy that read the memory).
  const std::shared_ptr<std::atomic<bool>>& gone() const { return gone_; }

 private:
  DeviceImpl* device_;
  std::shared_ptr<std::atomic<bool>> gone_ = std::make_shared<std::atomic<bool>>(false);
};

// A module as loaded on one device: the names of its kernels and how to load one. The code
// itself is held by `code`, which every kernel loaded from it (and so every batch and in-flight
// submission that dispatches one) shares.
class ModuleImpl {
 public:
  virtual ~ModuleImpl() = default;
  // Loads (once) and caches a kernel of the module; the name is one of `names`.
  std::shared_ptr<const KernelImpl> kernel(std::string_view name);

  DeviceImpl* device = nullptr;
  std::string origin;               // the file, or "<memory>"
  std::string target;               // what was picked from the image: "gfx90a:xnack-", "sm_90"
  std::vector<std::string> names;   // sorted
  std::shared_ptr<const void> code; // the executable or CUmodule
  std::uint64_t generation = 0;     // the device's when loaded

 protected:
  virtual std::shared_ptr<KernelImpl> load_kernel(const std::string& name) = 0;

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const KernelImpl>, std::less<>> kernels_;
};

class SubmissionImpl {
 public:
  virtual ~SubmissionImpl() = default;
  // True once a wait timed out while the work still ran: the handle's destructor then waits no
  // more, and what the work uses stays with its queue until it ends.
  virtual bool abandoned() const = 0;
  // The submit's timeout: how long the handle's destructor may wait for it, counted from then.
  std::chrono::milliseconds timeout{0};
  virtual void wait(Clock::time_point deadline) = 0;
  // Submission::ready: true once wait() would return or throw at once (complete, or failed).
  virtual bool ready() = 0;
  // True, having released what it held, when the submission has already completed: a handle
  // dropped after work that followed it was waited for costs no host wait. False otherwise.
  virtual bool release_if_complete() noexcept = 0;
  virtual std::shared_ptr<CompletionImpl> completion() = 0;
  virtual std::vector<CommandTime> timestamps() const = 0;
  // Submission::native_handle: the completion the handle belongs to, held as long as this lives.
  std::shared_ptr<CompletionImpl> native_holder;
  std::uint64_t serial = 0;           // its number among its queue's submissions (from 1)
  DeviceImpl* device = nullptr;       // its queue's (which keeps it alive)
  std::int64_t failed_command = -1;   // the command a failure was found in, where the backend knows it
  // Where the device's trace was on at submit (Device::set_trace): what its later events need.
  struct Traced {
    std::shared_ptr<const TraceCallback> callback;
    std::uint64_t queue = 0;
    std::string summary;  // the batch's commands, "bitonic_step x120"
    bool profiled = false;
    bool reported = false;  // complete, fault or abandon reported: once
  };
  std::unique_ptr<Traced> traced;
  // The error a wait saw, other than a timeout: every later wait throws it again (a failed
  // submission stays failed, whatever the backend released meanwhile).
  std::unique_ptr<Error> failure;
  // Device-run loops (Batch::loop_begin): how many the batch has, and once the backend saw the
  // submission complete, the iterations each ran.
  std::size_t loops = 0;
  std::vector<std::uint64_t> loop_iterations;
};

// What each wait command of a batch means for one submission, in batch.waits() order: the
// completion to wait for on the device, or nullptr where nothing is left to wait for.
using ResolvedWaits = std::vector<std::shared_ptr<CompletionImpl>>;

class QueueImpl {
 public:
  virtual ~QueueImpl() = default;
  const std::uint64_t id = next_id();  // Queue::id()
  static std::uint64_t next_id();
  // `waits`: batch.waits() resolved for this submission (Queue::submit does it).
  virtual std::unique_ptr<SubmissionImpl> submit(const Batch& batch, const Options& options,
                                                 const Deadline& deadline, const ResolvedWaits& waits) = 0;
  virtual std::uint32_t size() const = 0;
  virtual DeviceImpl& owner() const = 0;
  // Non-empty while a submission of this queue that was abandoned after a timeout still runs:
  // which one, and what it runs. Work behind it on this queue cannot start.
  virtual std::string still_running() = 0;
  // Device::reset: stop everything the queue runs (where the backend can) and refuse further
  // work, saying `why`.
  virtual void shut_down(const std::string& why) = 0;
  // Batch::wait_native with a handle that is not one of the library's: the application's signal
  // (rocr) or event (cuda) as something a submission waits for. Throws where the backend takes
  // none (the cpu agent).
  virtual std::shared_ptr<CompletionImpl> native_wait(std::uint64_t handle) = 0;
  // Queue::native: the hsa_queue_t* (rocr), the CUstream (cuda), 0 (the cpu agent).
  virtual std::uint64_t native() const = 0;

  // Under the submit mutex, once the backend made `sub`: counts it in the timeline, so that a
  // batch can wait for it by its number. The default makes its completion now; an AQL queue's
  // replayed submissions are found through their submission records instead (aql_records.hpp).
  virtual void record(SubmissionImpl& sub) { timeline.record(sub.completion()); }
  // What waiting for submission `number` means now (Timeline::completion_of).
  virtual std::shared_ptr<CompletionImpl> completion_of(std::uint64_t number) {
    return timeline.completion_of(number);
  }
  // The completions of the submissions still held whose work has not ended (DeviceImpl::deallocate).
  virtual void append_in_flight(std::vector<InFlight>& out) { timeline.append_in_flight(out); }

  // Adds what this queue counts itself to the device's counters (Device::stats): an AQL queue
  // counts its packets and doorbells under its submit mutex, without a locked add on a line every
  // queue of the device shares.
  virtual void add_counts(Stats& stats) const { (void)stats; }

  // Queue::enqueue where the backend sends `batch` under `options` with no submission at all
  // (cuda: the replay of a batch whose one graph is current, completing on the queue's count):
  // true once it went out and the timeline counted it. False: the caller submits it as usual and
  // holds the submission (`enqueued`). Asked first, under the submit mutex, before the generic
  // checks: it declines wherever one of them might refuse or a trace or profiler range is wanted
  // (a reset, abandoned work, Device::set_trace, ToolRanges), leaving those to the generic path.
  virtual bool enqueue_bare(const Batch& batch, const Options& options, std::chrono::milliseconds timeout) {
    (void)batch, (void)options, (void)timeout;
    return false;
  }
  // Queue::submit's counterpart of enqueue_bare: the backend's submission where it can make one
  // with none of the generic checks (they would all pass), counted in the timeline, its timeout
  // and device set; nullptr where it declines. Under the submit mutex.
  virtual std::unique_ptr<SubmissionImpl> submit_bare(const Batch& batch, const Options& options,
                                                      std::chrono::milliseconds timeout) {
    (void)batch, (void)options, (void)timeout;
    return nullptr;
  }
  // Queue::finish: waits for what enqueue_bare sent until now; throws as a submission's wait,
  // naming the submission. Without the submit mutex.
  virtual void finish_bare(Clock::time_point deadline) { (void)deadline; }
  // The queue's last handle went (QueueFront): what enqueue_bare sent is waited for up to its
  // enqueue's timeout, else left running with what it uses kept. Must not throw.
  virtual void let_go_bare() noexcept {}

  // Every submit reads both, and takes the timeline's submit mutex and count, which come first in
  // it: one cache line with the object's start.
  std::uint64_t generation = 0;  // the device's when the queue was made (Device::reset counts)
  Timeline timeline;  // numbers this queue's submissions for Batch::wait(queue, offset)
  // Queue::enqueue's submissions until Queue::finish waits for them. Under the submit mutex.
  EnqueuedWork enqueued;
};

// The application's handles of a queue (Queue) share one of these, which holds the queue: once
// the last goes, what was enqueued and never finished is let go of (Queue::enqueue), which the
// queue itself cannot do, since each submission it holds holds the queue.
std::shared_ptr<QueueImpl> with_front(std::shared_ptr<QueueImpl> queue);

// A default-constructed Device, refused by name rather than dereferenced.
DeviceImpl& checked_device(const std::shared_ptr<DeviceImpl>& device, const char* call);
// What a Kernel or Module handle holds: the object, and through the same reference count its
// device, for as long as any handle, batch or submission holds it (a kernel kept past its
// Runtime runs, as a Buffer kept so does). The device's own caches hold them without the device:
// a device holding itself would never go.
std::shared_ptr<const KernelImpl> keeping_device(std::shared_ptr<DeviceImpl> device, std::shared_ptr<const KernelImpl> kernel);
std::shared_ptr<ModuleImpl> keeping_device(std::shared_ptr<DeviceImpl> device, std::shared_ptr<ModuleImpl> module);

class DeviceImpl : public std::enable_shared_from_this<DeviceImpl> {
 public:
  virtual ~DeviceImpl();

  const DeviceInfo& info() const { return info_; }
  Counters& counters() { return counters_; }
  // Device::stats: the counters, with what each live queue counts itself (QueueImpl::add_counts).
  Stats stats();
  // Two handles of the same hardware (Runtime::open twice gives two DeviceImpl of one GPU):
  // kernels, buffers and batches of one run on the queues of the other.
  bool same_device(const DeviceImpl* o) const {
    return o == this || (o && o->info_.backend == info_.backend && o->hardware_id_ == hardware_id_);
  }

  // Loads a kernel once and caches it by name.
  std::shared_ptr<const KernelImpl> kernel(std::string_view name);
  // An application's own code: an AMD code object or bundle (rocr), a cubin, fatbin or PTX
  // (cuda). Throws hsad::Error saying why the bytes cannot run here.
  virtual std::shared_ptr<ModuleImpl> load_module(std::string_view bytes, const std::string& origin) = 0;
  virtual std::shared_ptr<QueueImpl> create_queue(std::uint32_t packets, Priority priority) = 0;
  // Device::adopt: checks that the application's [ptr, ptr + bytes) is memory this device reaches,
  // and says which kind it is. Throws hsad::Error naming what is wrong.
  virtual Memory adopt_memory(void* ptr, std::size_t bytes) = 0;
  // Device::native: the backend's fields (backend and ordinal are filled by the caller).
  virtual NativeDevice native() const = 0;
  std::uint32_t ordinal() const { return ordinal_; }
  // "'NVIDIA H200' (cuda device 1)": what errors call the device, telling identical GPUs apart.
  std::string describe() const { return "'" + info_.name + "' (" + info_.backend + " device " + std::to_string(ordinal_) + ")"; }

  void* allocate(std::size_t bytes, Memory kind);
  // `generation`: the device's when the memory was allocated. Memory a reset already took back is
  // not freed again; memory freed while an abandoned submission still runs is kept until it ends.
  void deallocate(void* ptr, std::size_t bytes, Memory kind, std::uint64_t generation) noexcept;

  // Queues made by Device::create_queue, so that a reset and stuck() reach them.
  void track(const std::shared_ptr<QueueImpl>& queue);
  // Non-empty while any queue of the device has an abandoned submission still running, or work
  // was left running by a queue that is gone: which.
  std::string stuck();
  // A queue went away leaving work it could not stop (a host kernel that never returns): the
  // device counts as stuck from now on, and memory freed is kept (that work may use it).
  // `still_running` says when that work has ended (it is asked with the device's lock held, and
  // must stay valid for good): from then on the device is no longer stuck for it, and memory
  // freed meanwhile is released at the next allocation or free.
  void note_left_running(const std::string& what, std::function<bool()> still_running);
  // Bytes freed while work was stuck and not released yet (tests): parked until nothing is stuck.
  std::size_t deferred_bytes();
  // Bytes of Buffers destroyed while submissions were in flight, parked until that work ended
  // (tests); and giving back those whose work has ended, cheap when there are none.
  std::size_t parked_bytes();
  void release_parked() noexcept {
    if (has_parked_.load(std::memory_order_acquire)) release_ended_parked();
  }
  // Device::reset: the backend stops what it can (reset_device), then every queue, and on cuda
  // every buffer and module, made before refuses use. Throws where the backend cannot reset now.
  void reset();
  std::uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  // Throws hsad::Error when `generation` predates a reset that invalidated `what`. Inline: every
  // submit asks it.
  void check_generation(std::uint64_t generation, const char* what, const char* call) const {
    if (generation != this->generation()) refuse_generation(what, call);
  }
  // Whether a reset takes back memory and code (cuda: the context goes), or only stops queues.
  virtual bool reset_invalidates_memory() const { return false; }
  virtual bool host_can_read(Memory kind) const = 0;
  // A dispatch of `kernel` will ask `bytes` of dynamic group memory (within the device's limit,
  // checked by the caller): cuda raises the kernel's opt-in maximum past 48 KiB; AQL asks nothing.
  virtual void allow_dynamic_group_memory(const KernelImpl& kernel, std::uint32_t bytes) const {
    (void)kernel;
    (void)bytes;
  }
  // Device::create_cooperative_queue: an ordinary queue where every queue takes cooperative work.
  virtual std::shared_ptr<QueueImpl> create_cooperative_queue(std::uint32_t packets) {
    return create_queue(packets, Priority::normal);
  }
  // Kernel::max_active_groups_per_cu, the arguments checked.
  virtual std::uint32_t max_active_groups_per_cu(const KernelImpl& kernel, std::uint32_t group_size,
                                                 std::uint32_t dynamic_shared_bytes) const = 0;
  // Whether this device's copies reach `other`'s memory directly (peer to peer), enabling that
  // access where the driver needs it; false where a copy between them would be staged. Another
  // backend's device: false.
  virtual bool peer_access(DeviceImpl& other) = 0;

  // Counts bytes, decides pinned vs pageable by looking the host range up among this device's
  // pinned allocations, and calls the backend's transfer.
  void copy_to_device(void* dst, const void* src, std::size_t bytes);
  void copy_to_host(void* dst, const void* src, std::size_t bytes);
  bool is_pinned(const void* ptr, std::size_t bytes) const;
  // Whether a kernel of this device may be handed `ptr`: inside memory it allocated, or memory
  // the driver maps for it (Device::adopt's check). What a global-buffer argument is checked with.
  bool reaches(const void* ptr) const;

  // Device::set_trace. trace() is nullptr where none is set: the one check a submit pays.
  void set_trace(TraceCallback callback);
  // Whether a trace is set, without taking it: a submit that can report nothing later declines.
  bool traced() const noexcept { return has_trace_.load(std::memory_order_acquire); }
  std::shared_ptr<const TraceCallback> trace() const {
    if (!has_trace_.load(std::memory_order_acquire)) return nullptr;
    std::lock_guard<std::mutex> lock(trace_mutex_);
    return trace_;
  }

 protected:
  virtual std::shared_ptr<const KernelImpl> load_kernel(std::string_view name) = 0;
  virtual void* raw_allocate(std::size_t bytes, Memory kind) = 0;
  virtual void raw_deallocate(void* ptr, std::size_t bytes, Memory kind) noexcept = 0;
  // Return the number of bytes that went through a staging buffer.
  virtual std::size_t transfer_to_device(void* dst, const void* src, std::size_t bytes, bool src_pinned) = 0;
  virtual std::size_t transfer_to_host(void* dst, const void* src, std::size_t bytes, bool dst_pinned) = 0;
  // What Device::reset does on this backend, given the live queues; throws to refuse.
  virtual void reset_device(const std::vector<std::shared_ptr<QueueImpl>>& queues) = 0;
  // Told of each allocation once it is among the device's (rocr: other agents' kernels granted
  // access to this device's memory get it). Throwing takes the allocation back.
  virtual void allocated(void* ptr, std::size_t bytes, Memory kind) {
    (void)ptr;
    (void)bytes;
    (void)kind;
  }
  // Every live allocation, base and bytes, at the time of the call.
  std::vector<std::pair<void*, std::size_t>> allocations() const;

  DeviceInfo info_;
  Counters counters_;
  std::uint64_t hardware_id_ = 0;  // within the backend: the agent handle, the CUDA ordinal, 0 for the cpu agent
  std::uint32_t ordinal_ = 0;      // the device's number among its backend's, as HIP and CUDA count them

 private:
  std::mutex kernels_mutex_;
  std::map<std::string, std::shared_ptr<const KernelImpl>, std::less<>> kernels_;
  mutable std::mutex pinned_mutex_;
  std::map<std::uintptr_t, std::size_t> pinned_;  // base -> bytes
  std::map<std::uintptr_t, std::size_t> allocated_;  // every live allocation, base -> bytes (same mutex)
  std::mutex queues_mutex_;
  std::vector<std::weak_ptr<QueueImpl>> queues_;
  [[noreturn, gnu::cold, gnu::noinline]] void refuse_generation(const char* what, const char* call) const;
  // What every submit asks (check_generation, release_parked, trace), in one cache line.
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<bool> has_parked_{false};
  std::atomic<bool> has_trace_{false};
  struct Deferred {
    void* ptr;
    std::size_t bytes;
    Memory kind;
    std::uint64_t generation;
  };
  std::mutex deferred_mutex_;
  // Freed while submissions of the device were in flight: kept until each of them has ended (or
  // been released), whichever queue it is on; freed while work was stuck, also until nothing is
  // stuck any more. Under deferred_mutex_.
  struct Parked {
    Deferred memory;
    std::vector<InFlight> in_flight;
    bool until_unstuck = false;
  };
  std::vector<Parked> parked_;
  std::atomic<int> parked_until_unstuck_{0};  // entries of parked_ that wait for nothing stuck
  void release_ended_parked() noexcept;
  mutable std::mutex trace_mutex_;
  std::shared_ptr<const TraceCallback> trace_;
  struct LeftRunning {
    std::string what;
    std::function<bool()> still_running;
  };
  std::vector<LeftRunning> left_running_;  // under queues_mutex_

 protected:
  std::vector<std::shared_ptr<QueueImpl>> live_queues();
  void clear_kernel_cache();
};

// A backend as the runtime sees it before opening it.
struct BackendEntry {
  std::string name;
  BackendStatus (*probe)();
  std::vector<std::shared_ptr<DeviceImpl>> (*open)();
};
const std::vector<BackendEntry>& backends();

}  // namespace hsad::detail
