// Can a launch be structurally cheaper on the host than cudaGraphLaunch (issue 60, eleventh
// session)? The seventh session's cuda-graph-shapes found the graph's shape changes nothing: the
// driver's cuGraphLaunch of any graph of N kernels is 3-8% below the runtime's cudaGraphLaunch of
// the same. This probe asks about the kinds of launch instead. Each case's launches alternate,
// launch by launch, with the peer's (a graph of N empty kernels through cudaGraphLaunch, as
// dispatch-bench's peer launches it); a case's figure is the median of its host time over the
// peer's launch just before (1.10: 10% dearer); "-" where the driver refuses the case.
//  cu        a second graph of the peer's kernels through cuGraphLaunch (the control);
//  dev       the same instantiated for device launch (CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH)
//            and uploaded, launched from the host;
//  devcount  that, with a last kernel raising a count (the library's completion);
//  devlib    the library's own graph (hsad_empty N times, hsad_count_completion launched early,
//            from argv[2]'s fatbin) instantiated for device launch;
//  tramp     a graph of one kernel that tail-launches devcount from the device: the host's launch
//            is one node whatever N is;
//  kernel    N plain cuLaunchKernel calls (no graph).
// End to end (launch, then cudaStreamSynchronize) is printed for the peer and tramp, and tramp's
// count is checked: a tail launch the stream did not wait for would show as a count behind.
// Built with nvcc -rdc=true (the device's cudaGraphLaunch is in libcudadevrt).
#include <cuda.h>
#include <cuda_runtime.h>

#include "cuda_probe.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

__global__ void empty_kernel() {}
__global__ void bump(unsigned* dev, volatile unsigned* host) {
  const unsigned v = *dev + 1;
  *dev = v;
  __threadfence_system();
  *host = v;
}
__global__ void tramp(cudaGraphExec_t work) { cudaGraphLaunch(work, cudaStreamGraphTailLaunch); }

