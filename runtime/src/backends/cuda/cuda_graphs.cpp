// The graph cache of a CUDA queue (Options::replay): a batch's commands captured into CUDA graphs
// between its waits, instantiated once per version, kernel nodes updated in place after set_args,
// at most kMaxGraphs per queue, the least recently used destroyed first.
#include "backends/cuda/cuda_queue.hpp"

#include <algorithm>

#include "backends/cuda/cuda_lowering.hpp"

namespace hsad::cuda {

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

}  // namespace hsad::cuda
