// A kernel built as code object v5 for the hidden-argument tests: reading blockDim and gridDim
// makes the compiler list the v5 hidden arguments (block counts, group sizes, remainders), and a
// printf and a malloc (never reached) the hostcall buffer and the heap. clang 15 lists all of them
// for every kernel; clang 17 and later only those the kernel uses, so it uses them.
#include <hip/hip_runtime.h>

extern "C" __global__ void v5_probe(unsigned* out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = blockDim.x + gridDim.y;
  if (out[0] == 0xdeadbeef) {
    printf("%u\n", out[1]);
    out[2] = unsigned(reinterpret_cast<unsigned long>(malloc(4)));
  }
}
