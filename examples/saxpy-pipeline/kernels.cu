// The example's own GPU kernels, written once in the subset that hipcc and nvcc both accept.
// The CMake project builds them into an AMD code object bundle (hipcc --genco) and a CUDA
// fatbin (nvcc -fatbin); the program loads whichever fits the device at run time.
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#endif

// y[i] = a * x[i] + y[i]
extern "C" __global__ void __launch_bounds__(256) saxpy(float* y, const float* x, float a, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// y[i] = y[i] * y[i]
extern "C" __global__ void __launch_bounds__(256) square(float* y, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = y[i] * y[i];
}
