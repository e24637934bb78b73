// Built where nvcc is absent: --peers on cuda says why it cannot run.
#include <stdexcept>

#include "jacobi_peers.hpp"

namespace hsad::bench {
std::vector<JacobiPeerResult> run_cuda_jacobi_peers(const JacobiPeerConfig&) {
  throw std::runtime_error("the CUDA peers need the CUDA toolkit at build time (nvcc was not found)");
}
}  // namespace hsad::bench
