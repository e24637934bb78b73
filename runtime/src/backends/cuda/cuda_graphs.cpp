// The graph cache of a CUDA queue (Options::replay): a batch's commands captured into CUDA graphs
// between its waits, instantiated once per version, kernel nodes updated in place after set_args,
// at most kMaxGraphs per queue, the least recently used destroyed first.
#include "backends/cuda/cuda_queue.hpp"

#include <algorithm>
#include <cstring>

#include "backends/cuda/cuda_lowering.hpp"

namespace hsad::cuda {

CudaQueue::NodeParams::NodeParams(const Batch& batch, std::size_t i, ArgPassing passing)
    : args(batch.dispatches()[i].kernel.info(), const_cast<unsigned char*>(batch.kernarg_image(i)),
           batch.dispatches()[i].kernel.info().kernarg_segment_size, passing) {
  const detail::Dispatch& d = batch.dispatches()[i];
  p.func = static_cast<CUfunction>(d.kernel.impl().native);
  set_shape(p, d);
  p.kernelParams = args.kernel_params;
  p.extra = args.launch_extra;
}

void CudaQueue::destroy(Graph& g) noexcept {
  if (last_.graph == &g) last_ = {};
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
    const NodeParams node(batch, i, arg_passing_);
    // The driver copies the arguments now; a launch of the graph already in flight keeps its own.
    check(counted(d_.cuGraphExecKernelNodeSetParams(g.segments[g.nodes[i].segment].exec, g.nodes[i].node, &node.p)),
          "cuGraphExecKernelNodeSetParams");
  }
  counters_.kernarg_writes.fetch_add(changed.size(), std::memory_order_relaxed);
  g.args_version = batch.args_version();
  return true;
}

