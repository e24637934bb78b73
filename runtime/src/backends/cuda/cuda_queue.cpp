// CudaQueue: the five flags mapped onto a stream. The baseline does what a naive driver-API
// user does: creates its event and allocates its argument buffer inside the timed run, and
// synchronizes after every command. Fence scopes have no per-launch control here: not counted.
// Copies are cuMemcpy*Async on the stream (the driver stages pageable memory itself); a wait for
// another submission is a stream wait; replay turns the commands into CUDA graphs.
#include "backends/cuda/cuda_queue.hpp"

#include <algorithm>

#include <cstdlib>
#include <cstring>
#include <thread>

#include "command_labels.hpp"
#include "graveyard.hpp"
#include "hsad/error.hpp"

namespace hsad::cuda {
namespace {
std::size_t round_up64(std::size_t n) { return (n + 63) & ~std::size_t(63); }
std::uint32_t blocks(std::uint32_t items, std::uint32_t group) { return (items + group - 1) / group; }

// A dispatch's blocks, threads per block and dynamic shared memory, in either driver struct that
// names them alike (CUlaunchConfig, CUDA_KERNEL_NODE_PARAMS).
template <class Launch>
void set_shape(Launch& l, const detail::Dispatch& d) {
  l.gridDimX = blocks(d.grid.x, d.group.x);
  l.gridDimY = blocks(d.grid.y, d.group.y);
  l.gridDimZ = blocks(d.grid.z, d.group.z);
  l.blockDimX = d.group.x;
  l.blockDimY = d.group.y;
  l.blockDimZ = d.group.z;
  l.sharedMemBytes = d.kernel.info().group_segment_size;
}
bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, value) == 0;
}
const char* copy_name(detail::CopyKind k) {
  switch (k) {
    case detail::CopyKind::to_device: return "copy_to_device";
    case detail::CopyKind::to_host: return "copy_to_host";
    default: return "copy";
  }
}
// Under replay, copies run on the stream between graphs, not as memcpy nodes inside them: on
// the H100 a graph of kernels between stream copies replayed the 32768-key sort 4% faster than
// one graph with the copies as nodes, and matched the hand-written graph peer (0.95-1.00 of it
// in three alternating runs, docs/measurements/h100-graph-copies.sh). A pageable copy could
// not be a node anyway (the driver stages it synchronously). HSAD_CUDA_GRAPH_COPIES=node puts
// pinned copies back into the graphs, for that comparison.
bool graphable(const detail::Copy& c) {
  static const bool nodes = env_is("HSAD_CUDA_GRAPH_COPIES", "node");
  return c.host_pinned && nodes;
}
}  // namespace

class CudaSubmission : public detail::SubmissionImpl {
 public:
  explicit CudaSubmission(std::shared_ptr<CudaQueue> q) : q_(std::move(q)) {}

  void wait(detail::Clock::time_point deadline) override {
    if (abandoned_) {
      // Waited again after a timeout: the queue holds the signal while the work runs.
      while (q_->abandoned_still_running(signal)) {
        const std::string why = q_->error();
        if (!why.empty()) throw Error(Errc::device_fault, "cuda", "wait", why);
        if (detail::Clock::now() > deadline) {
          throw detail::TimeoutError("cuda", "wait", describe() + " still runs",
                                     "raise the timeout, or look for a kernel that never ends");
        }
        std::this_thread::yield();
      }
      abandoned_ = pending_ = false;
      signal = {};
      pooled = 0;
      handed_over_ = true;  // the queue gave it back
    }
    if (pending_) {
      try {
        q_->wait(signal, deadline, this);
      } catch (const detail::TimeoutError& e) {
        failed_ = std::string(e.what()) + ": " + describe() + " is abandoned and still runs";
        abandon();
        throw detail::TimeoutError("cuda", "wait", e.status() + ": " + describe() + " is abandoned",
                                   "its queue runs nothing more until it ends; the process's exit stops it");
      } catch (const Error& e) {
        const std::string where = where_it_failed();
        failed_ = e.what() + where;
        if (where.empty()) throw;
        throw Error(e.code(), e.backend(), e.call(), e.status() + where, e.hint());
      }
      pending_ = false;
      read_times();
    }
    waited_ = true;
    release();
    // Complete: a completion nobody else holds gives its signal back now; a queue's timeline
    // then finds nothing left to wait for.
    shared_.reset();
  }

  bool abandoned() const override { return abandoned_; }

  // "submission 3 of the queue (bitonic_step x120)"
  std::string describe() const {
    return detail::describe_submission(serial, labels.get());
  }

  // Which command failed: exact where each was timed (profile), else every command since the
  // last point the host saw complete (for a nosync batch, the whole batch).
  std::string where_it_failed() const {
    if (!labels || labels->empty()) return {};
    for (const Timed& t : timed) {
      if (!t.end || q_->d_.cuEventQuery(t.end) != CUDA_SUCCESS) {
        return " in " + detail::describe_commands(*labels, t.command, t.command);
      }
    }
    return " in " + detail::describe_commands(*labels, 0, labels->size() - 1);
  }

