extern "C" __global__ void spin(const volatile unsigned* flag) { while (*flag == 0) {} }
extern "C" __global__ void add1(unsigned* x) { atomicAdd(x, 1u); }
extern "C" __global__ void store(unsigned* p) { *p = 1; }
extern "C" __global__ void trap() { __trap(); }
