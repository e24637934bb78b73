// Issue 15, what is left at 512^3: the project's Kernel 5 reaches 0.946 of the plain CUDA kernel
// with the same DRAM bytes, load requests, registers and occupancy, and 4% more instructions
// (docs/measurements/h100-laplacian-k5-ncu-2026-11-23.txt). This standalone program times the
// differences one at a time, all at 512^3 on one GPU in one process: the plain kernel, the plain
// kernel plus the project's griddepcontrol prologue, plus the sy/ey store checks, and the project's
// own laplacian_item<8> (kernels/laplacian.hpp) with and without the prologue, and held to the
// plain kernel's occupancy. Not built by CMake (scripts/device-bundle.sh builds it into .dev/):
//   nvcc -O3 -std=c++17 -arch=sm_90 -Ikernels -o k5x docs/measurements/h100-laplacian-k5-explore.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "laplacian.hpp"

#define CK(x)                                                                   \
  do {                                                                          \
    cudaError_t e = (x);                                                        \
    if (e != cudaSuccess) {                                                     \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e));                       \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

constexpr int kM = 8;
using hsad::kernels::LaplacianArgs;

// Every variant takes the library's parameters (kernels/laplacian.cu), not a struct: nvcc gave
// laplacian_item 62 registers with the struct passed by value, against 40 in the library.
#define ARGS double *f, const double *u, int nx_, int ny_, int nz_, double ihx, double ihy, double ihz, double ihc
#define PACK LaplacianArgs{f, u, nx_, ny_, nz_, ihx, ihy, ihz, ihc, 0, ny_}

template <bool PROLOGUE, bool SYEY>
__global__ void __launch_bounds__(256) plain(ARGS) {
  const LaplacianArgs a = PACK;
  if (PROLOGUE) {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" :::);
  }
  const int nx = a.nx, ny = a.ny, nz = a.nz;
  const int i = threadIdx.x + blockIdx.x * blockDim.x;
  const int j = kM * (threadIdx.y + blockIdx.y * blockDim.y);
  const int k = threadIdx.z + blockIdx.z * blockDim.z;
  if (i == 0 || i >= nx - 1 || k == 0 || k >= nz - 1 || j >= ny) return;
  const size_t slice = size_t(nx) * size_t(ny);
  const size_t pos = size_t(i) + size_t(nx) * size_t(j) + slice * size_t(k);
  const double* uu = a.u;
  double lu[kM] = {};
#pragma unroll
  for (int n = 0; n < kM; ++n) lu[n] += uu[pos - slice + size_t(n) * nx] * a.invhz2;
  if (j > 0) lu[0] += uu[pos - nx] * a.invhy2;
#pragma unroll
  for (int n = 0; n < kM; ++n) {
    const size_t p = pos + size_t(n) * nx;
    const double c = uu[p];
    lu[n] += uu[p - 1] * a.invhx2;
    lu[n] += c * a.invhxyz2;
    lu[n] += uu[p + 1] * a.invhx2;
    if (n > 0) lu[n - 1] += c * a.invhy2;
    if (n < kM - 1) lu[n + 1] += c * a.invhy2;
  }
  if (j + kM < ny) lu[kM - 1] += uu[pos + size_t(kM) * nx] * a.invhy2;
#pragma unroll
  for (int n = 0; n < kM; ++n) lu[n] += uu[pos + slice + size_t(n) * nx] * a.invhz2;
#pragma unroll
  for (int n = 0; n < kM; ++n) {
    const int y = j + n;
    if (y > 0 && y < ny - 1 && (!SYEY || (y >= a.sy && y < a.ey))) __stcs(&a.f[pos + size_t(n) * nx], lu[n]);
  }
}

template <bool PROLOGUE>
__global__ void __launch_bounds__(256) project(ARGS) {
  const LaplacianArgs a = PACK;
  if (PROLOGUE) {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" :::);
  }
  hsad::kernels::laplacian_item<kM>(a, threadIdx.x + blockIdx.x * blockDim.x, kM * (threadIdx.y + blockIdx.y * blockDim.y),
                                    threadIdx.z + blockIdx.z * blockDim.z);
}

// The project's kernel held to 6 blocks of 256 per SM, the plain kernel's occupancy, as
// kernels/laplacian.cu builds it: nvcc then gives it 40 registers (and a 16-byte spill) instead of
// 48 (`project` above, faster at 512^3, slower at 1024^3 and in Kernel 7's splits).
__global__ void __launch_bounds__(256, 6) project_6blocks(ARGS) {
  const LaplacianArgs a = PACK;
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" :::);
  hsad::kernels::laplacian_item<kM>(a, threadIdx.x + blockIdx.x * blockDim.x, kM * (threadIdx.y + blockIdx.y * blockDim.y),
                                    threadIdx.z + blockIdx.z * blockDim.z);
}

__global__ void fill(double* u, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    u[i] = double((i * 2654435761u) % 1000003u) * 1e-6;
}

int main() {
  const int n = 512, iters = 10, reps = 7;
  const size_t points = size_t(n) * n * n;
  double *u, *f;
  CK(cudaMalloc(&u, points * sizeof(double)));
  CK(cudaMalloc(&f, points * sizeof(double)));
  fill<<<1024, 256>>>(u, points);
  const LaplacianArgs a{f, u, n, n, n, 1.0, 1.0, 1.0, -6.0, 0, n};
  const dim3 grid(n / 256, n / kM, n), block(256);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  using Kernel = void (*)(double*, const double*, int, int, int, double, double, double, double);
  auto time = [&](Kernel k) {
    std::vector<float> ms;
    for (int r = 0; r <= reps; ++r) {
      CK(cudaEventRecord(e0));
      for (int i = 0; i < iters; ++i) k<<<grid, block>>>(a.f, a.u, n, n, n, a.invhx2, a.invhy2, a.invhz2, a.invhxyz2);
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float t = 0;
      CK(cudaEventElapsedTime(&t, e0, e1));
      if (r) ms.push_back(t / iters);  // the first is the warm-up
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  };
  // Interleaved rounds, so that clock and thermal drift land on every variant alike.
  const char* names[] = {"plain",   "plain+prologue",   "plain+sy/ey",         "plain+both",
                         "project", "project-prologue", "project, 6 blocks/SM"};
  Kernel kernels[] = {plain<false, false>, plain<true, false>,  plain<false, true>, plain<true, true>,
                      project<true>,       project<false>,      project_6blocks};
  constexpr int kVariants = sizeof(kernels) / sizeof(kernels[0]);
  std::vector<std::vector<float>> t(kVariants);
  for (int round = 0; round < 3; ++round)
    for (int v = 0; v < kVariants; ++v) t[v].push_back(time(kernels[v]));
  for (int v = 0; v < kVariants; ++v) {
    std::sort(t[v].begin(), t[v].end());
    std::printf("%-18s %.4f ms  ratio to plain %.3f\n", names[v], t[v][1], t[0][1] / t[v][1]);
  }
  return 0;
}
