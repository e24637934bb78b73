// CudaQueue: the five flags mapped onto a stream. The baseline does what a naive driver-API
// user does: creates its event and allocates its argument buffer inside the timed run, and
// synchronizes after every command. Fence scopes have no per-launch control here: not counted.
// Copies are cuMemcpy*Async on the stream (the driver stages pageable memory itself); a wait for
// another submission is a stream wait; replay turns the commands into CUDA graphs.
#include "backends/cuda/cuda_queue.hpp"

#include "backends/cuda/cuda_lowering.hpp"
#include "backends/cuda/cuda_submission.hpp"

#include <algorithm>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>

#include "command_labels.hpp"
#include "graveyard.hpp"
#include "hot_path.hpp"
#include "tool_ranges.hpp"
#include "hsad/error.hpp"

namespace hsad::cuda {
namespace {

}  // namespace

CudaQueue::CudaQueue(std::shared_ptr<CudaDevice> device, Priority priority)
    : device_(std::move(device)), guard_(device_->guard()), d_(device_->driver()), counters_(device_->counters()),
      // Measured on an H100 (docs/results.md): a stream memory write is the faster completion.
      completion_(env_is("HSAD_CUDA_COMPLETION", "event") ? Completion::event : Completion::memwrite),
      arg_passing_(env_is("HSAD_CUDA_ARGS", "params") ? ArgPassing::params : ArgPassing::buffer),
      replay_completion_(env_is("HSAD_CUDA_REPLAY_COMPLETION", "stream") ? ReplayCompletion::stream
                         : env_is("HSAD_CUDA_REPLAY_COMPLETION", "node") && d_.cuGraphExecBatchMemOpNodeSetParams
                             ? ReplayCompletion::node
                         : env_is("HSAD_CUDA_REPLAY_COMPLETION", "event") ? ReplayCompletion::event
                                                                           : ReplayCompletion::counter),
      early_launch_(std::stoi(device_->info().isa.substr(3)) >= 90 && !env_is("HSAD_CUDA_EARLY_LAUNCH", "0")),
      setup_context_(std::in_place, device_->driver(), device_->context()), kernarg_memory_(std::aligned_alloc(64, kKernargBytes)),
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
                // One mapping: a slot's device address is the page's plus its offset, so a submit
                // asks the driver for none.
                check(d_.cuMemHostGetDevicePointer(&slots_device_, page, 0), "cuMemHostGetDevicePointer");
              }
              return next_slot_++ + 1;
            }
            CUevent e;
            check(d_.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
            return reinterpret_cast<SignalPool::Handle>(e);
          },
          [this](SignalPool::Handle h) {
            // After Device::reset the events went with the old context: destroying one again
            // crashed inside the driver (HSAD_CUDA_COMPLETION=event, at exit after a reset).
            if (completion_ == Completion::event) destroy_event(reinterpret_cast<CUevent>(h));
          }) {
  counters_.kernarg_allocations.fetch_add(1, std::memory_order_relaxed);
  if (priority == Priority::high) {
    int least = 0, greatest = 0;  // numerically lower is higher
    check(d_.cuCtxGetStreamPriorityRange(&least, &greatest), "cuCtxGetStreamPriorityRange");
    check(d_.cuStreamCreateWithPriority(&stream_, CU_STREAM_NON_BLOCKING, greatest), "cuStreamCreateWithPriority");
  } else {
    check(d_.cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  }
  if (replay_completion_ == ReplayCompletion::counter) {
    // The count starts at 0 on both sides: "none yet".
    check(d_.cuMemAlloc(&count_device_, sizeof(std::uint32_t)), "cuMemAlloc (the completion count)");
    const std::uint32_t zero = 0;
    check(d_.cuMemcpyHtoD(count_device_, &zero, sizeof zero), "cuMemcpyHtoD (the completion count)");
    void* page = nullptr;
    check(d_.cuMemHostAlloc(&page, kSlotBytes, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc");
    std::memset(page, 0, kSlotBytes);
    count_host_ = static_cast<std::uint32_t*>(page);
    check(d_.cuMemHostGetDevicePointer(&count_host_device_, page, 0), "cuMemHostGetDevicePointer");
    counter_.emplace(count_host_);
  }
  setup_context_.reset();  // the caller's context current again
}

CudaQueue::~CudaQueue() {
  // What the queue counted itself stays in the device's counters.
  counters_.driver_calls.fetch_add(own_driver_calls_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  counters_.packets.fetch_add(own_packets_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  counters_.doorbells.fetch_add(own_doorbells_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  // cuLaunchKernel copied every argument block: the host memory is free whatever runs.
  std::free(kernarg_memory_);
  if (guard_->reset.load(std::memory_order_acquire)) return;  // the reset destroyed every handle
  const CurrentContext scope = device_->current();
  // Abandoned work that has ended since holds nothing: the context's frees need not wait for it.
  if (any_abandoned_.load(std::memory_order_acquire)) (void)still_running();
  if (!guard_->can_free()) {
    // A kernel still runs: synchronizing, or freeing its slots, would wait for it. The stream is
    // released once its work ends; the rest is kept until exit.
    d_.cuStreamDestroy(stream_);
    if (capture_stream_) d_.cuStreamDestroy(capture_stream_);
    for (const BareRun& r : bare_runs_) detail::keep_forever(std::shared_ptr<const void>(r.labels));
    return;
  }
  d_.cuStreamSynchronize(stream_);
  for (auto& [id, g] : graphs_) destroy(g);
  d_.cuStreamDestroy(stream_);
  if (capture_stream_) d_.cuStreamDestroy(capture_stream_);
  if (slots_) d_.cuMemFreeHost(slots_);
  if (count_host_) d_.cuMemFreeHost(count_host_);
  if (count_device_) d_.cuMemFree(count_device_);
}

HSAD_HOT std::string CudaQueue::still_running() {
  if (!any_abandoned_.load(std::memory_order_acquire)) return {};
  std::lock_guard<std::mutex> lock(abandoned_mutex_);
  for (auto it = abandoned_.begin(); it != abandoned_.end();) {
    if (!reached(it->signal) && error().empty()) return it->what;
    if (!reached(it->signal)) return {};  // a fault: the stream's error refuses work itself
    give_back(it->signal, it->pooled);
    guard_->ended();
    it = abandoned_.erase(it);
  }
  if (abandoned_.empty()) any_abandoned_.store(false, std::memory_order_release);
  return {};
}

void CudaQueue::abandon(CudaSignal signal, SignalPool::Handle pooled, std::string what) {
  std::lock_guard<std::mutex> lock(abandoned_mutex_);
  guard_->abandon();
  abandoned_.push_back({signal, pooled, std::move(what)});
  any_abandoned_.store(true, std::memory_order_release);
}

bool CudaQueue::abandoned_still_running(const CudaSignal& signal) {
  std::lock_guard<std::mutex> lock(abandoned_mutex_);
  for (auto it = abandoned_.begin(); it != abandoned_.end(); ++it) {
    if (it->signal.event != signal.event || it->signal.flag != signal.flag || it->signal.target != signal.target) continue;
    if (!reached(it->signal)) return true;
    give_back(it->signal, it->pooled);
    guard_->ended();
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

SignalPool& CudaQueue::replay_events() {
  if (!replay_events_) {
    replay_events_.emplace(
        kEvents,
        [this]() -> SignalPool::Handle {
          counters_.signals_created.fetch_add(1, std::memory_order_relaxed);
          CUevent e;
          check(d_.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
          return reinterpret_cast<SignalPool::Handle>(e);
        },
        [this](SignalPool::Handle h) { destroy_event(reinterpret_cast<CUevent>(h)); });
  }
  return *replay_events_;
}

void CudaQueue::give_back(CudaSignal& s, SignalPool::Handle pooled) noexcept {
  if (s.counter) {  // the queue's count: nobody's to give back
    s = {};
    return;
  }
  // A pooled event under memwrite completions is a replayed submission's (replay_events()).
  if (pooled && s.event && completion_ == Completion::memwrite) replay_events_->release(pooled);
  else if (pooled) signals_.release(pooled);
  else destroy_signal(s);
  s = {};
}

CudaSignal CudaQueue::create_signal() {
  CudaSignal s;
  if (completion_ == Completion::memwrite) {
    void* p = nullptr;
    check(counted(d_.cuMemHostAlloc(&p, kSlotBytes, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE)), "cuMemHostAlloc");
    s.flag = static_cast<std::uint32_t*>(p);
    *s.flag = 0;
    check(counted(d_.cuMemHostGetDevicePointer(&s.flag_device, p, 0)), "cuMemHostGetDevicePointer");
  } else {
    check(counted(d_.cuEventCreate(&s.event, CU_EVENT_DISABLE_TIMING)), "cuEventCreate");
  }
  counters_.signals_created.fetch_add(1, std::memory_order_relaxed);
  return s;
}

void CudaQueue::destroy_signal(CudaSignal& s) noexcept {
  if (s.counter) {
    s = {};
    return;
  }
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
  const CurrentContext scope = device_->current();
  CUevent e = nullptr;
  check(d_.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  try {
    {
      // Still the queue's latest submission: an event recorded on the stream now completes with it
      // (the common case, a handle asked for right after the submit). One record, no extra stream.
      std::lock_guard<detail::SubmitMutex> lock(timeline.submit_mutex());
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
        pending ? d_.cuStreamWaitValue32(side, s.flag_device, s.target, s.wait_flags()) : CUDA_SUCCESS;
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
  check(counted(d_.cuEventCreate(&e, CU_EVENT_DEFAULT)), "cuEventCreate");
  return e;
}

void CudaQueue::record_signal(CudaSignal& s) {
  if (s.flag) {
    s.target = next_signal_target();
    check(counted(d_.cuStreamWriteValue32(stream_, s.flag_device, s.target, CU_STREAM_WRITE_VALUE_DEFAULT)),
          "cuStreamWriteValue32");
  } else {
    check(counted(d_.cuEventRecord(s.event, stream_)), "cuEventRecord");
  }
  counters_.doorbells.fetch_add(1, std::memory_order_relaxed);
}

void CudaQueue::wait(const CudaSignal& s, detail::Clock::time_point deadline, const CudaSubmission* sub) {
  counters_.host_waits.fetch_add(1, std::memory_order_relaxed);
  // Polling (rather than cuEventSynchronize) keeps the timeout, and reports a kernel fault as
  // the event's or the stream's error, and a failed submission waited for as such. A short wait
  // spins (a dispatch's end is microseconds away); past kSpinFor the waiter sleeps between
  // looks, each sleep a 64th of the time waited so far, so a long wait (a device-run loop of
  // many iterations) costs the host next to no CPU and ends at most about 2% late.
  constexpr auto kSpinFor = std::chrono::milliseconds(2);
  const auto began = detail::Clock::now();
  for (int spins = 0;; ++spins) {
    if (s.flag) {
      if (s.reached_by(__atomic_load_n(s.flag, __ATOMIC_ACQUIRE))) return;
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
    if (spins <= 64) continue;
    const auto waited = detail::Clock::now() - began;
    if (waited < kSpinFor) std::this_thread::yield();
    else std::this_thread::sleep_for(std::min<detail::Clock::duration>(waited / 64, std::chrono::milliseconds(1)));
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
  // A cooperative launch takes its arguments as kernelParams only: the driver refuses the packed
  // buffer (CU_LAUNCH_PARAM_BUFFER_POINTER) with CUDA_ERROR_INVALID_VALUE, as cuLaunchCooperativeKernel
  // has no `extra` at all.
  if (d.config.cooperative && k.args.size() > kMaxParams) {
    throw Error(Errc::unsupported, "cuda", "launch " + k.name,
                "a cooperative launch of a kernel of " + std::to_string(k.args.size()) + " parameters (at most " +
                    std::to_string(kMaxParams) + " go as kernelParams)");
  }
  const DriverArgs a(k, args, bytes, d.config.cooperative ? ArgPassing::params : arg_passing_);
  void** kernel_params = a.kernel_params;
  void** launch_extra = a.launch_extra;
  if (early || d.config.cooperative) {
    CUlaunchAttribute attrs[2]{};
    unsigned count = 0;
    if (early) {
      attrs[count].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attrs[count++].value.programmaticStreamSerializationAllowed = 1;
    }
    if (d.config.cooperative) {  // every block resident at once: grid.sync() may wait for all
      attrs[count].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
      attrs[count++].value.cooperative = 1;
    }
    CUlaunchConfig config{};
    set_shape(config, d);
    config.hStream = target();
    config.attrs = attrs;
    config.numAttrs = count;
    check(counted(d_.cuLaunchKernelEx(&config, static_cast<CUfunction>(d.kernel.impl().native), kernel_params, launch_extra)),
          d.config.cooperative ? "cuLaunchKernelEx (cooperative)" : "cuLaunchKernelEx");
    if (early) counters_.early_launches.fetch_add(1, std::memory_order_relaxed);
  } else {
    check(counted(d_.cuLaunchKernel(static_cast<CUfunction>(d.kernel.impl().native), blocks(d.grid.x, d.group.x),
                            blocks(d.grid.y, d.group.y), blocks(d.grid.z, d.group.z), d.group.x, d.group.y, d.group.z,
                            d.config.dynamic_shared_bytes, target(), kernel_params, launch_extra)),
          "cuLaunchKernel");
  }
  if (!capturing_) counters_.packets.fetch_add(1, std::memory_order_relaxed);
}

void CudaQueue::copy(const detail::Copy& c) {
  const auto dst = reinterpret_cast<CUdeviceptr>(c.dst);
  const auto src = reinterpret_cast<CUdeviceptr>(c.src);
  switch (c.kind) {
    case detail::CopyKind::to_device:
      check(counted(d_.cuMemcpyHtoDAsync(dst, c.src, c.bytes, target())), "cuMemcpyHtoDAsync");
      break;
    case detail::CopyKind::to_host:
      check(counted(d_.cuMemcpyDtoHAsync(c.dst, src, c.bytes, target())), "cuMemcpyDtoHAsync");
      break;
    case detail::CopyKind::device_to_device:
      if (c.dst_device->same_device(c.src_device)) {
        check(counted(d_.cuMemcpyDtoDAsync(dst, src, c.bytes, target())), "cuMemcpyDtoDAsync");
      } else {
        check(counted(d_.cuMemcpyPeerAsync(dst, static_cast<CudaDevice*>(c.dst_device)->context(), src,
                                   static_cast<CudaDevice*>(c.src_device)->context(), c.bytes, target())),
              "cuMemcpyPeerAsync");
      }
      break;
  }
  if (capturing_) return;  // a graph's copies are counted when it is launched
  counters_.copies.fetch_add(1, std::memory_order_relaxed);
  counters_.bytes_copied.fetch_add(c.bytes, std::memory_order_relaxed);
  if (!c.host_pinned) counters_.bytes_staged.fetch_add(c.bytes, std::memory_order_relaxed);
}

bool CudaQueue::reached(const CudaSignal& s) const noexcept {
  if (s.flag) return s.reached_by(__atomic_load_n(s.flag, __ATOMIC_ACQUIRE));
  return s.event && d_.cuEventQuery(s.event) == CUDA_SUCCESS;
}

void CudaQueue::check_submittable(const Batch& batch, const detail::ResolvedWaits& waits, bool graphed) const {
  if (shut_down_.load(std::memory_order_acquire)) throw Error(Errc::queue_stopped, "cuda", "submit", shut_down_why_, "create a new queue");
  if (!graphed) check_commands(batch);
  check_waits(waits);
}

void CudaQueue::check_commands(const Batch& batch) const {
  for (const detail::Dispatch& d : batch.dispatches()) {
    if (d.kernel.impl().generation != device_->generation()) {
      throw Error(Errc::invalid_argument, "cuda", "submit", "kernel '" + d.kernel.name() + "' was loaded before the device was reset",
                  "get the kernel (and record the batch) again after Device::reset");
    }
  }
  if (batch.device() && !device_->same_device(batch.device())) {
    throw Error(Errc::invalid_argument, "cuda", "submit",
                "the batch names device " + batch.device()->describe() + ", this queue belongs to " + device_->describe(),
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
}

void CudaQueue::check_waits(const detail::ResolvedWaits& waits) const {
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

HSAD_HOT std::unique_ptr<detail::SubmissionImpl> CudaQueue::submit(const Batch& batch, const Options& o,
                                                          const detail::Deadline& when,
                                                          const detail::ResolvedWaits& waits) {
  // The caller (Queue::submit) holds the queue's submit mutex: one submit at a time, so capture
  // and launches never interleave. A replay of a batch whose graphs are current is the path
  // measured against cudaGraphLaunch: completing on the queue's count, its one driver call is the
  // graph launch; otherwise the context's look too, and (ReplayCompletion::stream) the completion's
  // write, (node) the write node's new value, or (event) the event's record.
  // The deadline is read from the clock only where something may wait (a pool, a host wait): a
  // replay completing on the queue's count never does.
  const detail::Deadline& deadline = when;
  if (o.replay && replays_last(batch, o)) {
    if (shut_down_.load(std::memory_order_acquire)) throw Error(Errc::queue_stopped, "cuda", "submit", shut_down_why_, "create a new queue");
    return fast_replay();
  }
  Graph* current = o.replay ? current_graph(batch) : nullptr;  // one lookup: a replay's common case
  // The context current for the driver calls that need it. A replay that is only its graphs'
  // launches, completing on the queue's count, makes one driver call, cuGraphLaunch, which takes
  // its context from the stream (on the H100: it succeeds with no context current and with another
  // context current; docs/results.md, issue 60): it needs no look at the thread's context.
  std::optional<CurrentContext> scope;
  if (!current || !launches_only(*current, o)) {
    scope.emplace(device_->driver(), device_->context());
    counters_.driver_calls.fetch_add(scope->calls(), std::memory_order_relaxed);
  }
  check_submittable(batch, waits, current != nullptr);
  auto sub = std::make_unique<CudaSubmission>(shared_from_this());
  sub->serial = ++serial_;
  sub->labels = batch.labels();
  const std::size_t count = batch.size();
  if (count == 0) return sub;
  sub->code = batch.code();
  for (const std::shared_ptr<detail::CompletionImpl>& w : waits) {
    if (w) sub->waits_for.push_back(w);
  }

  // A device-run loop is a WHILE node: a batch that has one goes out as graphs, replay or not.
  if (o.replay || !batch.loops().empty()) {
    Graph* g = current;
    if (g) g->last_used = ++graph_uses_;
    else g = &graph_for(batch);
    write_graphs(batch, o, waits, *g, deadline, *sub);
    if (o.replay) remember_replay(batch, o, *g);
  } else {
    acquire_signal(o, deadline, *sub);
    write_commands(batch, o, waits, deadline.at(), *sub);
  }
  return sub;
}

void CudaQueue::remember_replay(const Batch& batch, const Options& o, Graph& g) {
  last_ = {};
  if (!launches_only(g, o) || g.segments.size() != 1 || !g.loops.empty() || g.segments[0].copies) return;
  last_.graph = &g;
  last_.batch = batch.id();
  last_.version = g.version;
  last_.args_version = g.args_version;
  last_.generation = g.generation;
  last_.exec = g.segments[0].exec;
  last_.packets = g.segments[0].packets;
  last_.labels = g.labels;
}


HSAD_HOT inline bool CudaQueue::replays_last(const Batch& batch, const Options& o) const {
  // What launches_only asked of the options, and the batch still the one captured (its graph
  // current: same version and arguments, captured in this device generation).
  return last_.graph && batch.id() == last_.batch && batch.version() == last_.version &&
         batch.args_version() == last_.args_version && o.signal && !o.profile &&
         device_->generation() == last_.generation;
}

HSAD_HOT inline std::uint32_t CudaQueue::launch_last() {
  const CUresult launched = d_.cuGraphLaunch(last_.exec, stream_);
  add_own(own_driver_calls_, 1);
  check(launched, "cuGraphLaunch");
  ++serial_;  // the queue's count moves once the launch went out
  const std::uint32_t target = counted_launch();
  add_own(own_packets_, last_.packets);
  add_own(own_doorbells_, 1);
  return target;
}

HSAD_HOT inline std::uint64_t CudaQueue::count_in_timeline(std::uint32_t target) {
  const std::uint64_t number = timeline.submitted() + 1;
  counter_->note(number, target);
  timeline.count();
  return number;
}

HSAD_HOT [[gnu::flatten]] std::unique_ptr<CudaSubmission> CudaQueue::fast_replay() {
  // The submission is written whole before the launch: the lines written after it miss the
  // caches a large graph's launch has swept (hot_path.hpp).
  auto sub = std::make_unique<CudaSubmission>(shared_from_this());
  sub->serial = serial_ + 1;
  sub->labels = last_.labels;  // and, through it, the batch's code
  sub->signal = counter_signal(counter_->next());
  sub->set_pending();  // where the launch fails, it goes unused: nothing of it was handed out
  launch_last();       // sub->signal.target
  return sub;
}

HSAD_HOT inline bool CudaQueue::bare_ready(const Batch& batch, const Options& o) const {
  // fast_replay's conditions, asked before the generic checks (QueueImpl::enqueue_bare): a
  // device reset since the capture changed the generation (and shut the queue down), abandoned
  // work and a trace or profiler range are left to the generic path, which refuses or reports them.
  return o.replay && replays_last(batch, o) && !device_->traced() && !detail::ToolRanges::on() &&
         !any_abandoned_.load(std::memory_order_acquire) && !shut_down_.load(std::memory_order_acquire);
}

HSAD_HOT [[gnu::flatten]] std::unique_ptr<detail::SubmissionImpl> CudaQueue::submit_bare(const Batch& batch, const Options& o,
                                                                               std::chrono::milliseconds timeout) {
  if (!bare_ready(batch, o)) return nullptr;
  device_->release_parked();  // as the generic path does: memory parked behind work that ended
  std::unique_ptr<CudaSubmission> sub = fast_replay();
  sub->timeout = timeout;
  sub->device = device_.get();
  count_in_timeline(sub->signal.target);  // record()'s counted case
  return sub;
}

HSAD_HOT [[gnu::flatten]] bool CudaQueue::enqueue_bare(const Batch& batch, const Options& o, std::chrono::milliseconds timeout) {
  // fast_replay's launch; what the submission would hold is the queue's (bare_*), what it would
  // count is counted as record() counts a counted one.
  if (!bare_ready(batch, o)) return false;
  device_->release_parked();  // as the generic path does: memory parked behind work that ended
  const std::uint32_t target = launch_last();
  const std::uint64_t number = count_in_timeline(target);
  if (bare_labels_ != last_.labels.get()) open_bare_run(number, target);
  if (!bare_first_) bare_first_ = number;
  bare_target_ = target;
  bare_last_ = number;
  bare_timeout_ = timeout;
  return true;
}

void CudaQueue::close_bare_run() noexcept {
  if (bare_runs_.empty()) return;
  bare_runs_.back().last = bare_last_;
  bare_runs_.back().target = bare_target_;
}

void CudaQueue::open_bare_run(std::uint64_t number, std::uint32_t target) {
  close_bare_run();
  // Runs the count has passed hold nothing the device still runs (the count only grows in launch order).
  const std::uint32_t count = __atomic_load_n(count_host_, __ATOMIC_ACQUIRE);
  bare_runs_.erase(std::remove_if(bare_runs_.begin(), bare_runs_.end(),
                                  [&](const BareRun& r) { return CompletionCounter::reached(count, r.target); }),
                   bare_runs_.end());
  bare_runs_.push_back({last_.labels, number, number, target});
  bare_labels_ = last_.labels.get();
}

void CudaQueue::finish_bare(detail::Clock::time_point deadline) {
  std::uint32_t target = 0;
  std::uint64_t first = 0, last = 0;
  {
    std::lock_guard<detail::SubmitMutex> lock(timeline.submit_mutex());
    if (!bare_first_) return;
    if (shut_down_.load(std::memory_order_acquire)) {
      // The reset took the stream and the count with the context: what ran is gone.
      bare_runs_.clear();
      bare_first_ = 0;
      bare_labels_ = nullptr;
      throw Error(Errc::queue_stopped, "cuda", "finish", shut_down_why_, "enqueue the work again on a new queue");
    }
    target = bare_target_;
    first = bare_first_;
    last = bare_last_;
    close_bare_run();
  }
  const CudaSignal latest = counter_signal(target);
  try {
    wait(latest, deadline, nullptr);
  } catch (const detail::TimeoutError& e) {
    const std::string what = "enqueued submissions " + std::to_string(first) + " to " + std::to_string(last);
    if (!abandoned_still_running(latest)) abandon(latest, 0, what + " timed out and still run");
    throw detail::TimeoutError("cuda", "finish", e.status() + ": " + what + " are abandoned",
                               "the queue runs nothing more until they end; the process's exit stops them");
  } catch (const Error& e) {
    // The first launch the count had not passed is the one that failed (a fault stops the stream).
    // Reported once, as a submission's fault is: a later finish finds nothing of it to wait for.
    const std::uint32_t count = __atomic_load_n(count_host_, __ATOMIC_ACQUIRE);
    std::lock_guard<detail::SubmitMutex> lock(timeline.submit_mutex());
    bare_first_ = 0;
    for (const BareRun& r : bare_runs_) {
      if (r.first > last || CompletionCounter::reached(count, r.target)) continue;
      std::uint64_t number = r.first;
      for (std::uint64_t n = std::max(r.first, first); n <= r.last; ++n) {
        const std::optional<std::uint32_t> t = counter_->target_of(n);
        if (t && !CompletionCounter::reached(count, *t)) {
          number = n;
          break;
        }
      }
      throw Error(e.code(), e.backend(), "finish",
                  e.status() + " in " + detail::describe_submission(number, r.labels.get()), e.hint())
          .at(number);
    }
    throw;
  }
  // Waited for again after a timeout: the abandoned launches have ended, and the queue (and the
  // context's frees, ContextGuard) no longer waits for them.
  if (any_abandoned_.load(std::memory_order_acquire)) (void)still_running();
  std::lock_guard<detail::SubmitMutex> lock(timeline.submit_mutex());
  if (bare_runs_.empty()) return;  // a reset cleared them meanwhile
  close_bare_run();  // launches enqueued meanwhile: the run is not over
  const std::uint32_t count = __atomic_load_n(count_host_, __ATOMIC_ACQUIRE);
  // The latest run stays open, finished or not: the next enqueue of the same graph (a loop of
  // enqueue and finish) opens none, and holds no reference count of its own.
  bare_runs_.erase(std::remove_if(bare_runs_.begin(), bare_runs_.end() - 1,
                                  [&](const BareRun& r) { return r.last <= last && CompletionCounter::reached(count, r.target); }),
                   bare_runs_.end() - 1);
  bare_first_ = bare_last_ == last ? 0 : last + 1;  // enqueued meanwhile: a later finish's
}

void CudaQueue::let_go_bare() noexcept {
  try {
    const auto now = detail::Clock::now();
    finish_bare(std::max(detail::deadline_after(bare_timeout_), now + std::chrono::milliseconds(10)));
  } catch (...) {
    // Errors were finish()'s to report; a launch still running keeps what it runs (the destructor).
  }
}

void CudaQueue::add_counts(Stats& stats) const {
  stats.driver_calls += own_driver_calls_.load(std::memory_order_relaxed);
  stats.packets += own_packets_.load(std::memory_order_relaxed);
  stats.doorbells += own_doorbells_.load(std::memory_order_relaxed);
}

bool CudaQueue::launches_only(const Graph& g, const Options& o) const {
  if (!g.counts || !o.signal || o.profile) return false;  // a completion of its own, or timing events
  for (const Segment& s : g.segments) {
    if (!s.exec) return false;  // a wait or a copy between the graphs
  }
  return true;
}

void CudaQueue::acquire_signal(const Options& o, const detail::Deadline& deadline, CudaSubmission& s) {
  CudaSubmission* sub = &s;
  const auto acquire_within = [&] { return std::chrono::duration_cast<std::chrono::milliseconds>(deadline.at() - detail::Clock::now()); };
  if (o.signal && o.replay && completion_ == Completion::memwrite &&
      (replay_completion_ == ReplayCompletion::event || replay_completion_ == ReplayCompletion::counter)) {
    sub->pooled = replay_events().acquire(acquire_within());
    sub->signal.event = reinterpret_cast<CUevent>(sub->pooled);
  } else if (o.signal) {
    sub->pooled = signals_.acquire(acquire_within());
    if (completion_ == Completion::memwrite) {
      sub->signal.flag = slots_ + (sub->pooled - 1) * (kSlotBytes / 4);
      sub->signal.flag_device = slots_device_ + (sub->pooled - 1) * kSlotBytes;
    } else {
      sub->signal.event = reinterpret_cast<CUevent>(sub->pooled);
    }
  } else {
    sub->signal = create_signal();
  }
}

void CudaQueue::wait_for(const detail::ResolvedWaits& waits, std::size_t index) {
  if (!waits[index]) return;  // nothing left to wait for
  if (static_cast<const CudaCompletion&>(*waits[index]).wait_on(stream_)) {
    counters_.driver_calls.fetch_add(1, std::memory_order_relaxed);
  }
  counters_.device_waits.fetch_add(1, std::memory_order_relaxed);
}

HSAD_HOT void CudaQueue::record(detail::SubmissionImpl& s) {
  auto& sub = static_cast<CudaSubmission&>(s);
  if (sub.signal.counter) {
    count_in_timeline(sub.signal.target);
    return;
  }
  timeline.record(sub.completion());
}

std::shared_ptr<detail::CompletionImpl> CudaQueue::completion_of(std::uint64_t number) {
  if (counter_) {
    if (const std::optional<std::uint32_t> target = counter_->target_of(number)) {
      const CudaSignal s = counter_signal(*target);
      {
        // Abandoned after a timeout: whoever waits for it by number is told, as one holding it is.
        std::lock_guard<std::mutex> lock(abandoned_mutex_);
        for (const Abandoned& a : abandoned_) {
          if (a.signal.counter && a.signal.target == s.target && !reached(s)) {
            return std::make_shared<CudaCompletion>(shared_from_this(), CudaSignal{}, 0, true, "abandoned: " + a.what, number);
          }
        }
      }
      if (reached(s)) return nullptr;
      return std::make_shared<CudaCompletion>(shared_from_this(), s, 0, true, std::string(), number);
    }
  }
  return timeline.completion_of(number);
}

namespace {
// What memory freed while counted launches run waits for (append_in_flight): the count's latest
// launch, its queue held weakly, so a parked mark keeps no queue, nor through it the device that
// parks it, alive. A queue that is gone synchronized its stream, or kept its memory for good.
class CountMark : public detail::CompletionImpl {
 public:
  CountMark(const std::shared_ptr<CudaQueue>& queue, std::uint32_t target)
      : CompletionImpl(queue->device()), queue_(queue), target_(target) {}
  std::string failure() const override { return {}; }
  bool ended() const override {
    const auto q = queue_.lock();
    return !q || q->reached(q->counter_signal(target_)) || !q->error().empty();
  }
  std::uint64_t native_handle() override { return 0; }

 private:
  std::weak_ptr<CudaQueue> queue_;
  std::uint32_t target_;
};
}  // namespace

void CudaQueue::append_in_flight(std::vector<detail::InFlight>& out) {
  timeline.append_in_flight(out);
  if (!counter_) return;
  const std::uint32_t latest = latest_count();
  if (!latest || reached(counter_signal(latest))) return;
  auto mark = std::make_shared<CountMark>(shared_from_this(), latest);
  if (!mark->ended()) out.push_back({{}, std::move(mark)});
}

}  // namespace hsad::cuda
