// The Laplacian kernels and the copy kernel for GPUs; hipcc and nvcc both accept this file.
// Kernel 5 and 7 map (blockIdx.x, y, z) to (x, y, z); Kernel 6 to (y, z, x); Kernel 8 to (x, y, z-chunk).
#include "laplacian.hpp"

using hsad::kernels::CopyArgs;
using hsad::kernels::LaplacianArgs;

#define HSAD_LAPLACIAN_ARGS                                                                       \
  double *f, const double *u, int nx, int ny, int nz, double invhx2, double invhy2, double invhz2, \
      double invhxyz2
#define HSAD_LAPLACIAN_PACK(sy, ey) LaplacianArgs{f, u, nx, ny, nz, invhx2, invhy2, invhz2, invhxyz2, sy, ey}

// With laplacian_tile's interior tile, nvcc gives Kernels 5-7 at m = 8 48 registers, so 5
// work-groups of 256 fit an H100 SM. Held to 6, the plain kernel's occupancy, they
// get 40 registers and a 16-byte spill, and run at 0.98-1.01 of the plain kernel at every size;
// with 48 they fell to 0.93 at 1024^3 and in Kernel 7's splits (docs/results.md). m = 16 keeps
// nvcc's choice (0: no minimum). hipcc's second bound means waves per EU; AMD code is as it was.
#if defined(__CUDACC__) && !defined(__HIPCC__)
#define HSAD_LAPLACIAN_BOUNDS(M) __launch_bounds__(256, (M) <= 8 ? 6 : 0)
#else
#define HSAD_LAPLACIAN_BOUNDS(M) __launch_bounds__(256)
#endif

#define HSAD_LAPLACIAN_KERNELS(M)                                                                            \
  extern "C" __global__ void HSAD_LAPLACIAN_BOUNDS(M) laplacian5_m##M(HSAD_LAPLACIAN_ARGS) {                 \
    HSAD_BARRIER_WAIT();                                                                                     \
    hsad::kernels::laplacian_item<M>(HSAD_LAPLACIAN_PACK(0, ny), threadIdx.x + blockIdx.x * blockDim.x,      \
                                     M * (threadIdx.y + blockIdx.y * blockDim.y),                            \
                                     threadIdx.z + blockIdx.z * blockDim.z);                                 \
  }                                                                                                          \
  extern "C" __global__ void HSAD_LAPLACIAN_BOUNDS(M) laplacian6_m##M(HSAD_LAPLACIAN_ARGS) {                 \
    HSAD_BARRIER_WAIT();                                                                                     \
    hsad::kernels::laplacian_item<M>(HSAD_LAPLACIAN_PACK(0, ny), threadIdx.x + blockIdx.z * blockDim.x,      \
                                     M * (threadIdx.y + blockIdx.x * blockDim.y),                            \
                                     threadIdx.z + blockIdx.y * blockDim.z);                                 \
  }                                                                                                          \
  extern "C" __global__ void HSAD_LAPLACIAN_BOUNDS(M) laplacian7_m##M(HSAD_LAPLACIAN_ARGS, int sy, int ey) { \
    HSAD_BARRIER_WAIT();                                                                                     \
    hsad::kernels::laplacian_item<M>(HSAD_LAPLACIAN_PACK(sy, ey), threadIdx.x + blockIdx.x * blockDim.x,     \
                                     sy + M * (threadIdx.y + blockIdx.y * blockDim.y),                       \
                                     threadIdx.z + blockIdx.z * blockDim.z);                                 \
  }

// Kernel 8: (blockIdx.x, y) to (x, y), blockIdx.z to the z-chunk; one plane deep (blockDim.z = 1).
#define HSAD_LAPLACIAN_ZMARCH_KERNEL(M)                                                                 \
  extern "C" __global__ void __launch_bounds__(256) laplacian8_m##M(HSAD_LAPLACIAN_ARGS) {             \
    HSAD_BARRIER_WAIT();                                                                                \
    hsad::kernels::laplacian_zmarch_item<M>(HSAD_LAPLACIAN_PACK(0, ny), threadIdx.x + blockIdx.x * blockDim.x, \
                                            threadIdx.y + blockIdx.y * blockDim.y, blockIdx.z);         \
  }

HSAD_LAPLACIAN_KERNELS(4)
HSAD_LAPLACIAN_KERNELS(8)
HSAD_LAPLACIAN_KERNELS(16)
HSAD_LAPLACIAN_ZMARCH_KERNEL(4)
HSAD_LAPLACIAN_ZMARCH_KERNEL(8)
HSAD_LAPLACIAN_ZMARCH_KERNEL(16)
HSAD_LAPLACIAN_ZMARCH_KERNEL(32)


extern "C" __global__ void __launch_bounds__(256) hsad_copy_f64(double* dst, const double* src, unsigned long long count) {
  HSAD_BARRIER_WAIT();
  hsad::kernels::copy_item(CopyArgs{dst, src, count}, std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x);
}
