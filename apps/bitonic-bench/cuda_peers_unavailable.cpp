// Built where nvcc is absent: --peers says why it cannot run.
#include <stdexcept>

#include "cuda_peers.hpp"

namespace hsad::bench {
std::vector<PeerResult> run_cuda_peers(const std::vector<std::uint32_t>&, int, int) {
  throw std::runtime_error("--peers needs the CUDA toolkit at build time (nvcc was not found)");
}
}  // namespace hsad::bench
