// Kernels as applications write them (issue 42): dynamic shared memory beside static, and a
// parameter struct passed by value. The subset hipcc and nvcc both accept; built by the tests into
// an AMD offload bundle (gfx90a, gfx908, gfx1030) and a CUDA fatbin.
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
#else
#include <cooperative_groups.h>
#endif

// out[blockIdx.x] = the sum of in[] over the block's items (0 past n), through the dynamic array
// (blockDim.x floats); `fixed` is static shared memory the dynamic array must not overlap:
// every thread writes its slot of both before either is read.
extern "C" __global__ void __launch_bounds__(256) app_block_sum(float* out, const float* in, unsigned n) {
  extern __shared__ float tile[];
  __shared__ unsigned fixed[256];
  const unsigned t = threadIdx.x;
  const unsigned i = blockIdx.x * blockDim.x + t;
  tile[t] = i < n ? in[i] : 0.0f;
  fixed[t] = 0xffffffffu;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) tile[t] += tile[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = fixed[blockDim.x - 1] == 0xffffffffu ? tile[0] : -1.0f;
}

// A parameter struct of 40 bytes, passed as itself.
struct AffineParams {
  float* y;
  const float* x;
  float a, b;
  unsigned n;
  unsigned stride;  // y[i * stride]
  double bias;
};

// y[i * p.stride] = p.a * x[i] + p.b + p.bias for i < p.n; `tag` puts the struct at offset 8.
extern "C" __global__ void __launch_bounds__(256) app_affine(unsigned tag, AffineParams p) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n) p.y[i * p.stride] = p.a * p.x[i] + p.b + float(p.bias) + float(tag);
}

// x[i] += 1 for i < n, one link of a chain of dependent dispatches. On Hopper it waits for the
// kernel before it itself (what makes an early launch, LaunchConfig::early_launch, correct) and
// lets the next one start once its own work is out.
extern "C" __global__ void __launch_bounds__(256) app_chain_step(float* x, unsigned n) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

// Rounds in which every item adds the one a work-group further on, which another work-group
// wrote the round before: right only where grid.sync() holds every work-group back until all
// arrived, which needs a cooperative dispatch (LaunchConfig::cooperative). The reference is
// tests/support/grid_rounds.hpp.
extern "C" __global__ void __launch_bounds__(256) app_grid_rounds(unsigned* a, unsigned* b, unsigned n, unsigned rounds) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned r = 0; r < rounds; ++r) {
    if (i < n) b[i] = a[i] + a[(i + blockDim.x) % n];
    grid.sync();
    if (i < n) a[i] = b[i];
    grid.sync();
  }
}

// printf from each work-group's first work-item (a string, a double, a negative int, a width):
// AMD reaches the host through the hostcall buffer, CUDA through the driver's printf buffer.
extern "C" __global__ void __launch_bounds__(256) app_printf(unsigned tag) {
  const unsigned group = blockIdx.x, groups = gridDim.x;
  if (threadIdx.x == 0) printf("group %u of %u: tag %u, %s, %.2f, %d, [%5d]\n", group, groups, tag, "hello", 1.5, -7, 42);
}

// Each item mallocs four values, sums them and frees them: out[i] = 4 i + 6, 0 where malloc failed.
extern "C" __global__ void __launch_bounds__(256) app_malloc(unsigned* out, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned* p = static_cast<unsigned*>(malloc(4 * sizeof(unsigned)));
  if (!p) {
    out[i] = 0;
    return;
  }
  for (unsigned k = 0; k < 4; ++k) p[k] = i + k;
  out[i] = p[0] + p[1] + p[2] + p[3];
  free(p);
}

// A device-run loop's body (Batch::loop_begin, issue 44): data[i] = data[i] * 3 + step + i (so a
// missing or extra iteration shows), and a one-work-item count-down that clears the loop's
// condition when its counter reaches 0.
extern "C" __global__ void __launch_bounds__(256) app_mix(unsigned* data, unsigned n, unsigned step) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * 3u + step + i;
}

extern "C" __global__ void app_count_down(unsigned* counter, unsigned* condition) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    if (*counter) *counter -= 1;
    *condition = *counter != 0;
  }
}
