// Kernels that misbehave on purpose, for the recovery tests (tests/fault): one that never ends
// while its flag is 0, one that stores to an address it is given (a page nobody mapped), one
// that traps, and one that works, to show a queue or device usable again.
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#endif

extern "C" __global__ void probe_spin(const volatile unsigned* flag) {
  while (*flag == 0) {
  }
}

extern "C" __global__ void probe_store(unsigned* p) { *p = 1; }

extern "C" __global__ void probe_trap() {
#if defined(__HIPCC__)
  __builtin_trap();
#else
  __trap();
#endif
}

extern "C" __global__ void probe_add_one(unsigned* x) { atomicAdd(x, 1u); }