  ~CudaSubmission() override {
    if (abandoned_ && !release_if_complete()) {
      // Still running: the code it runs and what it waits for outlive it.
      detail::keep_forever(std::shared_ptr<const void>(code));
      for (auto& w : waits_for) detail::keep_forever(std::shared_ptr<const void>(w));
      return;
    }
    release();
  }

  bool ready() override {
    if (abandoned_) return !q_->abandoned_still_running(signal) || !q_->error().empty();
    return !pending_ || q_->reached(signal) || !q_->error().empty();
  }

  bool release_if_complete() noexcept override {
    if (abandoned_) {
      if (q_->abandoned_still_running(signal)) return false;
      abandoned_ = pending_ = false;
      signal = {};
      pooled = 0;
      handed_over_ = true;  // the queue gave it back
    }
    if (pending_) {
      if (!q_->reached(signal)) return false;
      pending_ = false;
    }
    release();
    shared_.reset();
    return true;
  }

  std::shared_ptr<detail::CompletionImpl> completion() override {
    if (!shared_) {
      // The signal now belongs to the completion, which outlives this submission while another
      // batch may wait for it; this submission still waits on it.
      shared_ = std::make_shared<CudaCompletion>(q_, signal, pooled, pending_, failed_, serial);
      handed_over_ = true;
    }
    return shared_;
  }

  std::vector<CommandTime> timestamps() const override {
    if (!waited_) throw Error(Errc::invalid_argument, "cuda", "timestamps", "the submission has not been waited for");
    return times_;
  }

  void check_waits_for() const {
    for (const auto& w : waits_for) {
      const std::string why = w->failure();
      if (!why.empty()) throw Error(Errc::queue_stopped, "cuda", "wait", "a submission this batch waits for failed: " + why);
    }
  }

  CudaSignal signal;
  SignalPool::Handle pooled = 0;
  void* own_kernarg = nullptr;
  std::vector<std::shared_ptr<detail::CompletionImpl>> waits_for;
  std::shared_ptr<const void> code;
  struct Timed {
    std::uint32_t command;
    std::string what;
    CUevent start, end;
    bool owned;  // made for this submission
  };
  std::vector<Timed> timed;
  void set_pending() { pending_ = true; }
  std::shared_ptr<const std::vector<std::string>> labels;
  // The host already waited for every command (no nosync): nothing is pending.
  void completed_on_the_host() { read_times(); }

 private:
  void read_times() {
    times_.clear();
    if (timed.empty()) return;
    CUevent base = timed.front().start;
    for (const Timed& t : timed) {
      float start_ms = 0, end_ms = 0;
      check(q_->d_.cuEventElapsedTime(&start_ms, base, t.start), "cuEventElapsedTime");
      check(q_->d_.cuEventElapsedTime(&end_ms, base, t.end), "cuEventElapsedTime");
      times_.push_back({t.command, t.what, std::uint64_t(double(start_ms) * 1e6), std::uint64_t(double(end_ms) * 1e6)});
    }
  }

  void release() noexcept {
    if (pending_) return;  // still running after a timeout: keep what it uses
    if (!handed_over_) q_->give_back(signal, pooled);
    pooled = 0;
    signal = {};
    std::free(own_kernarg);
    own_kernarg = nullptr;
    for (const Timed& t : timed) {
      if (!t.owned) continue;
      q_->d_.cuEventDestroy(t.start);
      q_->d_.cuEventDestroy(t.end);
    }
    timed.clear();
    waits_for.clear();
    code.reset();
  }

  // The wait timed out while the batch runs: the queue takes its signal and refuses later work
  // until the signal is reached; the rest stays with this handle.
  void abandon() {
    abandoned_ = true;
    const std::string what = describe() + " timed out and still runs";
    if (shared_) {
      auto [s, p] = shared_->take_signal("abandoned: " + what);
      q_->abandon(s, p, what);
    } else {
      q_->abandon(signal, handed_over_ ? 0 : pooled, what);
    }
    handed_over_ = true;  // the queue owns the signal now
  }

  std::shared_ptr<CudaQueue> q_;
  std::shared_ptr<CudaCompletion> shared_;
  std::vector<CommandTime> times_;
  std::string failed_;
  bool pending_ = false;
  bool handed_over_ = false;
  bool waited_ = false;
  bool abandoned_ = false;
};

CudaCompletion::CudaCompletion(std::shared_ptr<CudaQueue> queue, CudaSignal signal, SignalPool::Handle pooled,
                               bool pending, std::string failed, std::uint64_t serial)
    : CompletionImpl(queue->device()), queue_(std::move(queue)), signal_(signal), pooled_(pooled),
      pending_(pending), failed_(std::move(failed)), serial_(serial) {}

CudaCompletion::CudaCompletion(std::shared_ptr<CudaQueue> queue, CUevent external)
    : CompletionImpl(queue->device()), queue_(std::move(queue)), signal_{external}, pooled_(0),
      pending_(true), external_(true) {}

CudaCompletion::~CudaCompletion() {
  if (native_) queue_->destroy_event(native_);
  if ((signal_.event || signal_.flag) && !external_) queue_->give_back(signal_, pooled_);
}

