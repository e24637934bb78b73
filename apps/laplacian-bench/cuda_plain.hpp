// laplacian-bench --peers: the lab notes' Kernel 5 written straight for nvcc (cuda_plain.cu), the
// reference for the project's kernels in the same run on the same GPU.
#pragma once

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

}  // namespace hsad::bench
