// laplacian-bench --devices N --peers: the slab decomposition written straight against the
// vendor's runtime (vendor_slabs.cu, built by nvcc and by hipcc): the same z-slabs and heat step
// through the same kernel functions as the library's run, two streams per GPU (the boundary
// planes and their pushes on a high-priority one, the interior on the other), events between
// them, and cudaMemcpyPeerAsync / hipMemcpyPeerAsync for the halos.
#pragma once

#include <string>
#include <vector>

namespace hsad::bench {

struct SlabPeerConfig {
  int nx = 0, ny = 0, nz = 0;  // the grid of one device (weak) or of all of them (strong)
  int devices = 2;
  int kernel = 5;  // 5 (m = 8) or 8 (z-marching, chunk `m8`)
  int m8 = 4;
  int iters = 10, reps = 5;
  bool weak = false;
};

struct SlabPeerResult {
  int devices;              // 1, then config.devices
  int nz;                   // the grid's planes in that run
  double seconds_per_step;  // median over the repetitions
};

// The one-device run, then the N-device run. Throws std::runtime_error where the runtime fails or
// the peer was not built.
std::vector<SlabPeerResult> run_cuda_slab_peer(const SlabPeerConfig& config);
std::vector<SlabPeerResult> run_hip_slab_peer(const SlabPeerConfig& config);  // from its shared object

}  // namespace hsad::bench

extern "C" {
using hsad_hip_slab_peer_fn = int (*)(const hsad::bench::SlabPeerConfig* config,
                                      std::vector<hsad::bench::SlabPeerResult>* out, std::string* why);
}
