// CudaQueue: a non-blocking stream with its event pool, kernarg pool and graph cache; the
// commands of a batch become launches, cuMemcpy*Async and stream waits, or CUDA graphs of them.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/cuda/cuda_completion_counter.hpp"
#include "backends/cuda/cuda_device.hpp"
#include "hot_path.hpp"
#include "pools/kernarg_pool.hpp"
#include "pools/signal_pool.hpp"

namespace hsad::cuda {

class CudaSubmission;

// How a batch's completion reaches the host (HSAD_CUDA_COMPLETION, for measuring both):
// a CUevent recorded on the stream and queried, or a 32-bit stream memory write into pinned
// host memory that the host polls.
enum class Completion { event, memwrite };
// How arguments reach cuLaunchKernel (HSAD_CUDA_ARGS): the packed kernarg block through
// CU_LAUNCH_PARAM_BUFFER_POINTER, or an array of pointers into the same block (kernelParams).
enum class ArgPassing { buffer, params };
// How a replayed batch completes (HSAD_CUDA_REPLAY_COMPLETION, for measuring each): the queue's
// count raised by the last node of the batch's last graph (counter, the default: no driver call
// of its own, cuda_completion_counter.hpp), or, where the queue's completions are memory writes,
// a pooled event recorded after the graph launch (event), a memory-write node at the end of the
// batch's last graph given this submission's slot and value before the launch (node), or a
// stream write after the launch (stream). docs/results.md "Issue 60" measures them.
enum class ReplayCompletion { event, node, stream, counter };

// One completion signal: an event, or a pinned 32-bit slot with the value it will reach: exactly
// (a pooled slot), or at least, cyclically (`counter`: the queue's CompletionCounter, shared by
// every submission it counts, never given back or freed with one).
struct CudaSignal {
  CUevent event = nullptr;
  std::uint32_t* flag = nullptr;
  CUdeviceptr flag_device = 0;
  std::uint32_t target = 0;
  bool counter = false;
  // Whether the slot's `value` means the signal was reached.
  bool reached_by(std::uint32_t value) const noexcept {
    return counter ? CompletionCounter::reached(value, target) : value == target;
  }
  // How a stream waits for it (cuStreamWaitValue32).
  unsigned wait_flags() const noexcept { return counter ? CU_STREAM_WAIT_VALUE_GEQ : CU_STREAM_WAIT_VALUE_EQ; }
};

class CudaQueue;

// Another batch's view of a submission: a stream waits for its event (cuStreamWaitEvent) or its
// memory write (cuStreamWaitValue32). Holds the signal until the last waiter lets go.
class CudaCompletion : public detail::CompletionImpl {
 public:
  CudaCompletion(std::shared_ptr<CudaQueue> queue, CudaSignal signal, SignalPool::Handle pooled, bool pending,
                 std::string failed, std::uint64_t serial);
  // The application's own event (Batch::wait_native): waited for, never given back or destroyed.
  CudaCompletion(std::shared_ptr<CudaQueue> queue, CUevent external);
  ~CudaCompletion() override;
  // The submission's event where it has one (HSAD_CUDA_COMPLETION=event); else an event made
  // for it that completes once the submission's memory write lands (CudaQueue::native_event).
  std::uint64_t native_handle() override;
  bool external() const override { return external_; }

  // Makes `stream` wait for the submission on the device (true: one driver call); nothing once
  // it had completed.
  bool wait_on(CUstream stream) const;
  std::string failure() const override;
  bool ended() const override;
  // The submission was abandoned: its signal goes to the queue, and waiting for it fails.
  std::pair<CudaSignal, SignalPool::Handle> take_signal(std::string why);

 private:
  std::shared_ptr<CudaQueue> queue_;
  // take_signal (an abandon, on the waiting thread) changes the signal and the reason while other
  // threads read them (a stream waiting for it, memory parked behind it): under this lock.
  mutable std::mutex mutex_;
  CudaSignal signal_;
  SignalPool::Handle pooled_;
  bool pending_;
  std::string failed_;
  bool external_ = false;
  std::uint64_t serial_ = 0;  // the submission's number on its queue
  CUevent native_ = nullptr;  // made by native_handle(), destroyed here
};

class CudaQueue : public detail::QueueImpl, public std::enable_shared_from_this<CudaQueue> {
 public:
  CudaQueue(std::shared_ptr<CudaDevice> device, Priority priority);
  ~CudaQueue() override;

