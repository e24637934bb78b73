// Which peers a backend has; the HIP ones come from their shared object (hip_peer.hpp).
#include "dispatch_peers.hpp"

#include <stdexcept>

#include "hip_peer.hpp"

namespace hsad::bench {
namespace {

std::vector<DispatchPeerSamples> run_hip_dispatch_peers(int count, int reps, const Between& between) {
  auto run = reinterpret_cast<hsad_hip_dispatch_peers_fn>(hip_peer_entry(HSAD_HIP_PEER_FILE, "hsad_hip_dispatch_peers"));
  std::vector<DispatchPeerSamples> out;
  std::string why;
  if (run(count, reps, &between, &out, &why) != 0) throw std::runtime_error("HIP: " + why);
  return out;
}

}  // namespace

std::vector<DispatchPeerSamples> run_dispatch_peers(const std::string& backend, int count, int reps,
                                                    const Between& between, bool steady) {
  if (backend == "cuda") return run_cuda_dispatch_peers(count, reps, between, steady);
  if (backend == "rocr") {
    if (steady) throw std::runtime_error("--steady: the HIP peers are timed as they alternate, not in loops of their own");
    return run_hip_dispatch_peers(count, reps, between);
  }
  throw std::runtime_error("--peers: the " + backend + " backend has no vendor runtime to compare with (cuda: the CUDA "
                           "runtime; rocr: HIP)");
}

}  // namespace hsad::bench
