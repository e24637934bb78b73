// Kernels an application would bring in a module of its own: written in the subset hipcc and
// nvcc both accept, built by the tests into AMD code objects and CUDA cubins, fatbins and PTX.
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#endif

// x[i] *= a for i < n.
extern "C" __global__ void __launch_bounds__(256) module_scale(float* x, float a, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

// x[i] += 1 for i < n.
extern "C" __global__ void __launch_bounds__(256) module_add_one(unsigned* x, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1;
}
