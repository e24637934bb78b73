// Built where nvcc is absent: --peers on cuda says why it cannot run.
#include <stdexcept>

#include "dispatch_peers.hpp"

namespace hsad::bench {
std::vector<DispatchPeerSamples> run_cuda_dispatch_peers(int, int, const Between&, bool) {
  throw std::runtime_error("the CUDA peers need the CUDA toolkit at build time (nvcc was not found)");
}
void sync_cuda_stream(std::uint64_t) {
  throw std::runtime_error("--stream-sync needs the CUDA toolkit at build time (nvcc was not found)");
}
}  // namespace hsad::bench