  std::unique_ptr<detail::SubmissionImpl> submit(const Batch& batch, const Options& options,
                                                 const detail::Deadline& when,
                                                 const detail::ResolvedWaits& waits) override;
  std::uint32_t size() const override { return 0; }  // a stream has no fixed ring
  HSAD_HOT detail::DeviceImpl& owner() const override { return *device_; }
  std::string still_running() override;
  // A reset destroyed the stream with the context: the queue refuses work, frees nothing.
  void shut_down(const std::string& why) override;
  // Batch::wait_native: the application's CUevent, waited for with cuStreamWaitEvent.
  std::shared_ptr<detail::CompletionImpl> native_wait(std::uint64_t handle) override;
  std::uint64_t native() const override { return reinterpret_cast<std::uint64_t>(stream_); }
  // An event that completes once submission `serial` (whose signal is `s`) has: recorded on the
  // stream while that is still the queue's latest submission, else on a stream of its own that
  // waits for `s` (at once where `pending` is false), so that it never waits behind later work.
  CUevent native_event(const CudaSignal& s, bool pending, std::uint64_t serial);
  void destroy_event(CUevent e) noexcept;
  // A submission whose wait timed out: the queue keeps its signal and refuses work until it is
  // reached; meanwhile the device skips the driver calls that would wait for it.
  void abandon(CudaSignal signal, SignalPool::Handle pooled, std::string what);
  bool abandoned_still_running(const CudaSignal& signal);
  // Whether the signal has been reached, without waiting (or counting a wait).
  bool reached(const CudaSignal& s) const noexcept;

  CudaDevice& device() const { return *device_; }
  const Driver& driver() const { return d_; }
  CUstream stream() const { return stream_; }
  // The stream's sticky error (a kernel fault), or empty.
  std::string error() const;
  void give_back(CudaSignal& s, SignalPool::Handle pooled) noexcept;

  // A replayed submission that completes on the queue's count is counted in the timeline and
  // found again through the count's ring (CompletionCounter); any other makes its completion now.
  void record(detail::SubmissionImpl& sub) override;
  std::shared_ptr<detail::CompletionImpl> completion_of(std::uint64_t number) override;
  // And the count's latest launch, while it runs.
  void append_in_flight(std::vector<detail::InFlight>& out) override;
  // The signal of a counted submission whose launch ends with the count at `target`.
  CudaSignal counter_signal(std::uint32_t target) const {
    return {nullptr, count_host_, count_host_device_, target, true};
  }
  // The count's latest launch (0: none), for any thread.
  std::uint32_t latest_count() const noexcept { return latest_count_.load(std::memory_order_acquire); }
  // What this queue counts itself (the replay's launch, its packets and its completion): Device::stats.
  void add_counts(Stats& stats) const override;

  // Queue::enqueue of the batch fast_replay would take: its graph's launch, counted in the
  // timeline, with no submission; the code it runs held per run of launches of one graph (bare_).
  bool enqueue_bare(const Batch& batch, const Options& options, std::chrono::milliseconds timeout) override;
  // Queue::submit of the same batch: fast_replay's submission, counted as record() counts it.
  std::unique_ptr<detail::SubmissionImpl> submit_bare(const Batch& batch, const Options& options,
                                                      std::chrono::milliseconds timeout) override;
  // Waits for the count to reach the latest bare launch's; a fault names the first launch the
  // count had not passed; a timeout abandons the launches still running (abandon()).
  void finish_bare(detail::Clock::time_point deadline) override;
  void let_go_bare() noexcept override;

 private:
  friend class CudaSubmission;