namespace {
using probe::Clock;
using probe::median;
bool ok(cudaError_t r, const char* what) {
  if (r == cudaSuccess) return true;
  std::fprintf(stderr, "  (%s: %s)\n", what, cudaGetErrorName(r));
  cudaGetLastError();
  return false;
}
void must(cudaError_t r, const char* what) {
  if (!ok(r, what)) std::exit(1);
}
}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 201;
  const char* fatbin_path = argc > 2 ? argv[2] : "kernels.fatbin";
  must(cudaFree(nullptr), "cudaFree (the runtime's context)");
  cudaDeviceProp prop{};
  must(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("# %s\n", prop.name);
  const CUmodule lib = probe::load_fatbin(fatbin_path);
  CUfunction lib_empty, lib_count;
  probe::check(cuModuleGetFunction(&lib_empty, lib, "hsad_empty"), "hsad_empty");
  probe::check(cuModuleGetFunction(&lib_count, lib, "hsad_count_completion"), "hsad_count_completion");
  cudaStream_t s;
  must(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  unsigned* counter;
  must(cudaMalloc(&counter, 64), "cudaMalloc");
  must(cudaMemset(counter, 0, 64), "cudaMemset");
  unsigned* host;
  must(cudaHostAlloc(&host, 64, cudaHostAllocMapped | cudaHostAllocPortable), "cudaHostAlloc");
  *host = 0;
  unsigned* host_dev;
  must(cudaHostGetDevicePointer(&host_dev, host, 0), "cudaHostGetDevicePointer");

  enum class Body { plain, count, lib };
  // A graph of the body captured on s; null where the driver refuses it.
  auto graph = [&](int n, Body body, unsigned long long flags) -> cudaGraphExec_t {
    must(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    for (int i = 0; i < n; ++i) {
      if (body == Body::lib)
        probe::check(cuLaunchKernel(lib_empty, 1, 1, 1, 1, 1, 1, 0, s, nullptr, nullptr), "cuLaunchKernel");
      else
        empty_kernel<<<1, 1, 0, s>>>();
    }
    if (body == Body::count) bump<<<1, 1, 0, s>>>(counter, host_dev);
    if (body == Body::lib) {
      CUdeviceptr d = reinterpret_cast<CUdeviceptr>(counter), h = reinterpret_cast<CUdeviceptr>(host_dev);
      void* params[] = {&d, &h};
      CUlaunchAttribute a{};
      a.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      a.value.programmaticStreamSerializationAllowed = 1;
      CUlaunchConfig c{};
      c.gridDimX = c.gridDimY = c.gridDimZ = c.blockDimX = c.blockDimY = c.blockDimZ = 1;
      c.hStream = s;
      c.attrs = &a;
      c.numAttrs = 1;
      probe::check(cuLaunchKernelEx(&c, lib_count, params, nullptr), "cuLaunchKernelEx");
    }
    cudaGraph_t g;
    must(cudaStreamEndCapture(s, &g), "cudaStreamEndCapture");
    cudaGraphExec_t e = nullptr;
    if (!ok(cudaGraphInstantiateWithFlags(&e, g, flags), "cudaGraphInstantiateWithFlags")) return nullptr;
    if ((flags & cudaGraphInstantiateFlagDeviceLaunch) && !ok(cudaGraphUpload(e, s), "cudaGraphUpload")) return nullptr;
    must(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    return e;
  };
  auto tramp_graph = [&](cudaGraphExec_t work) -> cudaGraphExec_t {
    if (!work) return nullptr;
    must(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    tramp<<<1, 1, 0, s>>>(work);
    cudaGraph_t g;
    must(cudaStreamEndCapture(s, &g), "cudaStreamEndCapture");
    cudaGraphExec_t e = nullptr;
    if (!ok(cudaGraphInstantiateWithFlags(&e, g, 0), "cudaGraphInstantiate (trampoline)")) return nullptr;
    return e;
  };
  auto host_ns = [&](const std::function<void()>& launch, double* end_to_end = nullptr) {
    const auto t0 = Clock::now();
    launch();
    const auto t1 = Clock::now();
    must(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    if (end_to_end) *end_to_end = probe::ns_between(t0, Clock::now());
    return probe::ns_between(t0, t1);
  };
  auto cu_launch = [&](cudaGraphExec_t e) {
    probe::check(cuGraphLaunch(reinterpret_cast<CUgraphExec>(e), reinterpret_cast<CUstream>(s)), "cuGraphLaunch");
  };

  std::printf("dispatches,peer_ns,peer_e2e_ns,cu,dev,devcount,devlib,tramp,tramp_e2e_ns,kernel,tramp_counts_ok\n");
  for (int n : {1, 16, 1024}) {
    const cudaGraphExec_t peer = graph(n, Body::plain, 0);
    const cudaGraphExec_t control = graph(n, Body::plain, 0);
    const cudaGraphExec_t dev = graph(n, Body::plain, cudaGraphInstantiateFlagDeviceLaunch);
    const cudaGraphExec_t devcount = graph(n, Body::count, cudaGraphInstantiateFlagDeviceLaunch);
    const cudaGraphExec_t devlib = graph(n, Body::lib, cudaGraphInstantiateFlagDeviceLaunch);
    const cudaGraphExec_t trampoline = tramp_graph(graph(n, Body::count, cudaGraphInstantiateFlagDeviceLaunch));
    const std::function<void()> kernels = [&] {
      for (int i = 0; i < n; ++i)
        empty_kernel<<<1, 1, 0, s>>>();
    };
    struct Case {
      std::function<void()> launch;
      bool present;
    };
    const Case cases[] = {{[&] { cu_launch(control); }, control != nullptr},
                          {[&] { cu_launch(dev); }, dev != nullptr},
                          {[&] { cu_launch(devcount); }, devcount != nullptr},
                          {[&] { cu_launch(devlib); }, devlib != nullptr},
                          {[&] { cu_launch(trampoline); }, trampoline != nullptr},
                          {kernels, true}};
    std::vector<double> peer_ns, peer_e2e, tramp_e2e;
    std::vector<std::string> cells;
    bool counts_ok = true;
    for (const Case& c : cases) {
      if (!c.present) {
        cells.push_back("-");
        continue;
      }
      std::vector<double> ratios;
      for (int r = -3; r < reps; ++r) {
        double e2e_p = 0, e2e_c = 0;
        const double p = host_ns([&] { must(cudaGraphLaunch(peer, s), "cudaGraphLaunch"); }, &e2e_p);
        const unsigned before = *host;
        const double t = host_ns(c.launch, &e2e_c);
        if (&c == &cases[4] && *host != before + 1) counts_ok = false;
        if (r < 0) continue;
        peer_ns.push_back(p);
        peer_e2e.push_back(e2e_p);
        if (&c == &cases[4]) tramp_e2e.push_back(e2e_c);
        ratios.push_back(t / p);
      }
      char cell[32];
      std::snprintf(cell, sizeof cell, "%.3f", median(ratios));
      cells.push_back(cell);
    }
    std::printf("%d,%.0f,%.0f", n, median(peer_ns), median(peer_e2e));
    for (int i = 0; i < 6; ++i) {
      std::printf(",%s", cells[i].c_str());
      if (i == 4) std::printf(",%.0f", tramp_e2e.empty() ? NAN : median(tramp_e2e));
    }
    std::printf(",%s\n", trampoline ? (counts_ok ? "yes" : "NO") : "-");
    std::fflush(stdout);
  }
  return 0;
}
