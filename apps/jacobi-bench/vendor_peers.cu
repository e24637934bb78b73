// jacobi-bench's vendor-runtime peers (jacobi_peers.hpp), one source built by nvcc and by hipcc
// (vendor_runtime.hpp maps the names), with the library's own kernels (kernels/jacobi.cu): the
// iteration launched from the host, the norm copied back and checked after every iteration or
// every k; on CUDA also a hand-written graph whose WHILE node runs the iteration until the check
// kernel clears the node's handle (cudaGraphSetConditional).
#include <time.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "jacobi.cu"
#include "jacobi_peers.hpp"
#include "vendor_runtime.hpp"

namespace hsad::bench {
namespace {
using kernels::kJacobiGroup;
using Clock = std::chrono::steady_clock;

double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);  // the calling thread's, as the library's rows
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}


#if !defined(__HIPCC__)
// The check as the WHILE node's body ends it: jacobi_check's sum, then the handle set from it.
__global__ void __launch_bounds__(256) peer_check_while(const double* partials, unsigned count, double tolerance2,
                                                       unsigned* state, double* norm2, unsigned* iterations,
                                                       unsigned max_iterations, cudaGraphConditionalHandle handle) {
  __shared__ double s[kJacobiGroup];
  double v = 0.0;
  for (unsigned i = threadIdx.x; i < count; i += kJacobiGroup) v += partials[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (unsigned step = kJacobiGroup / 2; step > 0; step /= 2) {
    if (threadIdx.x < step) s[threadIdx.x] += s[threadIdx.x + step];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const unsigned it = *iterations + 1;
    *iterations = it;
    *norm2 = s[0];
    *state = s[0] > tolerance2 ? 1u : 0u;
    cudaGraphSetConditional(handle, *state && it < max_iterations ? 1u : 0u);
  }
}
#endif

struct Problem {
  int n;
  std::uint64_t points;
  unsigned groups;
  double h2;
  double *u, *v, *f, *partials, *norm2;
  unsigned *state, *iterations;
  unsigned char* pinned;  // state (4 bytes), pad, norm2 (8 bytes)
  cudaStream_t s;

  explicit Problem(int size) : n(size), points(std::uint64_t(size) * size * size) {
    groups = unsigned((points + kJacobiGroup - 1) / kJacobiGroup);
    const double h = 1.0 / double(n - 1);
    h2 = h * h;
    vendor_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream create");
    vendor_check(cudaMalloc(&u, points * 8), "malloc");
    vendor_check(cudaMalloc(&v, points * 8), "malloc");
    vendor_check(cudaMalloc(&f, points * 8), "malloc");
    vendor_check(cudaMalloc(&partials, std::size_t(groups) * 8), "malloc");
    vendor_check(cudaMalloc(&norm2, 8), "malloc");
    vendor_check(cudaMalloc(&state, 4), "malloc");
    vendor_check(cudaMalloc(&iterations, 4), "malloc");
    vendor_check(cudaMallocHost(reinterpret_cast<void**>(&pinned), 16), "malloc host");
  }
  ~Problem() {
    for (void* p : {static_cast<void*>(u), static_cast<void*>(v), static_cast<void*>(f), static_cast<void*>(partials),
                    static_cast<void*>(norm2), static_cast<void*>(state), static_cast<void*>(iterations)}) {
      vendor_release(cudaFree(p), "cudaFree");
    }
    vendor_release(cudaFreeHost(pinned), "cudaFreeHost");
    vendor_release(cudaStreamDestroy(s), "cudaStreamDestroy");
  }
  std::vector<double> zeros;  // what reset() copies into u and v
  void reset() {
    if (zeros.size() != points) {  // first use: f is set once
      zeros.assign(points, 0.0);
      const std::vector<double> ones(points, 1.0);
      vendor_check(cudaMemcpyAsync(f, ones.data(), points * 8, cudaMemcpyHostToDevice, s), "copy");
      vendor_check(cudaStreamSynchronize(s), "synchronize");
    }
    vendor_check(cudaMemcpyAsync(u, zeros.data(), points * 8, cudaMemcpyHostToDevice, s), "copy");
    vendor_check(cudaMemcpyAsync(v, zeros.data(), points * 8, cudaMemcpyHostToDevice, s), "copy");
    vendor_check(cudaMemset(iterations, 0, 4), "memset");
    vendor_check(cudaStreamSynchronize(s), "synchronize");
  }
  void iteration(double tolerance2) {
    const unsigned blocks = groups;
    jacobi_sweep<<<blocks, kJacobiGroup, 0, s>>>(v, u, f, n, n, n, h2, nullptr);
    jacobi_sweep<<<blocks, kJacobiGroup, 0, s>>>(u, v, f, n, n, n, h2, partials);
    jacobi_check<<<1, kJacobiGroup, 0, s>>>(partials, groups, tolerance2, state, norm2);
  }
  void read_state() {
    vendor_check(cudaMemcpyAsync(pinned, state, 4, cudaMemcpyDeviceToHost, s), "copy");
    vendor_check(cudaMemcpyAsync(pinned + 8, norm2, 8, cudaMemcpyDeviceToHost, s), "copy");
    vendor_check(cudaStreamSynchronize(s), "synchronize");
    vendor_check(cudaGetLastError(), "launch");
  }
  double norm() const {
    double n2 = 0;
    std::memcpy(&n2, pinned + 8, 8);
    return std::sqrt(n2);
  }
};

// The host loop: k iterations launched, then the state copied back and looked at.
void host_loop(Problem& p, const JacobiPeerConfig& c, unsigned k, JacobiPeerResult& out) {
  const double tol2 = c.tolerance * c.tolerance;
  for (int r = -1; r < c.reps; ++r) {  // -1: the warm-up
    p.reset();
    const auto t0 = Clock::now();
    const double c0 = cpu_now();
    std::uint64_t it = 0;
    for (;;) {
      for (unsigned i = 0; i < k; ++i) p.iteration(tol2);
      it += k;
      p.read_state();
      std::uint32_t state = 0;
      std::memcpy(&state, p.pinned, 4);
      if (state == 0 || it >= c.max_iterations) break;
    }
    const double secs = std::chrono::duration<double>(Clock::now() - t0).count(), cpu = cpu_now() - c0;
    if (r < 0) continue;
    out.iterations.push_back(it);
    out.seconds.push_back(secs);
    out.cpu_seconds.push_back(cpu);
    out.norm.push_back(p.norm());
  }
}

#if !defined(__HIPCC__)
// The WHILE node as the CUDA programming guide builds one: a graph holding the node, its body
// captured from the same launches, the check kernel ending it.
void while_graph(Problem& p, const JacobiPeerConfig& c, JacobiPeerResult& out) {
  const double tol2 = c.tolerance * c.tolerance;
  cudaGraph_t graph;
  vendor_check(cudaGraphCreate(&graph, 0), "graph create");
  cudaGraphConditionalHandle handle;
  vendor_check(cudaGraphConditionalHandleCreate(&handle, graph, 1, cudaGraphCondAssignDefault), "conditional handle");
  cudaGraphNodeParams params{};
  params.type = cudaGraphNodeTypeConditional;
  params.conditional.handle = handle;
  params.conditional.type = cudaGraphCondTypeWhile;
  params.conditional.size = 1;
  cudaGraphNode_t node;
  vendor_check(cudaGraphAddNode(&node, graph, nullptr, nullptr, 0, &params), "add WHILE node");
  const cudaGraph_t body = params.conditional.phGraph_out[0];
  vendor_check(cudaStreamBeginCaptureToGraph(p.s, body, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal), "capture");
  jacobi_sweep<<<p.groups, kJacobiGroup, 0, p.s>>>(p.v, p.u, p.f, p.n, p.n, p.n, p.h2, nullptr);
  jacobi_sweep<<<p.groups, kJacobiGroup, 0, p.s>>>(p.u, p.v, p.f, p.n, p.n, p.n, p.h2, p.partials);
  peer_check_while<<<1, kJacobiGroup, 0, p.s>>>(p.partials, p.groups, tol2, p.state, p.norm2, p.iterations,
                                                unsigned(c.max_iterations), handle);
  cudaGraph_t captured;
  vendor_check(cudaStreamEndCapture(p.s, &captured), "end capture");
  cudaGraphExec_t exec;
  vendor_check(instantiate_graph(&exec, graph), "graph instantiation");
  for (int r = -1; r < c.reps; ++r) {
    p.reset();
    const auto t0 = Clock::now();
    const double c0 = cpu_now();
    vendor_check(cudaGraphLaunch(exec, p.s), "graph launch");
    p.read_state();
    const double secs = std::chrono::duration<double>(Clock::now() - t0).count(), cpu = cpu_now() - c0;
    unsigned it = 0;
    vendor_check(cudaMemcpy(&it, p.iterations, 4, cudaMemcpyDeviceToHost), "copy");
    if (r < 0) continue;
    out.iterations.push_back(it);
    out.seconds.push_back(secs);
    out.cpu_seconds.push_back(cpu);
    out.norm.push_back(p.norm());
  }
  vendor_check(cudaGraphExecDestroy(exec), "graph exec destroy");
  vendor_check(cudaGraphDestroy(graph), "graph destroy");
}
#endif

std::vector<JacobiPeerResult> run_peers(const JacobiPeerConfig& c) {
  Problem p(c.n);
  std::vector<JacobiPeerResult> out;
  out.push_back({HSAD_VENDOR " runtime, check every iteration", {}, {}, {}, {}});
  host_loop(p, c, 1, out.back());
  out.push_back({HSAD_VENDOR " runtime, check every " + std::to_string(c.k), {}, {}, {}, {}});
  host_loop(p, c, c.k, out.back());
#if !defined(__HIPCC__)
  out.push_back({"cudaGraph WHILE node (hand-written)", {}, {}, {}, {}});
  while_graph(p, c, out.back());
#endif
  return out;
}
}  // namespace

#if defined(__HIPCC__)
}  // namespace hsad::bench

extern "C" __attribute__((visibility("default"))) int hsad_hip_jacobi_peers(
    const hsad::bench::JacobiPeerConfig* config, std::vector<hsad::bench::JacobiPeerResult>* out, std::string* why) {
  try {
    *out = hsad::bench::run_peers(*config);
    return 0;
  } catch (const std::exception& e) {
    *why = e.what();
    return 1;
  }
}
#else
std::vector<JacobiPeerResult> run_cuda_jacobi_peers(const JacobiPeerConfig& config) { return run_peers(config); }

}  // namespace hsad::bench
#endif
