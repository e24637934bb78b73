// What a CUDA user would compare the ladder with, on the same GPU in the same run: the same
// bitonic kernels through the CUDA runtime (synchronize after each, or once), a hand-written
// CUDA graph of them, and cub::DeviceRadixSort of the same keys.
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

// Throws std::runtime_error where the peers were not built (no nvcc) or CUDA fails.
std::vector<PeerResult> run_cuda_peers(const std::vector<std::uint32_t>& keys, int iterations, int warmup);

}  // namespace hsad::bench
