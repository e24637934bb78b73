// Built where nvcc is absent: the CUDA peers say why they cannot run. The HIP twins are loaded at
// run time from their shared object, whoever built the app.
#include <stdexcept>

#include "vendor_peers.hpp"

namespace hsad::bench {
std::vector<PeerResult> run_cuda_peers(const std::vector<std::uint32_t>&, int, int) {
  throw std::runtime_error("--peers needs the CUDA toolkit at build time (nvcc was not found)");
}
}  // namespace hsad::bench
