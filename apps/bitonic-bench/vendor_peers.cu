// The vendor-runtime peers of bitonic-bench, written as a CUDA user would write them (runtime API,
// pinned host memory, async copies on one stream) and built twice: by nvcc, and by hipcc as their
// HIP twins (vendor_runtime.hpp maps the names). Each iteration, like the ladder's: copy the
// unsorted keys in, sort, copy out, synchronize. The kernels are the library's own
// (kernels/bitonic.cu), launched through the vendor's runtime.
#if !defined(__HIPCC__)
#include <cub/device/device_radix_sort.cuh>
#endif

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>

#include "bitonic.cu"
#include "vendor_peers.hpp"
#include "vendor_runtime.hpp"

namespace hsad::bench {
namespace {


struct Step {
  std::uint32_t stage, pass;
};

template <class Body>
PeerResult measure(const std::string& name, int iterations, int warmup, std::uint32_t* host_out,
                   const std::vector<std::uint32_t>& expected, Body body) {
  PeerResult r{name, {}, false};
  for (int i = 0; i < warmup; ++i) body();
  for (int i = 0; i < iterations; ++i) {
    std::memset(host_out, 0, expected.size() * 4);
    const auto t0 = std::chrono::steady_clock::now();
    body();
    const auto t1 = std::chrono::steady_clock::now();
    r.samples_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  r.sorted = std::equal(expected.begin(), expected.end(), host_out);
  return r;
}

std::vector<PeerResult> run_peers(const std::vector<std::uint32_t>& keys, int iterations, int warmup) {
  const std::string runtime = HSAD_VENDOR " runtime <<<>>>";
  std::uint32_t n = static_cast<std::uint32_t>(keys.size());
  const std::size_t bytes = std::size_t(n) * 4;
  std::vector<std::uint32_t> expected = keys;
  std::sort(expected.begin(), expected.end());
  std::vector<Step> steps;
  for (std::uint32_t stage = 0; (2u << stage) <= n; ++stage)
    for (std::uint32_t pass = 0; pass <= stage; ++pass) steps.push_back({stage, pass});
  const std::uint32_t group = std::min<std::uint32_t>(256, n / 2), grid = (n / 2) / group;

  cudaStream_t stream;
  vendor_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  std::uint32_t *in = nullptr, *out = nullptr, *d_keys = nullptr, *d_sorted = nullptr;
  vendor_check(cudaMallocHost(&in, bytes), "cudaMallocHost");
  vendor_check(cudaMallocHost(&out, bytes), "cudaMallocHost");
  vendor_check(cudaMalloc(&d_keys, bytes), "cudaMalloc");
  vendor_check(cudaMalloc(&d_sorted, bytes), "cudaMalloc");
  std::copy(keys.begin(), keys.end(), in);

  std::vector<PeerResult> results;
  results.push_back(measure(runtime + ", sync after each", iterations, warmup, out, expected, [&] {
    vendor_check(cudaMemcpyAsync(d_keys, in, bytes, cudaMemcpyHostToDevice, stream), "H2D");
    for (const Step& s : steps) {
      bitonic_step<<<grid, group, 0, stream>>>(d_keys, s.stage, s.pass, 1u, n);
      vendor_check(cudaStreamSynchronize(stream), "sync");
    }
    vendor_check(cudaMemcpyAsync(out, d_keys, bytes, cudaMemcpyDeviceToHost, stream), "D2H");
    vendor_check(cudaStreamSynchronize(stream), "sync");
  }));
  results.push_back(measure(runtime + ", one sync", iterations, warmup, out, expected, [&] {
    vendor_check(cudaMemcpyAsync(d_keys, in, bytes, cudaMemcpyHostToDevice, stream), "H2D");
    for (const Step& s : steps) bitonic_step<<<grid, group, 0, stream>>>(d_keys, s.stage, s.pass, 1u, n);
    vendor_check(cudaMemcpyAsync(out, d_keys, bytes, cudaMemcpyDeviceToHost, stream), "D2H");
    vendor_check(cudaStreamSynchronize(stream), "sync");
  }));

  // The LDS algorithm's dispatches (bitonic-bench --algo lds), the same kernels, one sync.
  const std::uint32_t c = kernels::bitonic_local_chunk_log2(n);
  const std::uint32_t items = std::min<std::uint32_t>(kernels::kBitonicLocalItems, 1u << (c - 1));
  std::uint32_t stages = 0;
  while ((1u << stages) < n) ++stages;
  results.push_back(measure(runtime + ", --algo lds, one sync", iterations, warmup, out, expected, [&] {
    vendor_check(cudaMemcpyAsync(d_keys, in, bytes, cudaMemcpyHostToDevice, stream), "H2D");
    bitonic_local<<<n >> c, items, 0, stream>>>(d_keys, 0u, c - 1, 1u, c, n);
    for (std::uint32_t stage = c; stage < stages; ++stage) {
      for (std::uint32_t pass = 0; pass + c <= stage;) {
        const std::uint32_t count = std::min(kernels::kBitonicLongPassesMax, stage - c + 1 - pass);
        const std::uint32_t long_items = n >> count, long_group = std::min(256u, long_items);
        bitonic_long<<<long_items / long_group, long_group, 0, stream>>>(d_keys, stage, pass, count, 1u, n);
        pass += count;
      }
      bitonic_local<<<n >> c, items, 0, stream>>>(d_keys, stage, stage, 1u, c, n);
    }
    vendor_check(cudaMemcpyAsync(out, d_keys, bytes, cudaMemcpyDeviceToHost, stream), "D2H");
    vendor_check(cudaStreamSynchronize(stream), "sync");
  }));

  // The hand-written graph: one kernel node per step, each depending on the one before.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  vendor_check(cudaGraphCreate(&graph, 0), "cudaGraphCreate");
  cudaGraphNode_t previous = nullptr;
  std::vector<std::uint32_t> stage_args(steps.size()), pass_args(steps.size());
  std::uint32_t ascending = 1;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    stage_args[i] = steps[i].stage;
    pass_args[i] = steps[i].pass;
    void* args[] = {&d_keys, &stage_args[i], &pass_args[i], &ascending, &n};
    cudaKernelNodeParams p{};
    p.func = reinterpret_cast<void*>(&bitonic_step);
    p.gridDim = dim3(grid);
    p.blockDim = dim3(group);
    p.kernelParams = args;
    cudaGraphNode_t node;
    vendor_check(cudaGraphAddKernelNode(&node, graph, previous ? &previous : nullptr, previous ? 1 : 0, &p), "AddKernelNode");
    previous = node;
  }
  vendor_check(instantiate_graph(&exec, graph), "graph instantiation");
  results.push_back(measure(HSAD_VENDOR " graph, hand-written", iterations, warmup, out, expected, [&] {
    vendor_check(cudaMemcpyAsync(d_keys, in, bytes, cudaMemcpyHostToDevice, stream), "H2D");
    vendor_check(cudaGraphLaunch(exec, stream), "graph launch");
    vendor_check(cudaMemcpyAsync(out, d_keys, bytes, cudaMemcpyDeviceToHost, stream), "D2H");
    vendor_check(cudaStreamSynchronize(stream), "sync");
  }));

  void* temp = nullptr;
#if !defined(__HIPCC__)
  std::size_t temp_bytes = 0;
  cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, d_keys, d_sorted, int(n), 0, 32, stream);
  vendor_check(cudaMalloc(&temp, temp_bytes), "cudaMalloc temp");
  results.push_back(measure("cub::DeviceRadixSort::SortKeys", iterations, warmup, out, expected, [&] {
    vendor_check(cudaMemcpyAsync(d_keys, in, bytes, cudaMemcpyHostToDevice, stream), "H2D");
    vendor_check(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, d_keys, d_sorted, int(n), 0, 32, stream), "SortKeys");
    vendor_check(cudaMemcpyAsync(out, d_sorted, bytes, cudaMemcpyDeviceToHost, stream), "D2H");
    vendor_check(cudaStreamSynchronize(stream), "sync");
  }));
#endif

