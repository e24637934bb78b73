// The Jacobi solver's kernels for GPUs (jacobi.hpp); hipcc and nvcc both accept this file.
#include "jacobi.hpp"

using hsad::kernels::kJacobiGroup;

namespace {
// A fixed-order tree over one work-group's values: the same sum on every run.
__device__ double group_sum(double v) {
  __shared__ double s[kJacobiGroup];
  s[threadIdx.x] = v;
  __syncthreads();
  for (unsigned step = kJacobiGroup / 2; step > 0; step /= 2) {
    if (threadIdx.x < step) s[threadIdx.x] += s[threadIdx.x + step];
    __syncthreads();
  }
  return s[0];
}
}  // namespace

extern "C" __global__ void __launch_bounds__(256) jacobi_sweep(double* out, const double* in, const double* rhs, int nx,
                                                               int ny, int nz, double h2, double* partials) {
  HSAD_BARRIER_WAIT();
  const hsad::kernels::JacobiArgs a{out, in, rhs, nx, ny, nz, h2, partials};
  const double d2 = hsad::kernels::jacobi_point(a, std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x);
  if (!partials) return;
  const double total = group_sum(d2);
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

// One work-group of kJacobiGroup: each work-item sums its stride of the partials in order.
extern "C" __global__ void __launch_bounds__(256) jacobi_check(const double* partials, unsigned count, double tolerance2,
                                                               unsigned* condition, double* norm2) {
  HSAD_BARRIER_WAIT();
  double v = 0.0;
  for (unsigned i = threadIdx.x; i < count; i += kJacobiGroup) v += partials[i];
  const double total = group_sum(v);
  if (threadIdx.x == 0) {
    *norm2 = total;
    *condition = total > tolerance2 ? 1u : 0u;
  }
}
