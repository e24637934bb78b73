// dispatch-bench's vendor-runtime peers (dispatch_peers.hpp), one source built by nvcc and by hipcc
// (vendor_runtime.hpp maps the names): the empty kernel launched N times through the runtime
// (<<<>>>: cudaLaunchKernel over cuLaunchKernel, or hipLaunchKernelGGL), and as a captured graph
// of N nodes launched whole (cudaGraphLaunch, hipGraphLaunch).
#include <chrono>
#include <stdexcept>
#include <string>

#include "dispatch_peers.hpp"
#include "vendor_runtime.hpp"

namespace hsad::bench {
namespace {
__global__ void peer_empty() {}

using Clock = std::chrono::steady_clock;
double ns(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::nano>(b - a).count(); }


// Repetition -1 is the warm-up; `launch` submits the count's dispatches; `between` (where given)
// is the caller's repetition before each timed one; `steady`: then an untimed launch and wait of
// this peer's own, so that the timed one follows what it follows in a loop of its own.
template <class Launch>
void measure(DispatchPeerSamples& out, cudaStream_t s, int count, int reps, const Between& between, bool steady,
             Launch launch) {
  for (int r = -1; r < reps; ++r) {
    if (r >= 0 && between) between();
    if (r >= 0 && steady) {
      launch();
      vendor_check(cudaStreamSynchronize(s), "stream synchronize");
    }
    const auto t0 = Clock::now();
    launch();
    const auto t1 = Clock::now();
    vendor_check(cudaStreamSynchronize(s), "stream synchronize");
    const auto t2 = Clock::now();
    vendor_check(cudaGetLastError(), "launch");
    if (r < 0) continue;
    out.host_ns_per_dispatch.push_back(ns(t0, t1) / count);
    out.us_per_dispatch.push_back(ns(t0, t2) / 1e3 / count);
  }
}

std::vector<DispatchPeerSamples> run_peers(int count, int reps, const Between& between, bool steady) {
  std::vector<DispatchPeerSamples> out(2);
  out[0].name = HSAD_VENDOR " runtime <<<>>>";
  out[1].name = HSAD_VENDOR "GraphLaunch";
  cudaStream_t s;
  vendor_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream create");
  measure(out[0], s, count, reps, between, steady, [&] {
    for (int i = 0; i < count; ++i) peer_empty<<<1, 1, 0, s>>>();
  });
  // The same launches captured once into a graph, instantiated once (neither timed).
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  vendor_check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "begin capture");
  for (int i = 0; i < count; ++i) peer_empty<<<1, 1, 0, s>>>();
  vendor_check(cudaStreamEndCapture(s, &graph), "end capture");
  vendor_check(instantiate_graph(&exec, graph), "graph instantiation");
  measure(out[1], s, count, reps, between, steady, [&] { vendor_check(cudaGraphLaunch(exec, s), "graph launch"); });
  vendor_check(cudaGraphExecDestroy(exec), "graph exec destroy");
  vendor_check(cudaGraphDestroy(graph), "graph destroy");
  vendor_check(cudaStreamDestroy(s), "stream destroy");
  return out;
}
}  // namespace

#if defined(__HIPCC__)
}  // namespace hsad::bench

extern "C" __attribute__((visibility("default"))) int hsad_hip_dispatch_peers(
    int count, int reps, const hsad::bench::Between* between, std::vector<hsad::bench::DispatchPeerSamples>* out,
    std::string* why) {
  try {
    *out = hsad::bench::run_peers(count, reps, *between, false);
    return 0;
  } catch (const std::exception& e) {
    *why = e.what();
    return 1;
  }
}
#else
std::vector<DispatchPeerSamples> run_cuda_dispatch_peers(int count, int reps, const Between& between, bool steady) {
  return run_peers(count, reps, between, steady);
}

void sync_cuda_stream(std::uint64_t stream) {
  vendor_check(cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(stream)), "stream synchronize (--stream-sync)");
}

}  // namespace hsad::bench
#endif
