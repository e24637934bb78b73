// dispatch-bench's HIP peers (dispatch_peers.hpp): the empty kernel launched N times with
// hipLaunchKernelGGL, and as a captured graph of N nodes with hipGraphLaunch. A shared object of
// its own, loaded by dispatch-bench at run time on the rocr backend.
#include <hip/hip_runtime.h>

#include <chrono>
#include <cstdio>

namespace {
__global__ void peer_empty() {}

using Clock = std::chrono::steady_clock;
double ns(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::nano>(b - a).count(); }

bool ok(hipError_t e, const char* what, char* why, unsigned long why_size) {
  if (e == hipSuccess) return true;
  std::snprintf(why, why_size, "%s: %s", what, hipGetErrorString(e));
  return false;
}
#define HIP_OR_FAIL(x) \
  if (!ok((x), #x, why, why_size)) return 1
}  // namespace

extern "C" __attribute__((visibility("default"))) int hsad_hip_dispatch_peers(int count, int reps, double* host_ns,
                                                                            double* us, char* why,
                                                                            unsigned long why_size) {
  hipStream_t s;
  HIP_OR_FAIL(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
  // One launch at a time: the host time of the calls, then the wait.
  for (int r = -1; r < reps; ++r) {  // r = -1: warm-up
    const auto t0 = Clock::now();
    for (int i = 0; i < count; ++i) hipLaunchKernelGGL(peer_empty, dim3(1), dim3(1), 0, s);
    const auto t1 = Clock::now();
    HIP_OR_FAIL(hipStreamSynchronize(s));
    const auto t2 = Clock::now();
    HIP_OR_FAIL(hipGetLastError());
    if (r >= 0) host_ns[r] = ns(t0, t1) / count, us[r] = ns(t0, t2) / 1000.0 / count;
  }
  // A graph of the same launches, captured and instantiated once (not timed), launched each rep.
  hipGraph_t graph;
  hipGraphExec_t exec;
  HIP_OR_FAIL(hipStreamBeginCapture(s, hipStreamCaptureModeThreadLocal));
  for (int i = 0; i < count; ++i) hipLaunchKernelGGL(peer_empty, dim3(1), dim3(1), 0, s);
  HIP_OR_FAIL(hipStreamEndCapture(s, &graph));
  HIP_OR_FAIL(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
  for (int r = -1; r < reps; ++r) {
    const auto t0 = Clock::now();
    HIP_OR_FAIL(hipGraphLaunch(exec, s));
    const auto t1 = Clock::now();
    HIP_OR_FAIL(hipStreamSynchronize(s));
    const auto t2 = Clock::now();
    if (r >= 0) host_ns[reps + r] = ns(t0, t1) / count, us[reps + r] = ns(t0, t2) / 1000.0 / count;
  }
  HIP_OR_FAIL(hipGraphExecDestroy(exec));
  HIP_OR_FAIL(hipGraphDestroy(graph));
  HIP_OR_FAIL(hipStreamDestroy(s));
  return 0;
}
