// dispatch-bench's peers: the same empty kernel launched N times through the vendor's own runtime
// on the same GPU in the same run (the CUDA runtime on cuda, HIP on rocr), one launch at a time
// and as one graph of N nodes, timed as the library is: the host time of the launch calls alone,
// and end to end with the wait.
//
// `between`, where given, runs before each timed repetition of each peer: the caller's own
// repetition, so that the library's and the peer's alternate. The host time of one launch drifts
// on the H100 machine (a KVM guest) between about 1.2 and 2 us within seconds and from process to
// process (docs/results.md, issue 60, seventh session): measured one after the other, two
// medians of the same launch differ by more than the library's own cost.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hsad::bench {

struct DispatchPeerSamples {
  std::string name;                          // "hip runtime <<<>>>", "hipGraphLaunch", ...
  std::vector<double> host_ns_per_dispatch;  // one per repetition: the launch calls only
  std::vector<double> us_per_dispatch;       // one per repetition: launches and the wait
};

// The peers of `backend` ("cuda" or "rocr"); throws std::runtime_error naming why they cannot run
// (another backend, built without nvcc or hipcc, the vendor runtime missing or failing).
// `steady` (cuda only, --steady): each timed repetition of a peer follows an untimed one of its
// own, launch and wait, after `between`, so that it runs as it would in a loop of its own.
using Between = std::function<void()>;
std::vector<DispatchPeerSamples> run_dispatch_peers(const std::string& backend, int count, int reps,
                                                    const Between& between = {}, bool steady = false);

// The CUDA peers (vendor_peers.cu by nvcc, or vendor_peers_unavailable.cpp without nvcc).
std::vector<DispatchPeerSamples> run_cuda_dispatch_peers(int count, int reps, const Between& between, bool steady);
// cudaStreamSynchronize of `stream`, a CUstream of the device's primary context as an integer (the
// library's queue's: Queue::native()), for --stream-sync: the library's repetitions then end with
// the wait the CUDA peer's end with, so that each timed launch follows the same kind of wait.
// Throws std::runtime_error where it cannot (no nvcc at build time, a failing call).
void sync_cuda_stream(std::uint64_t stream);

}  // namespace hsad::bench

// The HIP twins (vendor_peers.cu by hipcc) live in a shared object of their own, loaded at run
// time (hip_peer.hpp). Its entry fills `out`, or says why in `why` and returns non-zero.
extern "C" {
using hsad_hip_dispatch_peers_fn = int (*)(int count, int reps, const hsad::bench::Between* between,
                                           std::vector<hsad::bench::DispatchPeerSamples>* out, std::string* why);
}
