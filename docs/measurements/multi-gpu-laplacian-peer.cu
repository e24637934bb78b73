// The peer of laplacian-bench --devices N, written straight against the CUDA runtime: the same
// z-slabs, the same heat step through the same kernel functions (kernels/laplacian.hpp), two
// streams per GPU (boundary planes and their pushes on a high-priority one, the interior on the
// other), events between them, cudaMemcpyPeerAsync for the halos. Prints the one-GPU and the
// N-GPU time per step, the figure of merit and the efficiency, like the bench.
//   nvcc -O3 -std=c++17 -arch=sm_90 -Ikernels docs/measurements/multi-gpu-laplacian-peer.cu -o peer
//   ./peer NX NY NZ GPUS KERNEL(5|8) ITERS REPS [weak]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "laplacian.hpp"

using hsad::kernels::LaplacianArgs;

#define CHECK(x)                                                                              \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

__global__ void __launch_bounds__(256, 6) k5(LaplacianArgs a) {
  hsad::kernels::laplacian_item<8>(a, threadIdx.x + blockIdx.x * blockDim.x, 8 * (threadIdx.y + blockIdx.y * blockDim.y),
                                   threadIdx.z + blockIdx.z * blockDim.z);
}
template <int M>
__global__ void __launch_bounds__(256) k8(LaplacianArgs a) {
  hsad::kernels::laplacian_zmarch_item<M>(a, threadIdx.x + blockIdx.x * blockDim.x, threadIdx.y + blockIdx.y * blockDim.y,
                                          blockIdx.z);
}

struct Gpu {
  int id, first, planes;
  double *a, *b;
  cudaStream_t boundary, interior;
  cudaEvent_t bdone[2], idone[2];
};

int nx, ny, kernel_no, m8;
double cx, cy, cz, cc;

// Planes [first, first + planes) of the local array at f/u (plane 0 = the slab's lower halo).
void planes(cudaStream_t s, double* f, const double* u, int first, int count) {
  if (count < 1) return;
  const std::size_t off = std::size_t(first - 1) * nx * ny;
  LaplacianArgs a{f + off, u + off, nx, ny, count + 2, cx, cy, cz, cc, 0, ny};
  const std::uint32_t block5[3] = {256, 1, 1}, block8[3] = {64, 4, 1};
  if (kernel_no == 5) {
    const auto g = hsad::kernels::laplacian_shape(5, 8, block5, nx, ny, count + 2);
    k5<<<dim3(g.grid[0] / 256, g.grid[1], g.grid[2]), dim3(256, 1, 1), 0, s>>>(a);
  } else {
    const auto g = hsad::kernels::laplacian_shape(8, m8, block8, nx, ny, count + 2);
    const dim3 grid(g.grid[0] / 64, g.grid[1] / 4, g.grid[2]), blk(64, 4, 1);
    if (m8 == 4) k8<4><<<grid, blk, 0, s>>>(a);
    else k8<32><<<grid, blk, 0, s>>>(a);
  }
}

