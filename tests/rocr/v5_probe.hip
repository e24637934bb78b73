// A kernel built as code object v5 for the hidden-argument tests: reading blockDim and gridDim
// makes the compiler list the v5 hidden arguments (block counts, group sizes, remainders).
#include <hip/hip_runtime.h>

extern "C" __global__ void v5_probe(unsigned* out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = blockDim.x + gridDim.y;
}