std::uint64_t CudaCompletion::native_handle() {
  if (signal_.event) return reinterpret_cast<std::uint64_t>(signal_.event);
  if (!native_) {
    if (!signal_.flag && !failed_.empty()) {
      throw Error(Errc::timeout, "cuda", "native_handle", "the submission was abandoned: " + failed_,
                  "no event can complete with it; wait for it again (Submission::wait)");
    }
    native_ = queue_->native_event(signal_, pending_ && signal_.flag, serial_);
  }
  return reinterpret_cast<std::uint64_t>(native_);
}

std::pair<CudaSignal, SignalPool::Handle> CudaCompletion::take_signal(std::string why) {
  failed_ = std::move(why);
  auto taken = std::make_pair(std::exchange(signal_, CudaSignal{}), std::exchange(pooled_, 0));
  return taken;
}

void CudaCompletion::wait_on(CUstream stream) const {
  if (!pending_) return;  // completed before it was shared
  const Driver& d = queue_->driver();
  if (signal_.flag) {
    check(d.cuStreamWaitValue32(stream, signal_.flag_device, signal_.target, CU_STREAM_WAIT_VALUE_EQ),
          "cuStreamWaitValue32");
  } else {
    check(d.cuStreamWaitEvent(stream, signal_.event, 0), "cuStreamWaitEvent");
  }
}

bool CudaCompletion::ended() const {
  if (!signal_.event && !signal_.flag) return failed_.empty() || !pending_;  // abandoned: it still runs
  if (!pending_) return true;
  return queue_->reached(signal_) || (!external_ && !queue_->error().empty());
}

std::string CudaCompletion::failure() const {
  if (!failed_.empty()) return failed_;
  return pending_ ? queue_->error() : std::string();
}

