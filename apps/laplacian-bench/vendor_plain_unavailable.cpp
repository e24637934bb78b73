// laplacian-bench without nvcc: --peers says why it has nothing to run.
#include <stdexcept>

#include "vendor_plain.hpp"
#include "vendor_slabs.hpp"

namespace hsad::bench {
std::vector<PlainResult> run_plain_laplacian(const PlainGrid&, const std::vector<int>&, int, int) {
  throw std::runtime_error("the plain CUDA kernel was not built (nvcc was not found when laplacian-bench was built)");
}
std::vector<SlabPeerResult> run_cuda_slab_peer(const SlabPeerConfig&) {
  throw std::runtime_error("the CUDA slab peer was not built (nvcc was not found when laplacian-bench was built)");
}
}  // namespace hsad::bench
