// What in a replayed batch's graph makes its launch cost more than the peer's (issue 60, seventh
// session). Each case's launches alternate, launch by launch, with the peer's (a graph of N empty
// kernels through cudaGraphLaunch, as dispatch-bench's peer launches it), one case at a time, and
// the case's ratio is the median of its launches' host time over the peer's launch just before
// (1.10: 10% slower):
//  cu          a second graph of the peer's kernels through cuGraphLaunch (the driver call the
//              library makes; the control: what the runtime adds to the driver's launch);
//  gdc         N kernels that open with griddepcontrol.wait (as the library's hsad_empty does);
//  count       the peer's N kernels and a last one that raises a count (the library's completion);
//  gdc+count   both (the library's graph, without the launch attribute);
//  gdc+count+early   the same captured with programmatic stream serialization on the count's
//              launch (the library's graph on sm_90: its count launched early);
//  lib         the library's own hsad_empty N times and its hsad_count_completion, launched early,
//              from the library's fatbin (argv[2], build/default/kernels/kernels.fatbin).
// With "steady" as argv[3], each timed launch follows an untimed one of the same graph.
// Built with g++ against the toolkit's stub libcuda and static CUDA runtime (the kernels are PTX).
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "cuda_probe.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {
const char* kPtx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry empty() { ret; }
.visible .entry empty_gdc() { griddepcontrol.wait; ret; }
.visible .entry bump(.param .u64 dev, .param .u64 host) {
  .reg .u64 %d;
  .reg .u64 %h;
  .reg .u32 %v;
  griddepcontrol.wait;
  ld.param.u64 %d, [dev];
  ld.param.u64 %h, [host];
  ld.global.u32 %v, [%d];
  add.u32 %v, %v, 1;
  st.global.u32 [%d], %v;
  membar.sys;
  st.volatile.global.u32 [%h], %v;
  ret;
}
)";

using probe::check;
using probe::Clock;
using probe::median;
void check(cudaError_t r, const char* what) {
  if (r == cudaSuccess) return;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorName(r));
  std::exit(1);
}
}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 201;
  const char* fatbin_path = argc > 2 ? argv[2] : "kernels.fatbin";
  // "steady" (argv[3]): each timed launch, the peer's and the case's, follows an untimed launch and
  // wait of its own, as dispatch-bench --steady times them (eleventh session).
  const bool steady = argc > 3 && std::string(argv[3]) == "steady";
  check(cudaFree(nullptr), "cudaFree (the runtime's context)");
  CUcontext ctx;
  check(cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
  CUmodule mod;
  check(cuModuleLoadData(&mod, kPtx), "cuModuleLoadData");
  CUfunction empty, gdc, bump;
  check(cuModuleGetFunction(&empty, mod, "empty"), "cuModuleGetFunction");
  check(cuModuleGetFunction(&gdc, mod, "empty_gdc"), "cuModuleGetFunction");
  check(cuModuleGetFunction(&bump, mod, "bump"), "cuModuleGetFunction");
  const CUmodule lib = probe::load_fatbin(fatbin_path);
  CUfunction lib_empty, lib_count;
  check(cuModuleGetFunction(&lib_empty, lib, "hsad_empty"), "cuModuleGetFunction (hsad_empty)");
  check(cuModuleGetFunction(&lib_count, lib, "hsad_count_completion"), "cuModuleGetFunction (hsad_count_completion)");
  cudaStream_t s;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  const probe::CountWord count = probe::count_word();
  CUdeviceptr counter = count.counter, host_dev = count.host_dev;

  auto graph = [&](int n, CUfunction f, bool count, bool early, CUfunction counting = nullptr) {
    check(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
    for (int i = 0; i < n; ++i) check(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, nullptr, nullptr), "cuLaunchKernel");
    if (count) {
      void* params[] = {&counter, &host_dev};
      CUlaunchAttribute a{};
      a.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      a.value.programmaticStreamSerializationAllowed = 1;
      CUlaunchConfig c{};
      c.gridDimX = c.gridDimY = c.gridDimZ = c.blockDimX = c.blockDimY = c.blockDimZ = 1;
      c.hStream = s;
      c.attrs = &a;
      c.numAttrs = early ? 1 : 0;
      check(cuLaunchKernelEx(&c, counting ? counting : bump, params, nullptr), "cuLaunchKernelEx");
    }
    CUgraph g;
    check(cuStreamEndCapture(s, &g), "cuStreamEndCapture");
    CUgraphExec e;
    check(cuGraphInstantiateWithFlags(&e, g, 0), "cuGraphInstantiate");
    return e;
  };
  auto time_ns = [&](auto launch) {
    const auto t0 = Clock::now();
    launch();
    const auto t1 = Clock::now();
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    return probe::ns_between(t0, t1);
  };

  std::printf("dispatches,peer_median_ns,cu,gdc,count,gdc+count,gdc+count+early,lib\n");
  for (int n : {1, 16, 1024}) {
    const CUgraphExec peer = graph(n, empty, false, false);
    const CUgraphExec cases[] = {graph(n, empty, false, false), graph(n, gdc, false, false), graph(n, empty, true, false),
                                 graph(n, gdc, true, false), graph(n, gdc, true, true), graph(n, lib_empty, true, true, lib_count)};
    std::vector<double> peer_ns;
    std::printf("%d", n);
    std::vector<double> medians;
    for (const CUgraphExec c : cases) {
      std::vector<double> ratios;
      const auto peer_launch = [&] { check(cudaGraphLaunch(reinterpret_cast<cudaGraphExec_t>(peer), s), "cudaGraphLaunch"); };
      const auto case_launch = [&] { check(cuGraphLaunch(c, reinterpret_cast<CUstream>(s)), "cuGraphLaunch"); };
      for (int r = -3; r < reps; ++r) {
        if (steady) time_ns(peer_launch);  // untimed: the timed launch follows one of its own
        const double p = time_ns(peer_launch);
        if (steady) time_ns(case_launch);
        const double t = time_ns(case_launch);
        if (r < 0) continue;
        peer_ns.push_back(p);
        ratios.push_back(t / p);
      }
      medians.push_back(median(ratios));
    }
    std::printf(",%.0f", median(peer_ns));
    for (double m : medians) std::printf(",%.3f", m);
    std::printf("\n");
  }
  return 0;
}
