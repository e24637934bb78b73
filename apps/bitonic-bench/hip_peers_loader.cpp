// bitonic-bench's HIP peers: vendor_peers.cu built by hipcc into its own shared object, loaded here.
#include <stdexcept>

#include "hip_peer.hpp"
#include "vendor_peers.hpp"

namespace hsad::bench {
std::vector<PeerResult> run_hip_peers(const std::vector<std::uint32_t>& keys, int iterations, int warmup) {
  auto run = reinterpret_cast<hsad_hip_bitonic_peers_fn>(hip_peer_entry(HSAD_HIP_PEER_FILE, "hsad_hip_bitonic_peers"));
  std::vector<PeerResult> out;
  std::string why;
  if (run(&keys, iterations, warmup, &out, &why) != 0) throw std::runtime_error("HIP peers: " + why);
  return out;
}
}  // namespace hsad::bench
