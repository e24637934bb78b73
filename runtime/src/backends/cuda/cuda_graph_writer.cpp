// Options::replay on a CUDA queue: the batch's graphs (cuda_graphs.cpp) launched on the stream,
// the waits and stream copies between them, counted command by command as the stream writer
// counts them. Profiling times each graph as one command: the driver's events time what a stream
// runs, not the nodes inside a graph.
#include "backends/cuda/cuda_queue.hpp"

#include "backends/cuda/cuda_lowering.hpp"
#include "backends/cuda/cuda_submission.hpp"

namespace hsad::cuda {

void CudaQueue::write_graphs(const Batch& batch, const Options& o, const detail::ResolvedWaits& waits,
                             CudaSubmission& sub) {
  const std::size_t count = batch.size();
  Graph& g = graph_for(batch);
  // Each loop's slot for this launch: the submission reads it once complete.
  for (std::size_t i = 0; i < g.loops.size(); ++i) {
    LoopSlots& l = g.loops[i];
    sub.loops_read.push_back({l.words, l.launches++, l.max_iterations, l.live});
  }
  counters_.device_loops.fetch_add(g.loops.size(), std::memory_order_relaxed);
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
      if (s.wait != SIZE_MAX) wait_for(waits, s.wait);
      else copy(batch.copies()[c.index]);
    }
    if (start) {
      const CUevent end = timing_event();
      check(d_.cuEventRecord(end, stream_), "cuEventRecord");
      const detail::Command& c = batch.commands()[first];
      const std::string what = s.exec ? "graph of " + std::to_string(command - first) + " commands"
                                      : copy_name(batch.copies()[c.index].kind);
      sub.timed.push_back({std::uint32_t(first), what, start, end, true});
    }
  }
  record_signal(sub.signal);
  sub.set_pending();
}

}  // namespace hsad::cuda
