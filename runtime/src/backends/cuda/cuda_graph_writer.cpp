// Options::replay on a CUDA queue: the batch's graphs (cuda_graphs.cpp) launched on the stream,
// the waits and stream copies between them, counted as the stream writer counts them (each
// graph's totals, tallied when it was captured). Profiling times each graph as one command: the driver's events time what a stream
// runs, not the nodes inside a graph.
#include "backends/cuda/cuda_queue.hpp"

#include <cstring>

#include "backends/cuda/cuda_lowering.hpp"
#include "backends/cuda/cuda_submission.hpp"

namespace hsad::cuda {

void CudaQueue::write_graphs(const Batch& batch, const Options& o, const detail::ResolvedWaits& waits, Graph& g,
                             const detail::Deadline& deadline, CudaSubmission& sub) {
  // The count's target where the submission completes on it: what the last graph's launch
  // will count. Not when profiling: the timing events recorded after the graph must end before
  // the host sees the completion.
  const bool on_count = g.counts && o.signal && !o.profile;
  if (!on_count) acquire_signal(o, deadline, sub);
  // Each loop's slot for this launch: the submission reads it once complete.
  for (std::size_t i = 0; i < g.loops.size(); ++i) {
    LoopSlots& l = g.loops[i];
    sub.loops_read.push_back({l.words, l.launches++, l.max_iterations, l.live});
  }
  if (!g.loops.empty()) counters_.device_loops.fetch_add(g.loops.size(), std::memory_order_relaxed);
  // The completion as the last graph's own write node: this launch's slot and value go into
  // the instantiated graph (a launch in flight keeps its own), and no stream write follows.
  // Not when profiling: the timing events recorded after the graph must end before the host
  // sees the completion.
  const bool completion_in_graph = g.completion && sub.signal.flag && !sub.signal.counter && !o.profile;
  std::size_t command = 0;
  for (std::size_t k = 0; k < g.segments.size(); ++k) {
    const Segment& s = g.segments[k];
    CUevent start = nullptr;
    if (o.profile && s.wait == SIZE_MAX) start = timing_event(), check(counted(d_.cuEventRecord(start, stream_)), "cuEventRecord");
    const std::size_t first = command;
    if (s.exec) {
      if (completion_in_graph && k + 1 == g.segments.size()) set_completion(g, s, sub.signal);
      check(counted(d_.cuGraphLaunch(s.exec, stream_)), "cuGraphLaunch");
      if (g.counts && k + 1 == g.segments.size()) {
        const std::uint32_t target = counted_launch();
        if (on_count) sub.signal = counter_signal(target), add_own(own_doorbells_, 1);
      }
      // What the graph holds, as the stream path counts it command by command.
      command += s.commands;
      add_own(own_packets_, s.packets);
      if (s.copies) {
        counters_.copies.fetch_add(s.copies, std::memory_order_relaxed);
        counters_.bytes_copied.fetch_add(s.bytes_copied, std::memory_order_relaxed);
      }
    } else {
      const detail::Command& c = batch.commands()[command++];
      if (s.wait != SIZE_MAX) wait_for(waits, s.wait);
      else copy(batch.copies()[c.index]);
    }
    if (start) {
      const CUevent end = timing_event();
      check(counted(d_.cuEventRecord(end, stream_)), "cuEventRecord");
      const detail::Command& c = batch.commands()[first];
      const std::string what = s.exec ? "graph of " + std::to_string(command - first) + " commands"
                                      : copy_name(batch.copies()[c.index].kind);
      sub.timed.push_back({std::uint32_t(first), what, start, end, true});
    }
  }
  if (!completion_in_graph && !on_count) record_signal(sub.signal);
  sub.set_pending();
}

void CudaQueue::set_completion(const Graph& g, const Segment& s, CudaSignal& signal) {
  signal.target = next_signal_target();
  CUstreamBatchMemOpParams write;
  std::memset(&write, 0, sizeof write);
  write.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
  write.writeValue.address = signal.flag_device;
  write.writeValue.value = signal.target;
  write.writeValue.flags = CU_STREAM_WRITE_VALUE_DEFAULT;
  CUDA_BATCH_MEM_OP_NODE_PARAMS params;
  std::memset(&params, 0, sizeof params);
  params.ctx = device_->context();
  params.count = 1;
  params.paramArray = &write;
  check(counted(d_.cuGraphExecBatchMemOpNodeSetParams(s.exec, g.completion, &params)),
        "cuGraphExecBatchMemOpNodeSetParams (the completion)");
  counters_.doorbells.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace hsad::cuda
