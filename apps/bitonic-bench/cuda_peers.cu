// The CUDA peers of bitonic-bench, written as a CUDA user would write them (runtime API,
// pinned host memory, async copies on one stream). Each iteration, like the ladder's: copy
// the unsorted keys in, sort, copy out, synchronize.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>

#include "bitonic.hpp"
#include "cuda_peers.hpp"

namespace hsad::bench {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("cuda peers: ") + what + ": " + cudaGetErrorString(e));
}

__global__ void __launch_bounds__(256) peer_bitonic_step(std::uint32_t* keys, std::uint32_t stage, std::uint32_t pass,
                                                         std::uint32_t ascending) {
  kernels::bitonic_step_item(keys, stage, pass, ascending, blockIdx.x * blockDim.x + threadIdx.x);
}

struct Step {
  std::uint32_t stage, pass;
};

template <class Body>
PeerResult measure(const char* name, int iterations, int warmup, std::uint32_t* host_out,
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
}  // namespace

std::vector<PeerResult> run_cuda_peers(const std::vector<std::uint32_t>& keys, int iterations, int warmup) {
  const std::uint32_t n = static_cast<std::uint32_t>(keys.size());
  const std::size_t bytes = std::size_t(n) * 4;
  std::vector<std::uint32_t> expected = keys;
  std::sort(expected.begin(), expected.end());
  std::vector<Step> steps;
  for (std::uint32_t stage = 0; (2u << stage) <= n; ++stage)
    for (std::uint32_t pass = 0; pass <= stage; ++pass) steps.push_back({stage, pass});
  const std::uint32_t group = std::min<std::uint32_t>(256, n / 2), grid = (n / 2) / group;

  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  std::uint32_t *in = nullptr, *out = nullptr, *d_keys = nullptr, *d_sorted = nullptr;
  check(cudaMallocHost(&in, bytes), "cudaMallocHost");
  check(cudaMallocHost(&out, bytes), "cudaMallocHost");
  check(cudaMalloc(&d_keys, bytes), "cudaMalloc");
  check(cudaMalloc(&d_sorted, bytes), "cudaMalloc");
  std::copy(keys.begin(), keys.end(), in);

  std::vector<PeerResult> results;
  results.push_back(measure("cuda runtime <<<>>>, sync after each", iterations, warmup, out, expected, [&] {
    check(cudaMemcpyAsync(d_keys, in, bytes, cudaMemcpyHostToDevice, stream), "H2D");
    for (const Step& s : steps) {
      peer_bitonic_step<<<grid, group, 0, stream>>>(d_keys, s.stage, s.pass, 1u);
      check(cudaStreamSynchronize(stream), "sync");
    }
    check(cudaMemcpyAsync(out, d_keys, bytes, cudaMemcpyDeviceToHost, stream), "D2H");
    check(cudaStreamSynchronize(stream), "sync");
  }));
  results.push_back(measure("cuda runtime <<<>>>, one sync", iterations, warmup, out, expected, [&] {
    check(cudaMemcpyAsync(d_keys, in, bytes, cudaMemcpyHostToDevice, stream), "H2D");
    for (const Step& s : steps) peer_bitonic_step<<<grid, group, 0, stream>>>(d_keys, s.stage, s.pass, 1u);
    check(cudaMemcpyAsync(out, d_keys, bytes, cudaMemcpyDeviceToHost, stream), "D2H");
    check(cudaStreamSynchronize(stream), "sync");
  }));

  // The hand-written graph: one kernel node per step, each depending on the one before.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  check(cudaGraphCreate(&graph, 0), "cudaGraphCreate");
  cudaGraphNode_t previous = nullptr;
  std::vector<std::uint32_t> stage_args(steps.size()), pass_args(steps.size());
  std::uint32_t ascending = 1;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    stage_args[i] = steps[i].stage;
    pass_args[i] = steps[i].pass;
    void* args[] = {&d_keys, &stage_args[i], &pass_args[i], &ascending};
    cudaKernelNodeParams p{};
    p.func = reinterpret_cast<void*>(&peer_bitonic_step);
    p.gridDim = dim3(grid);
    p.blockDim = dim3(group);
    p.kernelParams = args;
    cudaGraphNode_t node;
    check(cudaGraphAddKernelNode(&node, graph, previous ? &previous : nullptr, previous ? 1 : 0, &p), "AddKernelNode");
    previous = node;
  }
  check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  results.push_back(measure("cuda graph, hand-written", iterations, warmup, out, expected, [&] {
    check(cudaMemcpyAsync(d_keys, in, bytes, cudaMemcpyHostToDevice, stream), "H2D");
    check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
    check(cudaMemcpyAsync(out, d_keys, bytes, cudaMemcpyDeviceToHost, stream), "D2H");
    check(cudaStreamSynchronize(stream), "sync");
  }));

  std::size_t temp_bytes = 0;
  cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, d_keys, d_sorted, int(n), 0, 32, stream);
  void* temp = nullptr;
  check(cudaMalloc(&temp, temp_bytes), "cudaMalloc temp");
  results.push_back(measure("cub::DeviceRadixSort::SortKeys", iterations, warmup, out, expected, [&] {
    check(cudaMemcpyAsync(d_keys, in, bytes, cudaMemcpyHostToDevice, stream), "H2D");
    check(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, d_keys, d_sorted, int(n), 0, 32, stream), "SortKeys");
    check(cudaMemcpyAsync(out, d_sorted, bytes, cudaMemcpyDeviceToHost, stream), "D2H");
    check(cudaStreamSynchronize(stream), "sync");
  }));

  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaFree(temp);
  cudaFree(d_sorted);
  cudaFree(d_keys);
  cudaFreeHost(out);
  cudaFreeHost(in);
  cudaStreamDestroy(stream);
  return results;
}

}  // namespace hsad::bench
