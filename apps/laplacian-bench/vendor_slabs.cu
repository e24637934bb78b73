// The slab decomposition's peer (vendor_slabs.hpp), written as a CUDA user would write it and built
// twice (vendor_runtime.hpp maps the names to HIP's). Compiled inside vendor_peers.cu.
#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "laplacian.hpp"
#include "vendor_runtime.hpp"
#include "vendor_slabs.hpp"

namespace hsad::bench {
namespace slab_peer {

using kernels::LaplacianArgs;

// nvcc holds Kernel 5 at m = 8 to six work-groups per SM as the library's build does; hipcc's
// second bound means waves per EU, so AMD code takes the first alone.
#if defined(__HIPCC__)
#define HSAD_SLAB_K5_BOUNDS __launch_bounds__(256)
#else
#define HSAD_SLAB_K5_BOUNDS __launch_bounds__(256, 6)
#endif

__global__ void HSAD_SLAB_K5_BOUNDS k5(LaplacianArgs a) {
  kernels::laplacian_item<8>(a, threadIdx.x + blockIdx.x * blockDim.x, 8 * (threadIdx.y + blockIdx.y * blockDim.y),
                             threadIdx.z + blockIdx.z * blockDim.z);
}
template <int M>
__global__ void __launch_bounds__(256) k8(LaplacianArgs a) {
  kernels::laplacian_zmarch_item<M>(a, threadIdx.x + blockIdx.x * blockDim.x, threadIdx.y + blockIdx.y * blockDim.y,
                                    blockIdx.z);
}


struct Gpu {
  int first = 0, planes = 0;
  double *a = nullptr, *b = nullptr;
  cudaStream_t boundary = nullptr, interior = nullptr;
  cudaEvent_t bdone[2] = {}, idone[2] = {};
};

struct Step {
  const SlabPeerConfig& c;
  double cx, cy, cz, cc;
  // Planes [first, first + count) of the local array at f/u (plane 0 = the slab's lower halo).
  void planes(cudaStream_t s, double* f, const double* u, int first, int count) const {
    if (count < 1) return;
    const std::size_t off = std::size_t(first - 1) * c.nx * c.ny;
    const LaplacianArgs a{f + off, u + off, c.nx, c.ny, count + 2, cx, cy, cz, cc, 0, c.ny};
    const std::uint32_t block5[3] = {256, 1, 1}, block8[3] = {64, 4, 1};
    if (c.kernel == 5) {
      const auto g = kernels::laplacian_shape(5, 8, block5, c.nx, c.ny, count + 2);
      k5<<<dim3(g.grid[0] / 256, g.grid[1], g.grid[2]), dim3(256, 1, 1), 0, s>>>(a);
    } else {
      const auto g = kernels::laplacian_shape(8, c.m8, block8, c.nx, c.ny, count + 2);
      const dim3 grid(g.grid[0] / 64, g.grid[1] / 4, g.grid[2]), block(64, 4, 1);
      if (c.m8 == 4) k8<4><<<grid, block, 0, s>>>(a);
      else k8<32><<<grid, block, 0, s>>>(a);
    }
    vendor_check(cudaGetLastError(), "launch");
  }
};

// Seconds per step on `n` devices for a grid of `nz` planes: the median of the repetitions.
double run(const SlabPeerConfig& c, int n, int nz) {
  const std::size_t plane = std::size_t(c.nx) * c.ny;
  const double hx = 1.0 / (c.nx - 1), hy = 1.0 / (c.ny - 1), hz = 1.0 / (nz - 1);
  const double lx = 1 / (hx * hx), ly = 1 / (hy * hy), lz = 1 / (hz * hz), dt = 1 / (4 * (lx + ly + lz));
  const Step step_fn{c, dt * lx, dt * ly, dt * lz, 1 - 2 * dt * (lx + ly + lz)};
  std::vector<Gpu> g(n);
  int first = 1;
  for (int d = 0; d < n; ++d) {
    g[d].first = first;
    g[d].planes = (nz - 2) / n + (d < (nz - 2) % n);
    first += g[d].planes;
    vendor_check(cudaSetDevice(d), "set device");
    for (int o : {d - 1, d + 1}) {
      if (o < 0 || o >= n) continue;
      int can = 0;
      vendor_check(cudaDeviceCanAccessPeer(&can, d, o), "can access peer");
      if (!can) continue;
      // Already enabled (by the library in the same process, or by the one-device run before) is
      // fine, but the runtime also records it as the thread's last error, which the first launch's
      // cudaGetLastError() would then report: read it back here.
      const cudaError_t e = cudaDeviceEnablePeerAccess(o, 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled) (void)cudaGetLastError();
      else vendor_check(e, "enable peer access");
    }
    const std::size_t bytes = (g[d].planes + 2) * plane * sizeof(double);
    vendor_check(cudaMalloc(&g[d].a, bytes), "malloc");
    vendor_check(cudaMalloc(&g[d].b, bytes), "malloc");
    vendor_check(cudaMemset(g[d].a, 0, bytes), "memset");
    vendor_check(cudaMemset(g[d].b, 0, bytes), "memset");
    int lo = 0, hi = 0;
    vendor_check(cudaDeviceGetStreamPriorityRange(&lo, &hi), "stream priorities");
    vendor_check(cudaStreamCreateWithPriority(&g[d].boundary, cudaStreamNonBlocking, hi), "stream");
    vendor_check(cudaStreamCreateWithPriority(&g[d].interior, cudaStreamNonBlocking, lo), "stream");
    for (int p = 0; p < 2; ++p) {
      vendor_check(cudaEventCreateWithFlags(&g[d].bdone[p], cudaEventDisableTiming), "event");
      vendor_check(cudaEventCreateWithFlags(&g[d].idone[p], cudaEventDisableTiming), "event");
    }
  }
  int step = 0;
  auto one_run = [&] {
    for (int it = 0; it < c.iters; ++it, ++step) {
      const int p = step % 2;
      for (int d = 0; d < n; ++d) {
        Gpu& x = g[d];
        vendor_check(cudaSetDevice(d), "set device");
        double* y = p == 0 ? x.b : x.a;
        const double* u = p == 0 ? x.a : x.b;
        const bool below = d > 0, above = d + 1 < n;
        const int L = x.planes;
        if (n > 1) {
          // Boundary planes first, on the high-priority stream, pushed into the neighbours' halos.
          if (step > 0) {
            vendor_check(cudaStreamWaitEvent(x.boundary, x.idone[p ^ 1], 0), "wait");
            if (below) vendor_check(cudaStreamWaitEvent(x.boundary, g[d - 1].bdone[p ^ 1], 0), "wait");
            if (above) vendor_check(cudaStreamWaitEvent(x.boundary, g[d + 1].bdone[p ^ 1], 0), "wait");
          }
          if (below) step_fn.planes(x.boundary, y, u, 1, 1);
          if (above && (L > 1 || !below)) step_fn.planes(x.boundary, y, u, L, 1);
          if (below) {
            double* dst = (p == 0 ? g[d - 1].b : g[d - 1].a) + std::size_t(g[d - 1].planes + 1) * plane;
            vendor_check(cudaMemcpyPeerAsync(dst, d - 1, y + plane, d, plane * sizeof(double), x.boundary), "peer copy");
          }
          if (above) {
            double* dst = p == 0 ? g[d + 1].b : g[d + 1].a;
            vendor_check(cudaMemcpyPeerAsync(dst, d + 1, y + std::size_t(L) * plane, d, plane * sizeof(double), x.boundary),
                  "peer copy");
          }
          vendor_check(cudaEventRecord(x.bdone[p], x.boundary), "record");
          if (step > 0) vendor_check(cudaStreamWaitEvent(x.interior, x.bdone[p ^ 1], 0), "wait");
        }
        const int a = below ? 2 : 1, b = above ? L - 1 : L;
        step_fn.planes(x.interior, y, u, a, b - a + 1);
        vendor_check(cudaEventRecord(x.idone[p], x.interior), "record");
      }
    }
    for (int d = 0; d < n; ++d) {
      vendor_check(cudaSetDevice(d), "set device");
      vendor_check(cudaDeviceSynchronize(), "synchronize");
    }
  };
  one_run();  // warm-up
  std::vector<double> t;
  for (int r = 0; r < c.reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    one_run();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / c.iters);
  }
  for (int d = 0; d < n; ++d) {
    vendor_release(cudaSetDevice(d), "cudaSetDevice");
    vendor_release(cudaFree(g[d].a), "cudaFree");
    vendor_release(cudaFree(g[d].b), "cudaFree");
    vendor_release(cudaStreamDestroy(g[d].boundary), "cudaStreamDestroy");
    vendor_release(cudaStreamDestroy(g[d].interior), "cudaStreamDestroy");
    for (int p = 0; p < 2; ++p) {
      vendor_release(cudaEventDestroy(g[d].bdone[p]), "cudaEventDestroy");
      vendor_release(cudaEventDestroy(g[d].idone[p]), "cudaEventDestroy");
    }
  }
  vendor_release(cudaSetDevice(0), "cudaSetDevice");
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

std::vector<SlabPeerResult> run_both(const SlabPeerConfig& c) {
  if (c.kernel != 5 && c.kernel != 8) throw std::runtime_error("the slab peer runs Kernels 5 and 8");
  if (c.kernel == 8 && c.m8 != 4 && c.m8 != 32) throw std::runtime_error("the slab peer's Kernel 8 chunks are 4 and 32");
  const int nz_n = c.weak ? c.devices * (c.nz - 2) + 2 : c.nz;
  return {{1, c.nz, run(c, 1, c.nz)}, {c.devices, nz_n, run(c, c.devices, nz_n)}};
}

}  // namespace slab_peer

#if !defined(__HIPCC__)
std::vector<SlabPeerResult> run_cuda_slab_peer(const SlabPeerConfig& config) { return slab_peer::run_both(config); }
#endif

}  // namespace hsad::bench

#if defined(__HIPCC__)
extern "C" __attribute__((visibility("default"))) int hsad_hip_slab_peer(const hsad::bench::SlabPeerConfig* config,
                                                                       std::vector<hsad::bench::SlabPeerResult>* out,
                                                                       std::string* why) {
  try {
    *out = hsad::bench::slab_peer::run_both(*config);
    return 0;
  } catch (const std::exception& e) {
    *why = e.what();
    return 1;
  }
}
#endif
