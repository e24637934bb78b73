// dispatch-bench's CUDA peers (dispatch_peers.hpp): the empty kernel launched N times through the
// CUDA runtime (<<<>>>, cudaLaunchKernel over the driver's cuLaunchKernel), and as a captured graph
// of N nodes with cudaGraphLaunch (cuGraphLaunch).
#include <chrono>
#include <stdexcept>
#include <string>

#include "dispatch_peers.hpp"

namespace hsad::bench {
namespace {
__global__ void peer_empty() {}

using Clock = std::chrono::steady_clock;
double ns(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::nano>(b - a).count(); }

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
}  // namespace

std::vector<DispatchPeerSamples> run_cuda_dispatch_peers(int count, int reps) {
  std::vector<DispatchPeerSamples> out(2);
  out[0].name = "cuda runtime <<<>>>";
  out[1].name = "cudaGraphLaunch";
  cudaStream_t s;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  for (int r = -1; r < reps; ++r) {  // r = -1: warm-up
    const auto t0 = Clock::now();
    for (int i = 0; i < count; ++i) peer_empty<<<1, 1, 0, s>>>();
    const auto t1 = Clock::now();
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    const auto t2 = Clock::now();
    check(cudaGetLastError(), "<<<>>>");
    if (r >= 0) out[0].host_ns_per_dispatch.push_back(ns(t0, t1) / count), out[0].us_per_dispatch.push_back(ns(t0, t2) / 1e3 / count);
  }
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  for (int i = 0; i < count; ++i) peer_empty<<<1, 1, 0, s>>>();
  check(cudaStreamEndCapture(s, &graph), "cudaStreamEndCapture");
  check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  for (int r = -1; r < reps; ++r) {
    const auto t0 = Clock::now();
    check(cudaGraphLaunch(exec, s), "cudaGraphLaunch");
    const auto t1 = Clock::now();
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    const auto t2 = Clock::now();
    if (r >= 0) out[1].host_ns_per_dispatch.push_back(ns(t0, t1) / count), out[1].us_per_dispatch.push_back(ns(t0, t2) / 1e3 / count);
  }
  check(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
  check(cudaGraphDestroy(graph), "cudaGraphDestroy");
  check(cudaStreamDestroy(s), "cudaStreamDestroy");
  return out;
}

}  // namespace hsad::bench
