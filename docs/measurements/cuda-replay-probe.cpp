// What a replayed submit's driver calls cost on their own (issue 60): a graph of N empty kernels
// launched with cuGraphLaunch alone (what cudaGraphLaunch does), then with each way of ending it
// with a completion the host can poll: a stream memory write after the launch
// (cuStreamWriteValue32), the graph's own write node given a new value first
// (cuGraphExecBatchMemOpNodeSetParams), an event recorded after it (cuEventRecord); and
// cuCtxGetCurrent. Median host ns per submit over --reps, each launch waited for before the next.
// Then how the graph was made (the library captures on a stream of its own and launches on the
// queue's): captured on another stream and launched here, the same after cuGraphUpload here, and a
// kernel with a 24-byte argument block (as the library passes it, CU_LAUNCH_PARAM_BUFFER_POINTER).
// Built against the toolkit's stub libcuda: nvcc is needed only for the kernel's PTX, given as text.
#include <cuda.h>

#include "cuda_probe.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {
const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry empty() { ret; }
.visible .entry empty_args(.param .u64 a, .param .u32 b, .param .u32 c, .param .u32 d, .param .u32 e) { ret; }
)";

using probe::check;
using probe::Clock;

template <class F>
double median_ns(int reps, CUstream s, F submit) {
  std::vector<double> ns;
  for (int r = -3; r < reps; ++r) {
    const auto t0 = Clock::now();
    submit();
    const auto t1 = Clock::now();
    check(cuStreamSynchronize(s), "cuStreamSynchronize");
    if (r >= 0) ns.push_back(probe::ns_between(t0, t1));
  }
  return probe::median(ns);
}
}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 201;
  const probe::Device device = probe::primary_device();
  const CUdevice dev = device.dev;
  const CUcontext ctx = device.ctx;
  const char* name = device.name;
  CUmodule mod;
  check(cuModuleLoadData(&mod, kPtx), "cuModuleLoadData");
  CUfunction f;
  check(cuModuleGetFunction(&f, mod, "empty"), "cuModuleGetFunction");
  CUstream s;
  check(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  void* slot_host = nullptr;
  check(cuMemHostAlloc(&slot_host, 64, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc");
  CUdeviceptr slot;
  check(cuMemHostGetDevicePointer(&slot, slot_host, 0), "cuMemHostGetDevicePointer");
  CUevent ev;
  check(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  CUfunction f_args;
  check(cuModuleGetFunction(&f_args, mod, "empty_args"), "cuModuleGetFunction");
  CUstream other;
  check(cuStreamCreate(&other, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  std::printf("device,%s\ndispatches,launch,launch+stream_write,set_node+launch,launch+event,ctx_get_current,"
              "captured_elsewhere,captured_elsewhere+upload,with_args_buffer\n", name);
  for (int n : {1, 16, 1024}) {
    // Two graphs of n kernels: one plain, one ending in a captured memory write.
    CUgraphExec plain, with_node;
    CUgraphNode write_node = nullptr;
    for (int g = 0; g < 2; ++g) {
      check(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
      for (int i = 0; i < n; ++i) check(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, nullptr, nullptr), "cuLaunchKernel");
      if (g == 1) {
        check(cuStreamWriteValue32(s, slot, 0, CU_STREAM_WRITE_VALUE_DEFAULT), "cuStreamWriteValue32 (captured)");
        CUstreamCaptureStatus status;
        const CUgraphNode* deps = nullptr;
        std::size_t count = 0;
        check(cuStreamGetCaptureInfo(s, &status, nullptr, nullptr, &deps, nullptr, &count), "cuStreamGetCaptureInfo");
        write_node = deps[0];
      }
      CUgraph graph;
      check(cuStreamEndCapture(s, &graph), "cuStreamEndCapture");
      check(cuGraphInstantiateWithFlags(g == 0 ? &plain : &with_node, graph, 0), "cuGraphInstantiate");
    }
    std::uint32_t value = 0;
    const double launch = median_ns(reps, s, [&] { check(cuGraphLaunch(plain, s), "cuGraphLaunch"); });
    const double stream_write = median_ns(reps, s, [&] {
      check(cuGraphLaunch(plain, s), "cuGraphLaunch");
      check(cuStreamWriteValue32(s, slot, ++value, CU_STREAM_WRITE_VALUE_DEFAULT), "cuStreamWriteValue32");
    });
    const double set_node = median_ns(reps, s, [&] {
      CUstreamBatchMemOpParams op;
      std::memset(&op, 0, sizeof op);
      op.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
      op.writeValue.address = slot;
      op.writeValue.value = ++value;
      CUDA_BATCH_MEM_OP_NODE_PARAMS p;
      std::memset(&p, 0, sizeof p);
      p.ctx = ctx;
      p.count = 1;
      p.paramArray = &op;
      check(cuGraphExecBatchMemOpNodeSetParams(with_node, write_node, &p), "cuGraphExecBatchMemOpNodeSetParams");
      check(cuGraphLaunch(with_node, s), "cuGraphLaunch");
    });
    const double event = median_ns(reps, s, [&] {
      check(cuGraphLaunch(plain, s), "cuGraphLaunch");
      check(cuEventRecord(ev, s), "cuEventRecord");
    });
    const double get_ctx = median_ns(reps, s, [&] {
      CUcontext c;
      check(cuCtxGetCurrent(&c), "cuCtxGetCurrent");
    });
    // The same n kernels captured on `other`, launched on `s`; then uploaded to `s` first; then with arguments.
    auto capture = [&](CUstream on, bool args) {
      check(cuStreamBeginCapture(on, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
      unsigned char block[24] = {};
      std::size_t size = sizeof block;
      void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, block, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
      for (int i = 0; i < n; ++i) {
        check(cuLaunchKernel(args ? f_args : f, 1, 1, 1, 1, 1, 1, 0, on, nullptr, args ? extra : nullptr), "cuLaunchKernel");
      }
      CUgraph graph;
      check(cuStreamEndCapture(on, &graph), "cuStreamEndCapture");
      CUgraphExec exec;
      check(cuGraphInstantiateWithFlags(&exec, graph, 0), "cuGraphInstantiate");
      return exec;
    };
    CUgraphExec elsewhere = capture(other, false), uploaded = capture(other, false), with_args = capture(s, true);
    check(cuGraphUpload(uploaded, s), "cuGraphUpload");
    check(cuStreamSynchronize(s), "cuStreamSynchronize");
    const double launch_elsewhere = median_ns(reps, s, [&] { check(cuGraphLaunch(elsewhere, s), "cuGraphLaunch"); });
    const double launch_uploaded = median_ns(reps, s, [&] { check(cuGraphLaunch(uploaded, s), "cuGraphLaunch"); });
    const double launch_args = median_ns(reps, s, [&] { check(cuGraphLaunch(with_args, s), "cuGraphLaunch"); });
    std::printf("%d,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f\n", n, launch, stream_write, set_node, event, get_ctx,
                launch_elsewhere, launch_uploaded, launch_args);
    cuGraphExecDestroy(elsewhere);
    cuGraphExecDestroy(uploaded);
    cuGraphExecDestroy(with_args);
    cuGraphExecDestroy(plain);
    cuGraphExecDestroy(with_node);
  }
  // Whether cuGraphLaunch needs the stream's context current (issue 60, fourth session): a graph of
  // one kernel launched on `s` from a thread with no current context, and from one where another
  // context of the same device is current; the result code, and the median host time beside the
  // same launch where the context is current.
  {
    check(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
    check(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, nullptr, nullptr), "cuLaunchKernel");
    CUgraph graph;
    check(cuStreamEndCapture(s, &graph), "cuStreamEndCapture");
    CUgraphExec one;
    check(cuGraphInstantiateWithFlags(&one, graph, 0), "cuGraphInstantiate");
    CUcontext another;
    check(cuCtxCreate(&another, nullptr, 0, dev), "cuCtxCreate");  // becomes current here
    check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    auto from_thread = [&](CUcontext current, const char* what) {
      std::thread t([&] {
        if (current) check(cuCtxSetCurrent(current), "cuCtxSetCurrent (thread)");
        const CUresult first = cuGraphLaunch(one, s);
        const char* name = "?";
        cuGetErrorName(first, &name);
        double ns = -1;
        if (first == CUDA_SUCCESS) {
          check(cuStreamSynchronize(s), "cuStreamSynchronize");
          ns = median_ns(reps, s, [&] { check(cuGraphLaunch(one, s), "cuGraphLaunch (thread)"); });
        }
        std::printf("launch_from_thread,%s,%s,%.0f\n", what, name, ns);
      });
      t.join();
    };
    std::printf("launch_from_thread,context,result,median_ns\n");
    from_thread(ctx, "stream's context current");
    from_thread(nullptr, "no current context");
    from_thread(another, "another context current");
    cuGraphExecDestroy(one);
    cuCtxDestroy(another);
  }
  return 0;
}