void CudaQueue::capture_loop(const Batch& batch, std::size_t index, Graph& g) {
  const detail::Loop& l = batch.loops()[index];
  if (!d_.cuGraphConditionalHandleCreate || !d_.cuGraphAddNode || !d_.cuStreamUpdateCaptureDependencies) {
    throw Error(Errc::unsupported, "cuda", "submit", "the driver lacks conditional graph nodes (CUDA 12.3 or later)",
                "update the NVIDIA driver, or run the loop from the host");
  }
  CUdeviceptr words = g.loops[index].device_words;  // made before the capture began (graph_for)
  CUdeviceptr live = reinterpret_cast<CUdeviceptr>(g.loops[index].live.get());

  // This launch's slot, captured as any launch.
  const auto begin = device_->kernel("hsad_loop_begin");
  unsigned slot_count = kLoopSlots;
  void* begin_params[] = {&words, &live, &slot_count};
  check(counted(d_.cuLaunchKernel(static_cast<CUfunction>(begin->native), 1, 1, 1, 1, 1, 1, 0, capture_stream_, begin_params, nullptr)),
        "cuLaunchKernel (hsad_loop_begin)");

  // The WHILE node, after what the capture has so far; its handle is 1 at each launch of the
  // graph, so the body runs once before the condition is first read (a do-while).
  CUstreamCaptureStatus status;
  CUgraph graph = nullptr;
  const CUgraphNode* deps = nullptr;
  std::size_t count = 0;
  check(counted(d_.cuStreamGetCaptureInfo(capture_stream_, &status, nullptr, &graph, &deps, nullptr, &count)), "cuStreamGetCaptureInfo");
  CUgraphConditionalHandle handle = 0;
  check(counted(d_.cuGraphConditionalHandleCreate(&handle, graph, device_->context(), 1, CU_GRAPH_COND_ASSIGN_DEFAULT)),
        "cuGraphConditionalHandleCreate");
  CUgraphNodeParams params;
  std::memset(&params, 0, sizeof params);
  params.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
  params.conditional.handle = handle;
  params.conditional.type = CU_GRAPH_COND_TYPE_WHILE;
  params.conditional.size = 1;
  params.conditional.ctx = device_->context();
  CUgraphNode node = nullptr;
  check(counted(d_.cuGraphAddNode(&node, graph, deps, nullptr, count, &params)), "cuGraphAddNode (WHILE)");
  const CUgraph body = params.conditional.phGraph_out[0];

  // The body: the loop's dispatches in order, then the condition kernel. On sm_90 a kernel that
  // waits for its predecessor itself (the library's, or one recorded with early_launch) hangs
  // off a programmatic edge, as the stream path launches it early; the condition kernel, which
  // always waits, off the last kernel's launch-order port (once all its blocks began), so its
  // launch is hidden behind the body's last kernel whatever that kernel does.
  const auto add_kernel = [&](CUgraphNode previous, const CUDA_KERNEL_NODE_PARAMS& k, bool waits_itself,
                              unsigned char port, const char* what) {
    CUgraphNodeParams node_params;
    std::memset(&node_params, 0, sizeof node_params);
    node_params.type = CU_GRAPH_NODE_TYPE_KERNEL;
    node_params.kernel.func = k.func;
    node_params.kernel.gridDimX = k.gridDimX, node_params.kernel.gridDimY = k.gridDimY, node_params.kernel.gridDimZ = k.gridDimZ;
    node_params.kernel.blockDimX = k.blockDimX, node_params.kernel.blockDimY = k.blockDimY;
    node_params.kernel.blockDimZ = k.blockDimZ;
    node_params.kernel.sharedMemBytes = k.sharedMemBytes;
    node_params.kernel.kernelParams = k.kernelParams;
    node_params.kernel.extra = k.extra;
    CUgraphEdgeData edge;
    std::memset(&edge, 0, sizeof edge);
    const bool early = previous && early_launch_ && waits_itself;
    if (early) {
      edge.from_port = port;
      edge.type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
    }
    CUgraphNode n = nullptr;
    check(counted(d_.cuGraphAddNode(&n, body, previous ? &previous : nullptr, early ? &edge : nullptr, previous ? 1 : 0, &node_params)),
          what);
    if (early) counters_.early_launches.fetch_add(1, std::memory_order_relaxed);
    return n;
  };
  // check_every k: the body k times over, one after another, and the condition kernel once.
  CUgraphNode previous = nullptr;
  for (std::uint32_t round = 0; round < l.check_every; ++round) {
    for (std::uint32_t i = l.first_dispatch; i < l.end_dispatch; ++i) {
      const detail::Dispatch& disp = batch.dispatches()[i];
      const NodeParams node(batch, i, arg_passing_);
      previous = add_kernel(previous, node.p, disp.kernel.impl().early_launch_ok || disp.config.early_launch,
                            CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC, "cuGraphAddNode (a loop's kernel)");
    }
  }
  const auto condition = device_->kernel("hsad_loop_condition");
  CUdeviceptr value = reinterpret_cast<CUdeviceptr>(l.condition);
  unsigned max = static_cast<unsigned>(l.max_iterations);
  unsigned step = l.check_every;
  void* condition_params[] = {&handle, &value, &words, &live, &max, &step};
  CUDA_KERNEL_NODE_PARAMS p{};
  p.func = static_cast<CUfunction>(condition->native);
  p.gridDimX = p.gridDimY = p.gridDimZ = 1;
  p.blockDimX = p.blockDimY = p.blockDimZ = 1;
  p.kernelParams = condition_params;
  add_kernel(previous, p, true, CU_GRAPH_KERNEL_NODE_PORT_LAUNCH_ORDER, "cuGraphAddNode (hsad_loop_condition)");
  // What the capture records next comes after the loop.
  check(counted(d_.cuStreamUpdateCaptureDependencies(capture_stream_, &node, nullptr, 1, CU_STREAM_SET_CAPTURE_DEPENDENCIES)),
        "cuStreamUpdateCaptureDependencies");
}

CudaQueue::Graph* CudaQueue::current_graph(const Batch& batch) {
  const auto it = graphs_.find(batch.id());
  if (it == graphs_.end() || it->second.version != batch.version() || it->second.args_version != batch.args_version() ||
      it->second.generation != device_->generation()) {
    return nullptr;
  }
  return &it->second;
}

