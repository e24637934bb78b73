// jacobi-bench's HIP peers: vendor_peers.cu built by hipcc into its own shared object, loaded here.
#include <stdexcept>

#include "hip_peer.hpp"
#include "jacobi_peers.hpp"

namespace hsad::bench {
std::vector<JacobiPeerResult> run_hip_jacobi_peers(const JacobiPeerConfig& config) {
  auto run = reinterpret_cast<hsad_hip_jacobi_peers_fn>(hip_peer_entry(HSAD_HIP_PEER_FILE, "hsad_hip_jacobi_peers"));
  std::vector<JacobiPeerResult> out;
  std::string why;
  if (run(&config, &out, &why) != 0) throw std::runtime_error("HIP peer: " + why);
  return out;
}
}  // namespace hsad::bench
