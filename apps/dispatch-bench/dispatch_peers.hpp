// dispatch-bench's peers: the same empty kernel launched N times through the vendor's own runtime
// on the same GPU in the same run (the CUDA runtime on cuda, HIP on rocr), one launch at a time
// and as one graph of N nodes, timed as the library is: the host time of the launch calls alone,
// and end to end with the wait.
#pragma once

#include <string>
#include <vector>

namespace hsad::bench {

struct DispatchPeerSamples {
  std::string name;                          // "hipLaunchKernelGGL", "hipGraphLaunch", ...
  std::vector<double> host_ns_per_dispatch;  // one per repetition: the launch calls only
  std::vector<double> us_per_dispatch;       // one per repetition: launches and the wait
};

// The peers of `backend` ("cuda" or "rocr"); throws std::runtime_error naming why they cannot run
// (another backend, built without nvcc or hipcc, the vendor runtime missing or failing).
std::vector<DispatchPeerSamples> run_dispatch_peers(const std::string& backend, int count, int reps);

// The CUDA peers (cuda_peers.cu, or cuda_peers_unavailable.cpp without nvcc).
std::vector<DispatchPeerSamples> run_cuda_dispatch_peers(int count, int reps);

}  // namespace hsad::bench

// The HIP peers live in a shared object of their own (hip_peers.hip), loaded at run time, so that
// dispatch-bench starts where HIP is not installed. Its one entry point: `host_ns` and `us` hold
// 2 * reps values (launches, then the graph); 0 on success, else `why` says what failed.
extern "C" {
using hsad_hip_dispatch_peers_fn = int (*)(int count, int reps, double* host_ns, double* us, char* why,
                                           unsigned long why_size);
}