CudaQueue::Graph& CudaQueue::graph_for(const Batch& batch) {
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
    if (last_.graph) last_.graph->last_used = ++graph_uses_;  // its fast replays did not count
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
  g.generation = device_->generation();
  {
    // One count for what a submission keeps: the labels, owning the batch's code as well.
    struct Keep {
      std::shared_ptr<const std::vector<std::string>> labels;
      std::shared_ptr<const void> code;
    };
    auto keep = std::make_shared<const Keep>(Keep{batch.labels(), batch.code()});
    g.labels = std::shared_ptr<const std::vector<std::string>>(keep, keep->labels.get());
  }
  g.nodes.resize(batch.dispatches().size());
  counters_.images_built.fetch_add(1, std::memory_order_relaxed);
  // Captured on a stream of the queue's own that no other thread ever names. Captured on the
  // queue's launch stream, a capture in one thread met other threads' calls on that stream (a
  // waiter's cuStreamQuery, an event recorded for Submission::native_handle): the driver fails
  // those calls and invalidates the capture (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, then
  // ..._INVALIDATED), whatever the capture mode, which only governs the capturing thread.
  if (!capture_stream_) check(counted(d_.cuStreamCreate(&capture_stream_, CU_STREAM_NON_BLOCKING)), "cuStreamCreate (capture)");
  bool capturing = false;
  Segment tally;  // what the graph being captured holds
  // The batch's completion as the last graph's own last node, where the batch ends in a graph:
  // a memory write captured now (to the queue's first slot, value 0) whose address and value
  // each launch sets (write_graphs). Ordered after everything captured before it.
  const auto capture_completion = [&] {
    if (replay_completion_ == ReplayCompletion::counter) {
      // The count's kernel, launched early where the GPU can (it waits for what precedes it).
      const auto count = device_->kernel("hsad_count_completion");
      CUdeviceptr device_count = count_device_, host = count_host_device_;
      void* params[] = {&device_count, &host};
      CUlaunchAttribute early{};
      early.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      early.value.programmaticStreamSerializationAllowed = 1;
      CUlaunchConfig config{};
      config.gridDimX = config.gridDimY = config.gridDimZ = 1;
      config.blockDimX = config.blockDimY = config.blockDimZ = 1;
      config.hStream = capture_stream_;
      config.attrs = &early;
      config.numAttrs = early_launch_ ? 1 : 0;
      check(counted(d_.cuLaunchKernelEx(&config, static_cast<CUfunction>(count->native), params, nullptr)),
            "cuLaunchKernelEx (hsad_count_completion)");
      g.counts = true;
      return;
    }
    if (replay_completion_ != ReplayCompletion::node || completion_ != Completion::memwrite || !slots_device_) return;
    check(counted(d_.cuStreamWriteValue32(capture_stream_, slots_device_, 0, CU_STREAM_WRITE_VALUE_DEFAULT)),
          "cuStreamWriteValue32 (captured)");
    CUstreamCaptureStatus status;
    const CUgraphNode* deps = nullptr;
    std::size_t count = 0;
    check(counted(d_.cuStreamGetCaptureInfo(capture_stream_, &status, nullptr, nullptr, &deps, nullptr, &count)),
          "cuStreamGetCaptureInfo");
    if (count == 1) g.completion = deps[0];
  };
  auto end_capture = [&] {
    if (!capturing) return;
    Segment s = tally;
    tally = {};
    check(counted(d_.cuStreamEndCapture(capture_stream_, &s.graph)), "cuStreamEndCapture");
    check(counted(d_.cuGraphInstantiateWithFlags(&s.exec, s.graph, 0)), "cuGraphInstantiateWithFlags");
    g.segments.push_back(s);
    capturing = capturing_ = false;
  };
  try {
    // What a capture may not do (allocate, load code): each loop's slots and kernels first.
    for (const detail::Loop& l : batch.loops()) {
      LoopSlots slots;
      slots.max_iterations = l.max_iterations;
      void* host = nullptr;
      const std::size_t bytes = (2 + 4 * std::size_t(kLoopSlots)) * sizeof(std::uint32_t);
      check(counted(d_.cuMemHostAlloc(&host, bytes, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE)), "cuMemHostAlloc");
      std::memset(host, 0, bytes);
      const Driver* d = &d_;
      slots.words.reset(static_cast<std::uint32_t*>(host), [d](std::uint32_t* p) { d->cuMemFreeHost(p); });
      check(counted(d_.cuMemHostGetDevicePointer(&slots.device_words, host, 0)), "cuMemHostGetDevicePointer");
      const std::uint64_t generation = device_->generation();
      void* live = device_->allocate(kLoopLiveBytes, Memory::device);
      const std::shared_ptr<CudaDevice> owner = device_;
      slots.live.reset(live, [owner, generation](void* p) { owner->deallocate(p, kLoopLiveBytes, Memory::device, generation); });
      const std::uint32_t zeros[kLoopLiveBytes / 4] = {};
      check(counted(d_.cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(live), zeros, kLoopLiveBytes)), "cuMemcpyHtoD (a loop's state)");
      g.loops.push_back(std::move(slots));
    }
    if (replay_completion_ == ReplayCompletion::counter) (void)device_->kernel("hsad_count_completion");
    if (!batch.loops().empty()) {
      (void)device_->kernel("hsad_loop_begin");
      (void)device_->kernel("hsad_loop_condition");
    }
    std::size_t next_loop = 0;
    for (std::size_t i = 0; i < batch.commands().size(); ++i) {
      const detail::Command& c = batch.commands()[i];
      if (next_loop < batch.loops().size() && batch.loops()[next_loop].first_command == i) {
        // The loop's body goes into its WHILE node; its nodes are not kept for set_args (a
        // node inside a conditional body is not the instantiated graph's to update): a set_args
        // there captures the graph again.
        if (!capturing) {
          check(counted(d_.cuStreamBeginCapture(capture_stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)), "cuStreamBeginCapture");
          capturing = capturing_ = true;
        }
        const detail::Loop& l = batch.loops()[next_loop];
        tally.commands += l.end_command - l.first_command;
        tally.packets += l.end_command - l.first_command;  // a body holds dispatches only
        i = l.end_command - 1;
        capture_loop(batch, next_loop++, g);
        if (i + 1 == batch.commands().size()) capture_completion();
        continue;
      }
      const bool in_graph = c.kind == detail::CommandKind::exec ||
                            (c.kind == detail::CommandKind::copy && graphable(batch.copies()[c.index]));
      if (!in_graph) {
        end_capture();
        Segment s;
        s.wait = c.kind == detail::CommandKind::wait ? c.index : SIZE_MAX;
        s.commands = 1;
        g.segments.push_back(s);
        continue;
      }
      if (!capturing) {
        check(counted(d_.cuStreamBeginCapture(capture_stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)), "cuStreamBeginCapture");
        capturing = capturing_ = true;
      }
      if (c.kind == detail::CommandKind::exec) {
        const auto& disp = batch.dispatches()[c.index];
        launch(disp, const_cast<unsigned char*>(batch.kernarg_image(c.index)), disp.kernel.info().kernarg_segment_size);
        // The node just captured is the capture's one dependency now: kept for set_args.
        CUstreamCaptureStatus status;
        const CUgraphNode* deps = nullptr;
        std::size_t count = 0;
        if (counted(d_.cuStreamGetCaptureInfo(capture_stream_, &status, nullptr, nullptr, &deps, nullptr, &count)) == CUDA_SUCCESS &&
            count == 1) {
          g.nodes[c.index] = {g.segments.size(), deps[0]};
        }
        ++tally.packets;
      } else {
        copy(batch.copies()[c.index]);
        ++tally.copies;
        tally.bytes_copied += batch.copies()[c.index].bytes;
      }
      ++tally.commands;
      if (i + 1 == batch.commands().size()) capture_completion();
    }
    end_capture();
  } catch (...) {
    capturing_ = false;
    if (capturing) {
      CUgraph partial = nullptr;
      d_.cuStreamEndCapture(capture_stream_, &partial);
      if (partial) d_.cuGraphDestroy(partial);
    }
    destroy(g);
    throw;
  }
  return graphs_.emplace(batch.id(), std::move(g)).first->second;
}

}  // namespace hsad::cuda
