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

// x[i] += v for the first n elements: the careless-application test's kernel (tests/support/careless_app.hpp).
extern "C" __global__ void __launch_bounds__(256) module_add(unsigned* x, unsigned v, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += v;
}

// x[i] += 1 over an nx x ny x nz box, each axis indexed the CUDA and HIP way (blockIdx * blockDim
// + threadIdx) and checked against its size: what a grid of whole work-groups needs.
extern "C" __global__ void __launch_bounds__(256)
    module_add_one_3d(unsigned* x, unsigned nx, unsigned ny, unsigned nz) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned j = blockIdx.y * blockDim.y + threadIdx.y;
  const unsigned k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i < nx && j < ny && k < nz) x[(k * ny + j) * nx + i] += 1;
}

#if defined(__HIPCC__)
extern "C" __device__ size_t __ockl_get_global_id(unsigned int dim);  // AMD's device library

// x[i] += 1 for every work-item of the grid, OpenCL style: the global id, no bounds check. Right
// only where the grid is exact (Batch::exec_partial_groups): HSA's partial work-groups leave out
// the work-items past the grid. AMD only: CUDA has no partial blocks.
extern "C" __global__ void __launch_bounds__(256) module_add_one_global_id(unsigned* x) {
  x[__ockl_get_global_id(0)] += 1;
}
#endif
