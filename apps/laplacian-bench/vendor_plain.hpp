// laplacian-bench --peers: the lab notes' Kernel 5 written straight for the vendor's runtime
// (vendor_plain.cu, built by nvcc and by hipcc), the reference for the project's kernels in the
// same run on the same GPU.
#pragma once

#include <string>
#include <vector>

namespace hsad::bench {

struct PlainGrid {
  int nx, ny, nz;
  double invhx2, invhy2, invhz2, invhxyz2;
};

struct PlainResult {
  int kernel;        // 5, 7 where split into y-subdomains, 6 in Kernel 6's order of work-groups
  int split;         // subdomains swept in sequence (1: one launch per application)
  double seconds;    // median time of one application
};

// One result per entry of `splits`, then Kernel 6's. Throws std::runtime_error where CUDA fails or the peer was
// not built (no nvcc).
std::vector<PlainResult> run_plain_laplacian(const PlainGrid& g, const std::vector<int>& splits, int iters, int reps);
// The same through HIP, from its shared object (hip_peer.hpp).
std::vector<PlainResult> run_hip_plain_laplacian(const PlainGrid& g, const std::vector<int>& splits, int iters, int reps);

}  // namespace hsad::bench

// The HIP object's entry: fills `out`, or says why in `why` and returns non-zero.
extern "C" {
using hsad_hip_plain_laplacian_fn = int (*)(const hsad::bench::PlainGrid* g, const std::vector<int>* splits, int iters,
                                            int reps, std::vector<hsad::bench::PlainResult>* out, std::string* why);
}
