// What a CUDA or HIP user would compare the ladder with, on the same GPU in the same run: the same
// bitonic kernels through the vendor's runtime (synchronize after each, or once; the LDS
// algorithm's kernels once synchronized), a hand-written graph of the steps, and on CUDA
// cub::DeviceRadixSort of the same keys. One source (vendor_peers.cu) built by nvcc and by hipcc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hsad::bench {

struct PeerResult {
  std::string name;
  std::vector<double> samples_us;  // one per iteration: copy in, the work, copy out
  bool sorted = false;
};

// The CUDA peers, linked in (vendor_peers_unavailable.cpp where nvcc is absent); throws
// std::runtime_error where CUDA fails or they were not built.
std::vector<PeerResult> run_cuda_peers(const std::vector<std::uint32_t>& keys, int iterations, int warmup);
// The HIP twins, from their shared object (hip_peer.hpp); throws std::runtime_error likewise.
std::vector<PeerResult> run_hip_peers(const std::vector<std::uint32_t>& keys, int iterations, int warmup);

}  // namespace hsad::bench

// The HIP object's entry: fills `out`, or says why in `why` and returns non-zero.
extern "C" {
using hsad_hip_bitonic_peers_fn = int (*)(const std::vector<std::uint32_t>* keys, int iterations, int warmup,
                                          std::vector<hsad::bench::PeerResult>* out, std::string* why);
}
