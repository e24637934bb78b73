// laplacian-bench's HIP peers: vendor_peers.cu built by hipcc into its own shared object, loaded here.
#include <stdexcept>

#include "hip_peer.hpp"
#include "vendor_plain.hpp"
#include "vendor_slabs.hpp"

namespace hsad::bench {
std::vector<PlainResult> run_hip_plain_laplacian(const PlainGrid& g, const std::vector<int>& splits, int iters, int reps) {
  auto run = reinterpret_cast<hsad_hip_plain_laplacian_fn>(hip_peer_entry(HSAD_HIP_PEER_FILE, "hsad_hip_plain_laplacian"));
  std::vector<PlainResult> out;
  std::string why;
  if (run(&g, &splits, iters, reps, &out, &why) != 0) throw std::runtime_error("HIP peer: " + why);
  return out;
}

std::vector<SlabPeerResult> run_hip_slab_peer(const SlabPeerConfig& config) {
  auto run = reinterpret_cast<hsad_hip_slab_peer_fn>(hip_peer_entry(HSAD_HIP_PEER_FILE, "hsad_hip_slab_peer"));
  std::vector<SlabPeerResult> out;
  std::string why;
  if (run(&config, &out, &why) != 0) throw std::runtime_error("HIP slab peer: " + why);
  return out;
}
}  // namespace hsad::bench
