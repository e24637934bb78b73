// CudaQueue: the five flags mapped onto a stream. The baseline does what a naive driver-API
// user does: creates its event and allocates its argument buffer inside the timed run, and
// synchronizes after every launch. Fence scopes have no per-launch control here: not counted.
#include "backends/cuda/cuda_queue.hpp"

#include <cstdlib>
#include <cstring>
#include <thread>

#include "hsad/error.hpp"

namespace hsad::cuda {
namespace {
std::size_t round_up64(std::size_t n) { return (n + 63) & ~std::size_t(63); }
std::uint32_t blocks(std::uint32_t items, std::uint32_t group) { return (items + group - 1) / group; }
bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, value) == 0;
}
}  // namespace

class CudaSubmission : public detail::SubmissionImpl {
 public:
  CudaSubmission(std::shared_ptr<CudaQueue> q) : q_(std::move(q)) {}
  ~CudaSubmission() override { release(); }

  void wait(detail::Clock::time_point deadline) override {
    if (pending_) {
      q_->wait(signal, deadline);
      pending_ = false;
    }
    release();
  }

  CudaSignal signal;
  SignalPool::Handle pooled = 0;
  void* own_kernarg = nullptr;
  void set_pending() { pending_ = true; }

 private:
  void release() noexcept {
    if (pending_) return;  // still running after a timeout: keep the event alive
    if (pooled) q_->signals_.release(pooled);
    else q_->destroy_signal(signal);
    pooled = 0;
    signal = {};
    std::free(own_kernarg);
    own_kernarg = nullptr;
  }
  std::shared_ptr<CudaQueue> q_;
  bool pending_ = false;
};

CudaQueue::CudaQueue(std::shared_ptr<CudaDevice> device)
    : device_(std::move(device)), d_(device_->driver()), counters_(device_->counters()),
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
                void* page = nullptr;
                check(d_.cuMemHostAlloc(&page, kEvents * kSlotBytes, CU_MEMHOSTALLOC_DEVICEMAP), "cuMemHostAlloc");
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
  check(d_.cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
}

CudaQueue::~CudaQueue() {
  device_->make_current();
  d_.cuStreamSynchronize(stream_);
  for (auto& [id, g] : graphs_) {
    d_.cuGraphExecDestroy(g.exec);
    d_.cuGraphDestroy(g.graph);
  }
  d_.cuStreamDestroy(stream_);
  if (slots_) d_.cuMemFreeHost(slots_);
  std::free(kernarg_memory_);
}

