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

namespace {
// The exchange's memory operations on the GPUs: the other devices are reached at system scope.
struct JacobiGpuOps {
  static __device__ void release() { __threadfence_system(); }
  static __device__ void acquire() { __threadfence_system(); }
#if defined(__HIPCC__)
  static __device__ void store(unsigned* p, unsigned v) { __hip_atomic_store(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM); }
  static __device__ unsigned load(const unsigned* p) {
    return __hip_atomic_load(const_cast<unsigned*>(p), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
  }
  static __device__ void pause() { __builtin_amdgcn_s_sleep(2); }
#else
  static __device__ void store(unsigned* p, unsigned v) { atomicExch_system(p, v); }
  static __device__ unsigned load(const unsigned* p) { return *static_cast<const volatile unsigned*>(p); }
  static __device__ void pause() { __nanosleep(100); }
#endif
};
}  // namespace

extern "C" __global__ void __launch_bounds__(256) jacobi_sweep_slab(double* out, const double* in, const double* rhs,
                                                                    int nx, int ny, int nz, double h2, double* partials,
                                                                    double* lower, double* upper) {
  HSAD_BARRIER_WAIT();
  const hsad::kernels::JacobiSlabArgs a{out, in, rhs, nx, ny, nz, h2, partials, lower, upper};
  const double d2 = hsad::kernels::jacobi_slab_point(a, std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x);
  if (!partials) return;
  const double total = group_sum(d2);
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

// One work-group of kJacobiGroup: the partials reduced as jacobi_check does, then work-item 0
// meets the other devices (jacobi_team_exchange) and, with a norm, decides the loop's condition.
extern "C" __global__ void __launch_bounds__(256) jacobi_exchange(hsad::kernels::JacobiTeam* team, const double* partials,
                                                                  unsigned count, double tolerance2, unsigned* condition,
                                                                  double* norm2) {
  HSAD_BARRIER_WAIT();
  double local = 0.0;
  if (partials) {
    double v = 0.0;
    for (unsigned i = threadIdx.x; i < count; i += kJacobiGroup) v += partials[i];
    local = group_sum(v);
  }
  if (threadIdx.x != 0) return;
  if (!hsad::kernels::jacobi_team_exchange<JacobiGpuOps>(*team, partials != nullptr, local)) {
    *condition = 0u;
    return;
  }
  if (!partials) return;
  const double total = hsad::kernels::jacobi_team_norm2(*team, hsad::kernels::jacobi_team_take_row(*team));
  *norm2 = total;
  *condition = total > tolerance2 ? 1u : 0u;
}