double run(int n, int nz, int iters, int reps) {
  const std::size_t plane = std::size_t(nx) * ny;
  const double hx = 1.0 / (nx - 1), hy = 1.0 / (ny - 1), hz = 1.0 / (nz - 1);
  const double lx = 1 / (hx * hx), ly = 1 / (hy * hy), lz = 1 / (hz * hz), dt = 1 / (4 * (lx + ly + lz));
  cx = dt * lx, cy = dt * ly, cz = dt * lz, cc = 1 - 2 * dt * (lx + ly + lz);
  std::vector<Gpu> g(n);
  int first = 1;
  for (int d = 0; d < n; ++d) {
    g[d].id = d;
    g[d].first = first;
    g[d].planes = (nz - 2) / n + (d < (nz - 2) % n);
    first += g[d].planes;
    CHECK(cudaSetDevice(d));
    for (int o = 0; o < n; ++o) {
      int can = 0;
      if (o != d && (o == d - 1 || o == d + 1)) {
        CHECK(cudaDeviceCanAccessPeer(&can, d, o));
        if (can) {
          cudaError_t e = cudaDeviceEnablePeerAccess(o, 0);
          if (e != cudaErrorPeerAccessAlreadyEnabled) CHECK(e);
        }
      }
    }
    const std::size_t bytes = (g[d].planes + 2) * plane * sizeof(double);
    CHECK(cudaMalloc(&g[d].a, bytes));
    CHECK(cudaMalloc(&g[d].b, bytes));
    CHECK(cudaMemset(g[d].a, 0, bytes));
    CHECK(cudaMemset(g[d].b, 0, bytes));
    int lo, hi;
    CHECK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    CHECK(cudaStreamCreateWithPriority(&g[d].boundary, cudaStreamNonBlocking, hi));
    CHECK(cudaStreamCreateWithPriority(&g[d].interior, cudaStreamNonBlocking, lo));
    for (int p = 0; p < 2; ++p) {
      CHECK(cudaEventCreateWithFlags(&g[d].bdone[p], cudaEventDisableTiming));
      CHECK(cudaEventCreateWithFlags(&g[d].idone[p], cudaEventDisableTiming));
    }
  }
  int step = 0;
  auto one_run = [&] {
    for (int it = 0; it < iters; ++it, ++step) {
      const int p = step % 2;
      for (int d = 0; d < n; ++d) {
        Gpu& x = g[d];
        CHECK(cudaSetDevice(d));
        double* y = p == 0 ? x.b : x.a;
        const double* u = p == 0 ? x.a : x.b;
        const bool below = d > 0, above = d + 1 < n;
        const int L = x.planes;
        if (n > 1) {
          if (step > 0) {
            CHECK(cudaStreamWaitEvent(x.boundary, x.idone[p ^ 1], 0));
            if (below) CHECK(cudaStreamWaitEvent(x.boundary, g[d - 1].bdone[p ^ 1], 0));
            if (above) CHECK(cudaStreamWaitEvent(x.boundary, g[d + 1].bdone[p ^ 1], 0));
          }
          if (below) planes(x.boundary, y, u, 1, 1);
          if (above && (L > 1 || !below)) planes(x.boundary, y, u, L, 1);
          if (below) {
            double* dst = (p == 0 ? g[d - 1].b : g[d - 1].a) + std::size_t(g[d - 1].planes + 1) * plane;
            CHECK(cudaMemcpyPeerAsync(dst, d - 1, y + plane, d, plane * sizeof(double), x.boundary));
          }
          if (above) {
            double* dst = p == 0 ? g[d + 1].b : g[d + 1].a;
            CHECK(cudaMemcpyPeerAsync(dst, d + 1, y + std::size_t(L) * plane, d, plane * sizeof(double), x.boundary));
          }
          CHECK(cudaEventRecord(x.bdone[p], x.boundary));
          if (step > 0) CHECK(cudaStreamWaitEvent(x.interior, x.bdone[p ^ 1], 0));
        }
        const int a = below ? 2 : 1, b = above ? L - 1 : L;
        planes(x.interior, y, u, a, b - a + 1);
        CHECK(cudaEventRecord(x.idone[p], x.interior));
      }
    }
    for (int d = 0; d < n; ++d) {
      CHECK(cudaSetDevice(d));
      CHECK(cudaDeviceSynchronize());
    }
  };
  one_run();  // warm-up
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    one_run();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / iters);
  }
  std::sort(t.begin(), t.end());
  for (int d = 0; d < n; ++d) {
    CHECK(cudaSetDevice(d));
    CHECK(cudaFree(g[d].a));
    CHECK(cudaFree(g[d].b));
    CHECK(cudaStreamDestroy(g[d].boundary));
    CHECK(cudaStreamDestroy(g[d].interior));
    for (int p = 0; p < 2; ++p) {
      CHECK(cudaEventDestroy(g[d].bdone[p]));
      CHECK(cudaEventDestroy(g[d].idone[p]));
    }
  }
  return t[t.size() / 2];
}

int main(int argc, char** argv) {
  if (argc < 8) {
    std::fprintf(stderr, "usage: %s NX NY NZ GPUS KERNEL(5|8) ITERS REPS [weak]\n", argv[0]);
    return 2;
  }
  nx = std::atoi(argv[1]);
  ny = std::atoi(argv[2]);
  const int nz = std::atoi(argv[3]), n = std::atoi(argv[4]);
  kernel_no = std::atoi(argv[5]);
  const int iters = std::atoi(argv[6]), reps = std::atoi(argv[7]);
  const bool weak = argc > 8 && std::strcmp(argv[8], "weak") == 0;
  // Kernel 8's chunk as laplacian-bench --m auto picks it (16 planes of the grid in 50 MB of L2).
  m8 = 16.0 * nx * ny * 8 <= 50e6 ? 4 : 32;
  const int nz_n = weak ? n * (nz - 2) + 2 : nz;
  const double t1 = run(1, nz, iters, reps), tn = run(n, nz_n, iters, reps);
  const double f1 = hsad::kernels::laplacian_bytes(nx, ny, nz) / t1 / 1e9;
  const double fn = hsad::kernels::laplacian_bytes(nx, ny, nz_n) / tn / 1e9;
  std::printf("backend,devices,nx,ny,nz,kernel,ms_per_step,fom_gbs,efficiency\n");
  std::printf("cuda-runtime-peer,1,%d,%d,%d,%d,%.4f,%.1f,1.000\n", nx, ny, nz, kernel_no, t1 * 1e3, f1);
  std::printf("cuda-runtime-peer,%d,%d,%d,%d,%d,%.4f,%.1f,%.3f\n", n, nx, ny, nz_n, kernel_no, tn * 1e3, fn, fn / (n * f1));
  return 0;
}