  static constexpr std::size_t kKernargBytes = 1 << 20;
  static constexpr std::size_t kEvents = 64;
  static constexpr std::size_t kSlotBytes = 64;
  static constexpr std::size_t kMaxParams = 32;
  // A replayed batch: graphs of the commands between its waits, the waits themselves as stream
  // waits between them.
  struct Segment {
    CUgraph graph = nullptr;
    CUgraphExec exec = nullptr;
    std::size_t wait = SIZE_MAX;  // a wait command's index in batch.waits(), instead of a graph
    // What the graph holds, counted once when it is captured and added per launch as the stream
    // path counts command by command: commands, launches, copies and their bytes.
    std::size_t commands = 0;
    std::uint64_t packets = 0, copies = 0, bytes_copied = 0;
  };
  // A dispatch's kernel node, for Batch::set_args in place (cuGraphExecKernelNodeSetParams).
  struct KernelNode {
    std::size_t segment = SIZE_MAX;
    CUgraphNode node = nullptr;
  };
  // A device-run loop's state (kernels/loop_control.cu's hsad_loop_begin and hsad_loop_condition):
  // pinned host memory the device writes once per launch, kLoopSlots launches' counts in turn,
  // and a few words of device memory it reads and writes every iteration. Held by the graph and
  // by each submission that reads its slot once complete.
  static constexpr std::uint32_t kLoopSlots = 256;
  static constexpr std::size_t kLoopLiveBytes = 4 * sizeof(std::uint32_t);
  struct LoopSlots {
    std::shared_ptr<std::uint32_t> words;  // 2 + 4 * kLoopSlots (cuMemHostAlloc, mapped)
    CUdeviceptr device_words = 0;          // the same, as the device reaches it
    std::shared_ptr<void> live;            // kLoopLiveBytes of device memory (cuMemAlloc), zeroed
    std::uint64_t launches = 0;            // the host's count of the graph's launches, as word 0's
    std::uint64_t max_iterations = 0;
  };
  struct Graph {
    std::vector<Segment> segments;
    std::vector<KernelNode> nodes;  // by dispatch index
    std::vector<LoopSlots> loops;   // by loop index
    std::uint64_t version = 0;
    std::uint64_t args_version = 0;
    std::uint64_t last_used = 0;  // graph_for's count when last submitted: the least recent goes first
    std::uint64_t generation = 0;  // the device's when captured: the batch's kernels were loaded in it
    // ReplayCompletion::node: the memory-write node that ends the last segment's graph.
    CUgraphNode completion = nullptr;
    // ReplayCompletion::counter: the last segment's graph ends with hsad_count_completion.
    bool counts = false;
    // The batch's command labels, owning its code too (one reference count for a submission to
    // take, not two): what a replay's submission holds while it lives. So the graph holds the code
    // its nodes run while it is cached (an executable graph outliving its module would hold
    // functions the driver had unloaded).
    std::shared_ptr<const std::vector<std::string>> labels;
  };
  // The batch's graphs where they are current (same version, same device generation), without
  // touching the cache's order; nullptr where a submit must capture or update.
  Graph* current_graph(const Batch& batch);
  // Whether submitting the current graph `g` under `o` makes no driver call but its launches: the
  // completion on the queue's count, no profiling, no wait or copy between the graphs.
  bool launches_only(const Graph& g, const Options& o) const;
  // The replay a submit finds first (fast_replay): the batch last replayed where its graph is one
  // launch completing on the count (launches_only, one segment, no loop), with what its next
  // submit needs. Kept beside the counts such a submit writes, so that it touches neither the
  // graph cache's map nor the graph: fewer cache lines to miss once the driver's launch has run
  // (paired with cudaGraphLaunch on the H100, a median 0.95 of the library's host time where it
  // was 0.93: docs/results.md, issue 60, seventh session). Under the submit mutex; `graph`
  // nullptr: none.
  struct LastReplay {
    Graph* graph = nullptr;
    std::uint64_t batch = 0, version = 0, args_version = 0, generation = 0;
    CUgraphExec exec = nullptr;
    std::uint64_t packets = 0;
    std::shared_ptr<const std::vector<std::string>> labels;
  };
  // Whether `batch` under `o` is last_'s replay and nothing the generic checks look at would
  // refuse or report it: enqueue_bare's and submit_bare's condition.
  bool bare_ready(const Batch& batch, const Options& o) const;
  // Sets last_ to `g` where it qualifies, else clears it.
  void remember_replay(const Batch& batch, const Options& o, Graph& g);
  // Whether `batch` under `o` is last_'s replay: its graph current, a launch all `o` asks (no
  // signal of its own, no profiling).
  bool replays_last(const Batch& batch, const Options& o) const;
  // The replayed submit of last_'s batch (replays_last): its submission, its one launch and its count.
  std::unique_ptr<CudaSubmission> fast_replay();
  // last_'s launch, counted as the queue counts it itself; the count the launch ends with.
  std::uint32_t launch_last();
  // A counted submission's number in the timeline, and its target in the count's ring: record()
  // for one that completes on the count.
  std::uint64_t count_in_timeline(std::uint32_t target);
  // Graphs kept per queue (the AQL backends keep as many images): an application that records a
  // new batch per iteration must not grow without bound. Evicting one in flight is safe:
  // cuGraphExecDestroy frees an executable graph still running once it completes.
  static constexpr std::size_t kMaxGraphs = 32;
  // Batch::set_args since the graph was captured: the changed dispatches' nodes take their new
  // arguments in the instantiated graph (launches in flight keep theirs). False where a node is
  // unknown (then the graph is captured again). Counts the nodes written as kernarg_writes.
  bool update_args(Graph& g, const Batch& batch);