  vendor_release(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
  vendor_release(cudaGraphDestroy(graph), "cudaGraphDestroy");
  vendor_release(cudaFree(temp), "cudaFree");
  vendor_release(cudaFree(d_sorted), "cudaFree");
  vendor_release(cudaFree(d_keys), "cudaFree");
  vendor_release(cudaFreeHost(out), "cudaFreeHost");
  vendor_release(cudaFreeHost(in), "cudaFreeHost");
  vendor_release(cudaStreamDestroy(stream), "cudaStreamDestroy");
  return results;
}
}  // namespace

#if defined(__HIPCC__)
}  // namespace hsad::bench

extern "C" __attribute__((visibility("default"))) int hsad_hip_bitonic_peers(const std::vector<std::uint32_t>* keys,
                                                                           int iterations, int warmup,
                                                                           std::vector<hsad::bench::PeerResult>* out,
                                                                           std::string* why) {
  try {
    *out = hsad::bench::run_peers(*keys, iterations, warmup);
    return 0;
  } catch (const std::exception& e) {
    *why = e.what();
    return 1;
  }
}
#else
std::vector<PeerResult> run_cuda_peers(const std::vector<std::uint32_t>& keys, int iterations, int warmup) {
  return run_peers(keys, iterations, warmup);
}

}  // namespace hsad::bench
#endif