CudaSignal CudaQueue::create_signal() {
  CudaSignal s;
  if (completion_ == Completion::memwrite) {
    void* p = nullptr;
    check(d_.cuMemHostAlloc(&p, kSlotBytes, CU_MEMHOSTALLOC_DEVICEMAP), "cuMemHostAlloc");
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
  if (s.event) d_.cuEventDestroy(s.event);
  if (s.flag) d_.cuMemFreeHost(s.flag);
  s = {};
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

void CudaQueue::wait(const CudaSignal& s, detail::Clock::time_point deadline) {
  counters_.host_waits.fetch_add(1, std::memory_order_relaxed);
  // Polling (rather than cuEventSynchronize) keeps the timeout, and reports a kernel fault as
  // the event's or the stream's error.
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
    if (detail::Clock::now() > deadline) {
      throw Error("cuda", "wait", "timed out waiting for the batch", "raise the timeout, or look for a kernel that never ends");
    }
    if (spins > 64) std::this_thread::yield();
  }
}

void CudaQueue::launch(const detail::Dispatch& d, void* args, std::size_t bytes, bool early) {
  const KernelInfo& k = d.kernel.info();
  std::size_t size = bytes;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, args, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
  void* params[kMaxParams];
  const bool by_params = arg_passing_ == ArgPassing::params && k.args.size() <= kMaxParams;
  if (by_params) {
    for (std::size_t i = 0; i < k.args.size(); ++i) params[i] = static_cast<unsigned char*>(args) + k.args[i].offset;
  }
  void** kernel_params = by_params ? params : nullptr;
  void** launch_extra = !by_params && bytes ? extra : nullptr;
  if (early) {
    CUlaunchAttribute attr{};
    attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attr.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig config{};
    config.gridDimX = blocks(d.grid.x, d.group.x);
    config.gridDimY = blocks(d.grid.y, d.group.y);
    config.gridDimZ = blocks(d.grid.z, d.group.z);
    config.blockDimX = d.group.x;
    config.blockDimY = d.group.y;
    config.blockDimZ = d.group.z;
    config.sharedMemBytes = k.group_segment_size;
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
  counters_.packets.fetch_add(1, std::memory_order_relaxed);
}

CUgraphExec CudaQueue::graph_for(const Batch& batch, const Options& o, detail::Clock::time_point deadline) {
  auto it = graphs_.find(batch.id());
  if (it != graphs_.end() && it->second.version == batch.version()) return it->second.exec;
  if (it != graphs_.end()) {
    d_.cuGraphExecDestroy(it->second.exec);
    d_.cuGraphDestroy(it->second.graph);
    graphs_.erase(it);
  }
  // Captured from the same launches; the driver copies the argument buffers into the graph.
  check(d_.cuStreamBeginCapture(stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
  std::vector<unsigned char> scratch;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const auto& disp = batch.dispatches()[i];
    launch(disp, const_cast<unsigned char*>(batch.kernarg_image(i)), disp.kernel.info().kernarg_segment_size);
  }
  Graph g;
  check(d_.cuStreamEndCapture(stream_, &g.graph), "cuStreamEndCapture");
  check(d_.cuGraphInstantiateWithFlags(&g.exec, g.graph, 0), "cuGraphInstantiateWithFlags");
  g.version = batch.version();
  (void)o;
  (void)deadline;
  return graphs_.emplace(batch.id(), g).first->second.exec;
}

std::unique_ptr<detail::SubmissionImpl> CudaQueue::submit(const Batch& batch, const Options& o,
                                                          detail::Clock::time_point deadline) {
  std::lock_guard<std::mutex> lock(mutex_);  // one stream: capture and launches must not interleave
  device_->make_current();
  auto sub = std::make_unique<CudaSubmission>(shared_from_this());
  const std::size_t count = batch.size();
  if (count == 0) return sub;

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

  if (o.replay) {
    const CUgraphExec exec = graph_for(batch, o, deadline);
    check(d_.cuGraphLaunch(exec, stream_), "cuGraphLaunch");
    counters_.packets.fetch_add(count, std::memory_order_relaxed);
    record(sub->signal);
    sub->set_pending();
    return sub;
  }

  std::size_t own_stride = 0;
  if (!o.kernarg) {
    std::size_t bytes = 0;
    for (auto& d : batch.dispatches()) {
      const std::size_t b = round_up64(d.kernel.info().kernarg_segment_size);
      bytes = o.nosync ? bytes + b : std::max(bytes, b);
    }
    sub->own_kernarg = std::aligned_alloc(64, std::max<std::size_t>(bytes, 64));
    counters_.kernarg_allocations.fetch_add(1, std::memory_order_relaxed);
  }
  for (std::size_t i = 0; i < count; ++i) {
    const detail::Dispatch& d = batch.dispatches()[i];
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
    if (kbytes) std::memcpy(args, batch.kernarg_image(i), kbytes);
    // With nosync the host no longer separates the kernels: the barrier bit becomes an
    // in-kernel wait, so the next launch can overlap the end of the one before.
    launch(d, args, kbytes, o.nosync && early_launch_ && i > 0);
    // cuLaunchKernel has copied the argument buffer: the block is free again at once.
    if (block) kernarg_pool_.release(block->ticket);
    if (!o.nosync) {
      record(sub->signal);
      wait(sub->signal, deadline);
    }
  }
  if (o.nosync) {
    record(sub->signal);
    sub->set_pending();
  }
  return sub;
}

}  // namespace hsad::cuda
