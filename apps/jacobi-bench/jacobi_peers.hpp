// jacobi-bench's peers: the same solver written for the vendor's own runtime (the CUDA runtime
// by nvcc, HIP by hipcc), with the same kernels (kernels/jacobi.cu), iterating as applications
// do without this library: from the host, checking the norm after every iteration or every k
// (NVIDIA's multi-gpu-programming-models Jacobi checks every k), and on CUDA a hand-written graph
// whose WHILE node repeats the iteration until a kernel clears its handle.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hsad::bench {

struct JacobiPeerConfig {
  int n = 64;
  double tolerance = 1e-4;
  std::uint64_t max_iterations = 100000;
  unsigned k = 10;
  int reps = 5;
};

struct JacobiPeerResult {
  std::string name;                  // "cuda runtime, check every iteration", ...
  std::vector<std::uint64_t> iterations;  // per repetition
  std::vector<double> seconds;       // wall time of each solve
  std::vector<double> cpu_seconds;   // the calling thread's CPU time over it
  std::vector<double> norm;          // the last check's 2-norm
};

// The CUDA peers (vendor_peers.cu by nvcc, or vendor_peers_unavailable.cpp without nvcc).
std::vector<JacobiPeerResult> run_cuda_jacobi_peers(const JacobiPeerConfig& config);
// The HIP twins, from their shared object (vendor_peers.cu by hipcc).
std::vector<JacobiPeerResult> run_hip_jacobi_peers(const JacobiPeerConfig& config);

}  // namespace hsad::bench

extern "C" {
using hsad_hip_jacobi_peers_fn = int (*)(const hsad::bench::JacobiPeerConfig* config,
                                         std::vector<hsad::bench::JacobiPeerResult>* out, std::string* why);
}