  // How a dispatch's kernarg block reaches the driver (ArgPassing): pointers into it
  // (kernelParams), or the block itself (extra, CU_LAUNCH_PARAM_BUFFER_POINTER). Not copyable:
  // `extra` points at `size`.
  struct DriverArgs {
    DriverArgs(const KernelInfo& k, void* args, std::size_t bytes, ArgPassing passing);
    DriverArgs(const DriverArgs&) = delete;
    DriverArgs& operator=(const DriverArgs&) = delete;
    std::size_t size;
    void* extra[5];
    void* params[kMaxParams];
    void** kernel_params = nullptr;
    void** launch_extra = nullptr;
  };
  // Dispatch `i` of `batch` as a kernel node's parameters (the graph cache's set_args, a loop's
  // body), pointing into its own DriverArgs.
  struct NodeParams {
    NodeParams(const Batch& batch, std::size_t i, ArgPassing passing);
    NodeParams(const NodeParams&) = delete;
    NodeParams& operator=(const NodeParams&) = delete;
    DriverArgs args;
    CUDA_KERNEL_NODE_PARAMS p{};
  };
  // The stream a launch or copy goes to: the capture stream while a graph is being captured.
  CUstream target() const { return capturing_ ? capture_stream_ : stream_; }
  // early: let this launch start before the previous kernel ends (it waits in the kernel).
  void launch(const detail::Dispatch& d, void* args, std::size_t bytes, bool early = false);
  void copy(const detail::Copy& c);
  CudaSignal create_signal();  // the baseline's: made in the timed run
  void destroy_signal(CudaSignal& s) noexcept;
  void record_signal(CudaSignal& s);  // on the stream, after everything launched so far
  std::uint32_t next_signal_target() { return ++next_target_ ? next_target_ : ++next_target_; }  // never 0
  // ReplayCompletion::node: the last graph's write node takes the signal's slot and a new value.
  void set_completion(const Graph& g, const Segment& s, CudaSignal& signal);
  void wait(const CudaSignal& s, detail::Clock::time_point deadline, const CudaSubmission* sub);
  Graph& graph_for(const Batch& batch);
  // The two ways of submitting: the commands one by one on the stream (cuda_stream_writer.cpp),
  // or the batch's graphs (cuda_graph_writer.cpp, Options::replay).
  void write_commands(const Batch& batch, const Options& o, const detail::ResolvedWaits& waits,
                      detail::Clock::time_point deadline, CudaSubmission& sub);
  // `g`: the batch's graphs, current (graph_for). A submission whose signal is still empty
  // completes on the count where the graph counts, else on a signal acquired here.
  void write_graphs(const Batch& batch, const Options& o, const detail::ResolvedWaits& waits, Graph& g,
                    const detail::Deadline& deadline, CudaSubmission& sub);
  // The submission's completion signal from the queue's pools (Options::signal) or made now.
  void acquire_signal(const Options& o, const detail::Deadline& deadline, CudaSubmission& sub);
  // Makes the stream wait for waits[index] on the device; nothing where there is nothing to wait for.
  void wait_for(const detail::ResolvedWaits& waits, std::size_t index);
  void destroy(Graph& g) noexcept;
  // Loop `index` of the batch, into the stream's capture: hsad_loop_begin, then a WHILE node
  // whose body is the loop's dispatches and hsad_loop_condition (which sets the node's handle).
  void capture_loop(const Batch& batch, std::size_t index, Graph& g);
  // What a submit refuses. `graphed`: the batch's graphs are current, so its kernels, device and
  // copies were checked when they were captured; only the waits are.
  void check_submittable(const Batch& batch, const detail::ResolvedWaits& waits, bool graphed) const;
  void check_commands(const Batch& batch) const;  // kernels of this device generation, devices, copies
  void check_waits(const detail::ResolvedWaits& waits) const;
  CUevent timing_event();
  // A libcuda call a submit made, counted (Stats::driver_calls): wraps the call's result.
  CUresult counted(CUresult r) {
    counters_.driver_calls.fetch_add(1, std::memory_order_relaxed);
    return r;
  }
  // A graph ending in the count's node was launched: the count the device will reach once it
  // ends (whoever waits for it), now the queue's latest. Under the submit mutex.
  std::uint32_t counted_launch() {
    const std::uint32_t target = counter_->launched();
    latest_count_.store(target, std::memory_order_release);
    return target;
  }
  // A count only this queue's submits write (under its submit mutex): a load and a store.
  static void add_own(std::atomic<std::uint64_t>& count, std::uint64_t n) {
    count.store(count.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }

  std::shared_ptr<CudaDevice> device_;
  std::shared_ptr<ContextGuard> guard_;  // the context's this stream, its events and slots belong to
  const Driver& d_;
  detail::Counters& counters_;
  Completion completion_;
  ArgPassing arg_passing_;
  ReplayCompletion replay_completion_;
  bool early_launch_;  // sm_90+: programmatic dependent launch for the barrier bit
  std::optional<CurrentContext> setup_context_;  // the device's context current while the constructor runs
  std::uint32_t* slots_ = nullptr;  // the memwrite pool's pinned slots
  CUdeviceptr slots_device_ = 0;    // the same, as the device reaches them (one mapping)
  std::uint32_t next_target_ = 0;
  // ReplayCompletion::counter: the count in device memory, the pinned word the device copies
  // each new value into (and its device address), and the host's view of the two.
  CUdeviceptr count_device_ = 0;
  std::uint32_t* count_host_ = nullptr;
  CUdeviceptr count_host_device_ = 0;
  std::uint64_t next_slot_ = 0;  // before the pools: the event pool creates events in the device's context
  void* kernarg_memory_;
  KernargPool kernarg_pool_;
  SignalPool signals_;  // handles: a CUevent, or (memwrite) a slot index + 1
  // ReplayCompletion::event under memwrite: the replayed submissions' events, made on the first.
  std::optional<SignalPool> replay_events_;
  SignalPool& replay_events();
  // What a replayed submit reads and writes, side by side (LastReplay says why).
  LastReplay last_;
  // Queue::enqueue's bare launches since the last finish: the latest's count, its number in the
  // timeline and its enqueue's timeout (for let_go_bare), the first's number (0: none), and the
  // labels (so the code) of the run of launches the latest belongs to. Under the submit mutex.
  std::uint32_t bare_target_ = 0;
  std::uint64_t bare_last_ = 0, bare_first_ = 0;
  std::chrono::milliseconds bare_timeout_{0};
  const std::vector<std::string>* bare_labels_ = nullptr;
  CUstream stream_ = nullptr;
  std::uint64_t serial_ = 0;  // under the timeline's submit mutex
  std::uint64_t graph_uses_ = 0;
  std::atomic<std::uint32_t> latest_count_{0};  // counter_->latest(), for append_in_flight
  std::atomic<bool> any_abandoned_{false};  // every submit asks: no lock while there is none
  std::atomic<bool> shut_down_{false};
  // A replayed submit's packets and completion, and the fast path's launch: counted here, not in
  // the device's counters (add_counts; given to them when the queue goes).
  std::atomic<std::uint64_t> own_driver_calls_{0}, own_packets_{0}, own_doorbells_{0};
  // The count: what a counted submit reads and writes of it comes first in it, next to the above.
  std::optional<CompletionCounter> counter_;
  // Where graphs are captured (graph_for): made on first use, touched only by submits, which
  // hold the queue's submit mutex (its timeline's, taken by Queue::submit), so no other thread's
  // call on a stream can meet a capture in progress. The graphs below are under the same mutex.
  CUstream capture_stream_ = nullptr;
  std::map<std::uint64_t, Graph> graphs_;  // by batch id, at most kMaxGraphs
  // What bare launches run, per run of launches of one graph, until the count passes its last
  // (the graph's own labels may go first: a batch recorded again, a graph evicted); the latest run
  // stays until another opens, so that enqueue and finish in turn touch no reference count. Each
  // run's numbers in the timeline, for naming one that failed. Under the submit mutex.
  struct BareRun {
    std::shared_ptr<const std::vector<std::string>> labels;
    std::uint64_t first = 0, last = 0;
    std::uint32_t target = 0;  // the count at the end of its last launch
  };
  std::vector<BareRun> bare_runs_;
  // A bare launch of another graph than the latest's: closes the latest run, lets go of runs the
  // count has passed, opens one.
  void open_bare_run(std::uint64_t number, std::uint32_t target);
  // The latest run's last launch and count, which enqueue_bare keeps in bare_last_ and
  // bare_target_ (not in the vector, on the hot path), written into it.
  void close_bare_run() noexcept;
  bool capturing_ = false;  // launches and copies build a graph: counted when it is launched
  struct Abandoned {
    CudaSignal signal;
    SignalPool::Handle pooled;
    std::string what;
  };
  std::mutex abandoned_mutex_;
  std::vector<Abandoned> abandoned_;
  std::string shut_down_why_;
};

}  // namespace hsad::cuda