CudaQueue::CudaQueue(std::shared_ptr<CudaDevice> device, Priority priority)
    : device_(std::move(device)), guard_(device_->guard()), d_(device_->driver()), counters_(device_->counters()),
      // Measured on an H100 (docs/results.md): a stream memory write is the faster completion.
      completion_(env_is("HSAD_CUDA_COMPLETION", "event") ? Completion::event : Completion::memwrite),
      arg_passing_(env_is("HSAD_CUDA_ARGS", "params") ? ArgPassing::params : ArgPassing::buffer),
      early_launch_(std::stoi(device_->info().isa.substr(3)) >= 90 && !env_is("HSAD_CUDA_EARLY_LAUNCH", "0")),
      made_current_((device_->make_current(), true)), kernarg_memory_(std::aligned_alloc(64, kKernargBytes)),
      kernarg_pool_(kernarg_memory_, kKernargBytes),
      signals_(
          kEvents,
          [this]() -> SignalPool::Handle {
            counters_.signals_created.fetch_add(1, std::memory_order_relaxed);
            if (completion_ == Completion::memwrite) {
              if (!slots_) {
                // Portable: a stream of another device may wait for a slot (cuStreamWaitValue32).
                void* page = nullptr;
                check(d_.cuMemHostAlloc(&page, kEvents * kSlotBytes, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE),
                      "cuMemHostAlloc");
                std::memset(page, 0, kEvents * kSlotBytes);
                slots_ = static_cast<std::uint32_t*>(page);
              }
              return next_slot_++ + 1;
            }
            CUevent e;
            check(d_.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
            return reinterpret_cast<SignalPool::Handle>(e);
          },
          [this](SignalPool::Handle h) {
            if (completion_ == Completion::event) d_.cuEventDestroy(reinterpret_cast<CUevent>(h));
          }) {
  counters_.kernarg_allocations.fetch_add(1, std::memory_order_relaxed);
  if (priority == Priority::high) {
    int least = 0, greatest = 0;  // numerically lower is higher
    check(d_.cuCtxGetStreamPriorityRange(&least, &greatest), "cuCtxGetStreamPriorityRange");
    check(d_.cuStreamCreateWithPriority(&stream_, CU_STREAM_NON_BLOCKING, greatest), "cuStreamCreateWithPriority");
  } else {
    check(d_.cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  }
}

CudaQueue::~CudaQueue() {
  // cuLaunchKernel copied every argument block: the host memory is free whatever runs.
  std::free(kernarg_memory_);
  if (guard_->reset.load(std::memory_order_acquire)) return;  // the reset destroyed every handle
  device_->make_current();
  if (!guard_->can_free()) {
    // A kernel still runs: synchronizing, or freeing its slots, would wait for it. The stream is
    // released once its work ends; the rest is kept until exit.
    d_.cuStreamDestroy(stream_);
    return;
  }
  d_.cuStreamSynchronize(stream_);
  for (auto& [id, g] : graphs_) destroy(g);
  d_.cuStreamDestroy(stream_);
  if (slots_) d_.cuMemFreeHost(slots_);
}

std::string CudaQueue::still_running() {
  if (!any_abandoned_.load(std::memory_order_acquire)) return {};
  std::lock_guard<std::mutex> lock(abandoned_mutex_);
  for (auto it = abandoned_.begin(); it != abandoned_.end();) {
    if (!reached(it->signal) && error().empty()) return it->what;
    if (!reached(it->signal)) return {};  // a fault: the stream's error refuses work itself
    give_back(it->signal, it->pooled);
    guard_->abandoned_running.fetch_sub(1, std::memory_order_acq_rel);
    it = abandoned_.erase(it);
  }
  if (abandoned_.empty()) any_abandoned_.store(false, std::memory_order_release);
  return {};
}

void CudaQueue::abandon(CudaSignal signal, SignalPool::Handle pooled, std::string what) {
  std::lock_guard<std::mutex> lock(abandoned_mutex_);
  guard_->abandoned_running.fetch_add(1, std::memory_order_acq_rel);
  abandoned_.push_back({signal, pooled, std::move(what)});
  any_abandoned_.store(true, std::memory_order_release);
}

bool CudaQueue::abandoned_still_running(const CudaSignal& signal) {
  std::lock_guard<std::mutex> lock(abandoned_mutex_);
  for (auto it = abandoned_.begin(); it != abandoned_.end(); ++it) {
    if (it->signal.event != signal.event || it->signal.flag != signal.flag) continue;
    if (!reached(it->signal)) return true;
    give_back(it->signal, it->pooled);
    guard_->abandoned_running.fetch_sub(1, std::memory_order_acq_rel);
    abandoned_.erase(it);
    return false;
  }
  return false;
}

void CudaQueue::shut_down(const std::string& why) {
  shut_down_why_ = why;
  shut_down_.store(true, std::memory_order_release);
  std::lock_guard<std::mutex> lock(abandoned_mutex_);
  abandoned_.clear();  // the reset took the events and slots with the context
}

std::string CudaQueue::error() const {
  if (shut_down_.load(std::memory_order_acquire)) return shut_down_why_;
  const CUresult r = d_.cuStreamQuery(stream_);
  if (r == CUDA_SUCCESS || r == CUDA_ERROR_NOT_READY) return {};
  const char* name = "?";
  d_.cuGetErrorName(r, &name);
  return std::string("the stream failed: ") + name;
}

void CudaQueue::give_back(CudaSignal& s, SignalPool::Handle pooled) noexcept {
  if (pooled) signals_.release(pooled);
  else destroy_signal(s);
  s = {};
}

CudaSignal CudaQueue::create_signal() {
  CudaSignal s;
  if (completion_ == Completion::memwrite) {
    void* p = nullptr;
    check(d_.cuMemHostAlloc(&p, kSlotBytes, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc");
    s.flag = static_cast<std::uint32_t*>(p);
    *s.flag = 0;
    check(d_.cuMemHostGetDevicePointer(&s.flag_device, p, 0), "cuMemHostGetDevicePointer");
  } else {
    check(d_.cuEventCreate(&s.event, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  }
  counters_.signals_created.fetch_add(1, std::memory_order_relaxed);
  return s;
}

void CudaQueue::destroy_signal(CudaSignal& s) noexcept {
  // cuMemFreeHost waits for every kernel of the context: kept while an abandoned one runs.
  if (guard_->can_free()) {
    if (s.event) d_.cuEventDestroy(s.event);
    if (s.flag) d_.cuMemFreeHost(s.flag);
  }
  s = {};
}

std::shared_ptr<detail::CompletionImpl> CudaQueue::native_wait(std::uint64_t handle) {
  return std::make_shared<CudaCompletion>(shared_from_this(), reinterpret_cast<CUevent>(handle));
}

CUevent CudaQueue::native_event(const CudaSignal& s, bool pending, std::uint64_t serial) {
  device_->make_current();
  CUevent e = nullptr;
  check(d_.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  try {
    {
      // Still the queue's latest submission: an event recorded on the stream now completes with it
      // (the common case, a handle asked for right after the submit). One record, no extra stream.
      std::lock_guard<std::mutex> lock(timeline.submit_mutex());
      if (serial == serial_ && !shut_down_.load(std::memory_order_acquire)) {
        check(d_.cuEventRecord(e, stream_), "cuEventRecord");
        return e;
      }
    }
    // Later work is on the stream: a stream of its own waits for the submission's memory write,
    // and the event records there (a shared one would order it behind other waits).
    CUstream side = nullptr;
    check(d_.cuStreamCreate(&side, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    const CUresult waited =
        pending ? d_.cuStreamWaitValue32(side, s.flag_device, s.target, CU_STREAM_WAIT_VALUE_EQ) : CUDA_SUCCESS;
    const CUresult recorded = waited == CUDA_SUCCESS ? d_.cuEventRecord(e, side) : waited;
    d_.cuStreamDestroy(side);  // released by the driver once its wait and record are done
    check(waited, "cuStreamWaitValue32");
    check(recorded, "cuEventRecord");
  } catch (...) {
    d_.cuEventDestroy(e);
    throw;
  }
  return e;
}

void CudaQueue::destroy_event(CUevent e) noexcept {
  if (!guard_->reset.load(std::memory_order_acquire)) d_.cuEventDestroy(e);
}

CUevent CudaQueue::timing_event() {
  CUevent e;
  check(d_.cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
  return e;
}

void CudaQueue::record(CudaSignal& s) {
  if (s.flag) {
    s.target = ++next_target_ ? next_target_ : ++next_target_;
    check(d_.cuStreamWriteValue32(stream_, s.flag_device, s.target, CU_STREAM_WRITE_VALUE_DEFAULT),
          "cuStreamWriteValue32");
  } else {
    check(d_.cuEventRecord(s.event, stream_), "cuEventRecord");
  }
  counters_.doorbells.fetch_add(1, std::memory_order_relaxed);
}

void CudaQueue::wait(const CudaSignal& s, detail::Clock::time_point deadline, const CudaSubmission* sub) {
  counters_.host_waits.fetch_add(1, std::memory_order_relaxed);
  // Polling (rather than cuEventSynchronize) keeps the timeout, and reports a kernel fault as
  // the event's or the stream's error, and a failed submission waited for as such.
  for (int spins = 0;; ++spins) {
    if (s.flag) {
      if (__atomic_load_n(s.flag, __ATOMIC_ACQUIRE) == s.target) return;
      if ((spins & 255) == 255) {
        const CUresult r = d_.cuStreamQuery(stream_);
        if (r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_READY) check(r, "cuStreamQuery");
      }
    } else {
      const CUresult r = d_.cuEventQuery(s.event);
      if (r == CUDA_SUCCESS) return;
      if (r != CUDA_ERROR_NOT_READY) check(r, "cuEventQuery");
    }
    if (sub && (spins & 255) == 255) sub->check_waits_for();
    if (detail::Clock::now() > deadline) {
      throw detail::TimeoutError("cuda", "wait", "timed out waiting for the batch",
                                 "raise the timeout, or look for a kernel that never ends");
    }
    if (spins > 64) std::this_thread::yield();
  }
}

CudaQueue::DriverArgs::DriverArgs(const KernelInfo& k, void* args, std::size_t bytes, ArgPassing passing)
    : size(bytes), extra{CU_LAUNCH_PARAM_BUFFER_POINTER, args, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END} {
  const bool by_params = passing == ArgPassing::params && k.args.size() <= kMaxParams;
  if (by_params) {
    for (std::size_t i = 0; i < k.args.size(); ++i) params[i] = static_cast<unsigned char*>(args) + k.args[i].offset;
    kernel_params = params;
  } else if (bytes) {
    launch_extra = extra;
  }
}

void CudaQueue::launch(const detail::Dispatch& d, void* args, std::size_t bytes, bool early) {
  const KernelInfo& k = d.kernel.info();
  const DriverArgs a(k, args, bytes, arg_passing_);
  void** kernel_params = a.kernel_params;
  void** launch_extra = a.launch_extra;
  if (early) {
    CUlaunchAttribute attr{};
    attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attr.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig config{};
    set_shape(config, d);
    config.hStream = stream_;
    config.attrs = &attr;
    config.numAttrs = 1;
    check(d_.cuLaunchKernelEx(&config, static_cast<CUfunction>(d.kernel.impl().native), kernel_params, launch_extra),
          "cuLaunchKernelEx");
  } else {
    check(d_.cuLaunchKernel(static_cast<CUfunction>(d.kernel.impl().native), blocks(d.grid.x, d.group.x),
                            blocks(d.grid.y, d.group.y), blocks(d.grid.z, d.group.z), d.group.x, d.group.y, d.group.z,
                            k.group_segment_size, stream_, kernel_params, launch_extra),
          "cuLaunchKernel");
  }
  if (!capturing_) counters_.packets.fetch_add(1, std::memory_order_relaxed);
}

void CudaQueue::copy(const detail::Copy& c) {
  const auto dst = reinterpret_cast<CUdeviceptr>(c.dst);
  const auto src = reinterpret_cast<CUdeviceptr>(c.src);
  switch (c.kind) {
    case detail::CopyKind::to_device:
      check(d_.cuMemcpyHtoDAsync(dst, c.src, c.bytes, stream_), "cuMemcpyHtoDAsync");
      break;
    case detail::CopyKind::to_host:
      check(d_.cuMemcpyDtoHAsync(c.dst, src, c.bytes, stream_), "cuMemcpyDtoHAsync");
      break;
    case detail::CopyKind::device_to_device:
      if (c.dst_device->same_device(c.src_device)) {
        check(d_.cuMemcpyDtoDAsync(dst, src, c.bytes, stream_), "cuMemcpyDtoDAsync");
      } else {
        check(d_.cuMemcpyPeerAsync(dst, static_cast<CudaDevice*>(c.dst_device)->context(), src,
                                   static_cast<CudaDevice*>(c.src_device)->context(), c.bytes, stream_),
              "cuMemcpyPeerAsync");
      }
      break;
  }
  if (capturing_) return;  // a graph's copies are counted when it is launched
  counters_.copies.fetch_add(1, std::memory_order_relaxed);
  counters_.bytes_copied.fetch_add(c.bytes, std::memory_order_relaxed);
  if (!c.host_pinned) counters_.bytes_staged.fetch_add(c.bytes, std::memory_order_relaxed);
}

void CudaQueue::destroy(Graph& g) noexcept {
  for (Segment& s : g.segments) {
    if (s.exec) d_.cuGraphExecDestroy(s.exec);
    if (s.graph) d_.cuGraphDestroy(s.graph);
  }
  g = {};
}

bool CudaQueue::update_args(Graph& g, const Batch& batch) {
  std::vector<std::uint32_t> changed;
  if (g.args_version >= batch.args_changes_from()) {
    const auto& log = batch.args_changes();
    changed.assign(log.begin() + std::ptrdiff_t(g.args_version - batch.args_changes_from()), log.end());
  } else {
    for (std::uint32_t i = 0; i < batch.dispatches().size(); ++i) {
      if (batch.args_version(i) > g.args_version) changed.push_back(i);
    }
  }
  for (std::uint32_t i : changed) {
    if (i >= g.nodes.size() || !g.nodes[i].node) return false;
  }
  std::sort(changed.begin(), changed.end());
  changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
  for (std::uint32_t i : changed) {
    const detail::Dispatch& d = batch.dispatches()[i];
    const KernelInfo& k = d.kernel.info();
    DriverArgs a(k, const_cast<unsigned char*>(batch.kernarg_image(i)), k.kernarg_segment_size, arg_passing_);
    CUDA_KERNEL_NODE_PARAMS p{};
    p.func = static_cast<CUfunction>(d.kernel.impl().native);
    set_shape(p, d);
    p.kernelParams = a.kernel_params;
    p.extra = a.launch_extra;
    // The driver copies the arguments now; a launch of the graph already in flight keeps its own.
    check(d_.cuGraphExecKernelNodeSetParams(g.segments[g.nodes[i].segment].exec, g.nodes[i].node, &p),
          "cuGraphExecKernelNodeSetParams");
  }
  counters_.kernarg_writes.fetch_add(changed.size(), std::memory_order_relaxed);
  g.args_version = batch.args_version();
  return true;
}

const CudaQueue::Graph& CudaQueue::graph_for(const Batch& batch) {
  auto it = graphs_.find(batch.id());
  if (it != graphs_.end() && it->second.version == batch.version() &&
      (it->second.args_version == batch.args_version() || update_args(it->second, batch))) {
    it->second.last_used = ++graph_uses_;
    return it->second;
  }
  if (it != graphs_.end()) {
    destroy(it->second);
    graphs_.erase(it);
  }
  if (graphs_.size() >= kMaxGraphs) {
    auto oldest = std::min_element(graphs_.begin(), graphs_.end(),
                                   [](const auto& a, const auto& b) { return a.second.last_used < b.second.last_used; });
    destroy(oldest->second);
    graphs_.erase(oldest);
  }
  // Captured from the same launches and copies; the driver copies the argument buffers into the
  // graph. A wait, or a pageable copy, ends one graph; the next command starts another.
  Graph g;
  g.last_used = ++graph_uses_;
  g.version = batch.version();
  g.args_version = batch.args_version();
  g.nodes.resize(batch.dispatches().size());
  counters_.images_built.fetch_add(1, std::memory_order_relaxed);
  bool capturing = false;
  auto end_capture = [&] {
    if (!capturing) return;
    Segment s;
    check(d_.cuStreamEndCapture(stream_, &s.graph), "cuStreamEndCapture");
    check(d_.cuGraphInstantiateWithFlags(&s.exec, s.graph, 0), "cuGraphInstantiateWithFlags");
    g.segments.push_back(s);
    capturing = capturing_ = false;
  };
  try {
    for (const detail::Command& c : batch.commands()) {
      const bool in_graph = c.kind == detail::CommandKind::exec ||
                            (c.kind == detail::CommandKind::copy && graphable(batch.copies()[c.index]));
      if (!in_graph) {
        end_capture();
        Segment s;
        s.wait = c.kind == detail::CommandKind::wait ? c.index : SIZE_MAX;
        g.segments.push_back(s);
        continue;
      }
      if (!capturing) {
        check(d_.cuStreamBeginCapture(stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
        capturing = capturing_ = true;
      }
      if (c.kind == detail::CommandKind::exec) {
        const auto& disp = batch.dispatches()[c.index];
        launch(disp, const_cast<unsigned char*>(batch.kernarg_image(c.index)), disp.kernel.info().kernarg_segment_size);
        // The node just captured is the capture's one dependency now: kept for set_args.
        CUstreamCaptureStatus status;
        const CUgraphNode* deps = nullptr;
        std::size_t count = 0;
        if (d_.cuStreamGetCaptureInfo(stream_, &status, nullptr, nullptr, &deps, nullptr, &count) == CUDA_SUCCESS &&
            count == 1) {
          g.nodes[c.index] = {g.segments.size(), deps[0]};
        }
      } else {
        copy(batch.copies()[c.index]);
      }
    }
    end_capture();
  } catch (...) {
    capturing_ = false;
    if (capturing) {
      CUgraph partial = nullptr;
      d_.cuStreamEndCapture(stream_, &partial);
      if (partial) d_.cuGraphDestroy(partial);
    }
    destroy(g);
    throw;
  }
  return graphs_.emplace(batch.id(), std::move(g)).first->second;
}

bool CudaQueue::reached(const CudaSignal& s) const noexcept {
  if (s.flag) return __atomic_load_n(s.flag, __ATOMIC_ACQUIRE) == s.target;
  return s.event && d_.cuEventQuery(s.event) == CUDA_SUCCESS;
}

void CudaQueue::check_submittable(const Batch& batch, const detail::ResolvedWaits& waits) const {
  if (shut_down_.load(std::memory_order_acquire)) throw Error(Errc::queue_stopped, "cuda", "submit", shut_down_why_, "create a new queue");
  for (const detail::Dispatch& d : batch.dispatches()) {
    if (d.kernel.impl().generation != device_->generation()) {
      throw Error(Errc::invalid_argument, "cuda", "submit", "kernel '" + d.kernel.name() + "' was loaded before the device was reset",
                  "get the kernel (and record the batch) again after Device::reset");
    }
  }
  if (batch.device() && !device_->same_device(batch.device())) {
    throw Error(Errc::invalid_argument, "cuda", "submit",
                "the batch names device '" + batch.device()->info().name + "' (" + batch.device()->info().backend +
                    "), this queue belongs to '" + device_->info().name + "'",
                "submit it to a queue of the device it was recorded for");
  }
  for (const detail::Copy& c : batch.copies()) {
    for (const detail::DeviceImpl* d : {c.dst_device, c.src_device}) {
      if (d && d->info().backend != "cuda") {
        throw Error(Errc::invalid_argument, "cuda", "submit", "a copy between devices of different backends (" + d->info().backend +
                                          " memory on a cuda queue)", "copy through the host");
      }
    }
    if (!device_->same_device(c.dst_device) && !device_->same_device(c.src_device)) {
      throw Error(Errc::invalid_argument, "cuda", "submit", "a copy between two other devices on this device's queue",
                  "submit it to a queue of one of the two devices");
    }
  }
  for (const std::shared_ptr<detail::CompletionImpl>& w : waits) {
    if (!w) continue;
    if (w->device().info().backend != "cuda") {
      throw Error(Errc::invalid_argument, "cuda", "submit",
                  "a dependency between devices of different backends (" + w->device().info().backend +
                      " submission, cuda queue)",
                  "wait for it on the host (Submission::wait), then submit");
    }
    const std::string why = w->failure();
    if (!why.empty()) {
      throw Error(Errc::queue_stopped, "cuda", "submit", "the batch waits for a submission whose queue failed: " + why,
                  "resubmit the work it depends on first");
    }
  }
}

std::unique_ptr<detail::SubmissionImpl> CudaQueue::submit(const Batch& batch, const Options& o,
                                                          detail::Clock::time_point deadline,
                                                          const detail::ResolvedWaits& waits) {
  std::lock_guard<std::mutex> lock(mutex_);  // one stream: capture and launches must not interleave
  device_->make_current();
  check_submittable(batch, waits);
  auto sub = std::make_unique<CudaSubmission>(shared_from_this());
  sub->serial = ++serial_;
  sub->labels = batch.labels();
  const std::size_t count = batch.size();
  if (count == 0) return sub;
  sub->code = batch.code();
  for (const std::shared_ptr<detail::CompletionImpl>& w : waits) {
    if (w) sub->waits_for.push_back(w);
  }

  if (o.signal) {
    sub->pooled = signals_.acquire(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - detail::Clock::now()));
    if (completion_ == Completion::memwrite) {
      sub->signal.flag = slots_ + (sub->pooled - 1) * (kSlotBytes / 4);
      check(d_.cuMemHostGetDevicePointer(&sub->signal.flag_device, sub->signal.flag, 0), "cuMemHostGetDevicePointer");
    } else {
      sub->signal.event = reinterpret_cast<CUevent>(sub->pooled);
    }
  } else {
    sub->signal = create_signal();
  }
  auto wait_for = [&](std::size_t index) {
    if (!waits[index]) return;  // nothing left to wait for
    static_cast<const CudaCompletion&>(*waits[index]).wait_on(stream_);
    counters_.device_waits.fetch_add(1, std::memory_order_relaxed);
  };

  if (o.replay) {
    // Profiling a replayed batch times each graph as one command: the driver's events time
    // what a stream runs, not the nodes inside a graph.
    const Graph& g = graph_for(batch);
    std::size_t command = 0;
    for (const Segment& s : g.segments) {
      CUevent start = nullptr;
      if (o.profile && s.wait == SIZE_MAX) start = timing_event(), check(d_.cuEventRecord(start, stream_), "cuEventRecord");
      const std::size_t first = command;
      if (s.exec) {
        check(d_.cuGraphLaunch(s.exec, stream_), "cuGraphLaunch");
        // Count what the graph holds, command by command, as the stream path counts it.
        for (; command < count; ++command) {
          const detail::Command& c = batch.commands()[command];
          if (c.kind == detail::CommandKind::wait || (c.kind == detail::CommandKind::copy && !graphable(batch.copies()[c.index]))) break;
          if (c.kind == detail::CommandKind::exec) {
            counters_.packets.fetch_add(1, std::memory_order_relaxed);
          } else {
            const detail::Copy& cp = batch.copies()[c.index];
            counters_.copies.fetch_add(1, std::memory_order_relaxed);
            counters_.bytes_copied.fetch_add(cp.bytes, std::memory_order_relaxed);
          }
        }
      } else {
        const detail::Command& c = batch.commands()[command++];
        if (s.wait != SIZE_MAX) wait_for(s.wait);
        else copy(batch.copies()[c.index]);
      }
      if (start) {
        const CUevent end = timing_event();
        check(d_.cuEventRecord(end, stream_), "cuEventRecord");
        const detail::Command& c = batch.commands()[first];
        const std::string what = s.exec ? "graph of " + std::to_string(command - first) + " commands"
                                        : copy_name(batch.copies()[c.index].kind);
        sub->timed.push_back({std::uint32_t(first), what, start, end, true});
      }
    }
    record(sub->signal);
    sub->set_pending();
    return sub;
  }

  std::size_t own_stride = 0;
  if (!o.kernarg && !batch.dispatches().empty()) {
    std::size_t bytes = 0;
    for (auto& d : batch.dispatches()) {
      const std::size_t b = round_up64(d.kernel.info().kernarg_segment_size);
      bytes = o.nosync ? bytes + b : std::max(bytes, b);
    }
    sub->own_kernarg = std::aligned_alloc(64, std::max<std::size_t>(bytes, 64));
    counters_.kernarg_allocations.fetch_add(1, std::memory_order_relaxed);
  }
  if (o.profile) sub->timed.reserve(count);
  bool previous_was_launch = false;
  for (std::size_t i = 0; i < count; ++i) {
    const detail::Command& c = batch.commands()[i];
    CUevent start = nullptr;
    if (o.profile && c.kind != detail::CommandKind::wait) {
      start = timing_event();
      check(d_.cuEventRecord(start, stream_), "cuEventRecord");
    }
    switch (c.kind) {
      case detail::CommandKind::exec: {
        const detail::Dispatch& d = batch.dispatches()[c.index];
        const std::size_t kbytes = d.kernel.info().kernarg_segment_size;
        void* args;
        std::optional<KernargPool::Block> block;
        if (o.kernarg) {
          while (!(block = kernarg_pool_.try_acquire(kbytes))) std::this_thread::yield();
          args = block->ptr;
        } else {
          args = static_cast<unsigned char*>(sub->own_kernarg) + own_stride;
          if (o.nosync) own_stride += round_up64(kbytes);
        }
        if (kbytes) std::memcpy(args, batch.kernarg_image(c.index), kbytes);
        // With nosync the host no longer separates the kernels: the barrier bit becomes an
        // in-kernel wait, so the next launch can overlap the end of the one before. Only for a
        // kernel that waits for it (the library's own: HSAD_BARRIER_WAIT), right after a launch.
        const bool early = o.nosync && early_launch_ && previous_was_launch && !o.profile &&
                           d.kernel.impl().early_launch_ok;
        launch(d, args, kbytes, early);
        // cuLaunchKernel has copied the argument buffer: the block is free again at once.
        if (block) kernarg_pool_.release(block->ticket);
        previous_was_launch = true;
        if (o.profile) sub->timed.push_back({std::uint32_t(i), d.kernel.name(), start, nullptr, true});
        break;
      }
      case detail::CommandKind::copy:
        copy(batch.copies()[c.index]);
        previous_was_launch = false;
        if (o.profile) sub->timed.push_back({std::uint32_t(i), copy_name(batch.copies()[c.index].kind), start, nullptr, true});
        break;
      case detail::CommandKind::wait:
        wait_for(c.index);
        previous_was_launch = false;
        break;
    }
    if (start) {
      sub->timed.back().end = timing_event();
      check(d_.cuEventRecord(sub->timed.back().end, stream_), "cuEventRecord");
    }
    if (!o.nosync) {
      record(sub->signal);
      try {
        wait(sub->signal, deadline, sub.get());
      } catch (const detail::TimeoutError& e) {
        // The baseline waits after each command: this one still runs; the queue keeps its signal.
        abandon(sub->signal, sub->pooled, sub->describe() + " timed out in " +
                                    detail::describe_commands(*sub->labels, i, i) + " and still runs");
        sub->signal = {};
        sub->pooled = 0;
        throw;
      } catch (const Error& e) {
        sub->failed_command = std::int64_t(i);
        throw Error(e.code(), e.backend(), e.call(), e.status() + " in " + detail::describe_commands(*sub->labels, i, i),
                    e.hint());
      }
    }
  }
  if (o.nosync) {
    record(sub->signal);
    sub->set_pending();
  } else {
    sub->completed_on_the_host();
  }
  return sub;
}

}  // namespace hsad::cuda
