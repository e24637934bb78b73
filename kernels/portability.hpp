// What differs between hipcc, nvcc and the host compiler, so each kernel is written once.
#pragma once

#if defined(__HIPCC__)
#include <hip/hip_runtime.h>  // __global__, blockIdx, __forceinline__ under hipcc
#endif

#if defined(__HIPCC__) || defined(__CUDACC__)
#define HSAD_HD __host__ __device__ __forceinline__
#define HSAD_GPU 1
#else
#define HSAD_HD inline
#define HSAD_GPU 0
#endif

// A loop with a trip count known at compile time, unrolled on GPUs so that arrays indexed by its
// counter stay in registers. The host compilers decide for themselves (-O3 vectorizes instead).
#if HSAD_GPU
#define HSAD_UNROLL _Pragma("unroll")
#else
#define HSAD_UNROLL
#endif

// No aliasing between a kernel's input and output arrays: lets the compiler keep loads in
// registers and, on NVIDIA, use the read-only data path.
#define HSAD_RESTRICT __restrict__

#if defined(__HIP_DEVICE_COMPILE__)
// A store that bypasses the caches on the way out (AMD's nontemporal hint).
#define HSAD_STORE_NT(ptr, value) __builtin_nontemporal_store((value), (ptr))
#elif defined(__CUDA_ARCH__)
#define HSAD_STORE_NT(ptr, value) __stcs((ptr), (value))
#else
#define HSAD_STORE_NT(ptr, value) (*(ptr) = (value))
#endif

// The barrier bit's counterpart on Hopper (programmatic dependent launch): a kernel may be
// launched before the one ahead of it in the stream has finished, and waits here until that
// one completed and its memory is visible. Without the launch attribute these are no-ops, so
// every kernel of this project starts with HSAD_BARRIER_WAIT(); the cuda backend relies on it.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define HSAD_BARRIER_WAIT()                                  \
  do {                                                       \
    asm volatile("griddepcontrol.wait;" ::: "memory");       \
    asm volatile("griddepcontrol.launch_dependents;" :::);   \
  } while (0)
#else
#define HSAD_BARRIER_WAIT() \
  do {                      \
  } while (0)
#endif
