// Device-run loops (Batch::loop_begin, loop_while): the library's kernels that decide each
// iteration on the device.
#include "loop_control.hpp"

#if defined(__HIPCC__)
// AMD's device library: a signal store that rings a doorbell where the signal is one (ROCr's
// queues), or stores and raises the signal's event where it is a user signal.
extern "C" __device__ void __ockl_hsa_signal_store(unsigned long long signal, long long value, int order);

namespace {
// Queue indices and ring memory are read by the command processor: system scope.
struct AmdOps {
  static __device__ std::uint64_t add_write_index(std::uint64_t address, std::uint64_t n) {
    return __hip_atomic_fetch_add(reinterpret_cast<std::uint64_t*>(address), n, __ATOMIC_RELAXED,
                                  __HIP_MEMORY_SCOPE_SYSTEM);
  }
  static __device__ std::uint64_t load_read_index(std::uint64_t address) {
    return __hip_atomic_load(reinterpret_cast<std::uint64_t*>(address), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
  }
  static __device__ void pause() { __builtin_amdgcn_s_sleep(2); }
  static __device__ void publish(std::uint32_t* slot, std::uint32_t word) {
    __hip_atomic_store(slot, word, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
  }
  static __device__ void ring_doorbell(std::uint64_t signal, std::uint64_t index) {
    __ockl_hsa_signal_store(signal, static_cast<long long>(index), 3 /* __ockl_memory_order_release */);
  }
  // The body's kernels released at agent scope (the packets' fences): an acquire load sees them.
  static __device__ std::uint32_t load_condition(std::uint64_t address) {
    return __hip_atomic_load(reinterpret_cast<std::uint32_t*>(address), __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
  }
};
}  // namespace

// One work-item: the launch from the queue's ring (first = 1) and the end of every chunk.
extern "C" __global__ void hsad_loop_control(unsigned long long program, unsigned first, unsigned pad) {
  (void)pad;
  hsad::loop::control<AmdOps>(*reinterpret_cast<hsad::loop::Program*>(program), first != 0);
}

#elif defined(__CUDACC__)
#include <cuda_device_runtime_api.h>

// The WHILE node's decision, at the end of each iteration of its body: the body runs again while
// the application's value is non-zero and the guard allows. What it reads and writes every
// iteration lives in device memory, `live`: word 0 is the current launch's slot (set by
// hsad_loop_begin), word 1 its iterations so far, word 2 the graph's launches. (In the mapped host
// memory it used to be, each iteration paid two dependent reads across PCIe, about as long as a
// small kernel.) `slots` is that host memory, written only: word 0 the launches begun, then
// 4 words per slot: the launch's number, iterations, status (hsad::loop::Status), filled in
// when the loop ends, which the host reads once the graph completed.
// `step`: the iterations the body holds (Batch::loop_while's check_every: the body captured that
// many times over, this kernel once at its end).
extern "C" __global__ void hsad_loop_condition(cudaGraphConditionalHandle handle, const unsigned* condition,
                                               unsigned* slots, unsigned* live, unsigned max_iterations,
                                               unsigned step) {
  HSAD_BARRIER_WAIT();
  const unsigned iterations = live[1] + step;
  live[1] = iterations;
  const unsigned value = *static_cast<const volatile unsigned*>(condition);
  const bool again = value != 0 && iterations < max_iterations;
  if (!again) {
    unsigned* slot = slots + live[0];
    slot[1] = iterations;
    slot[2] = value == 0 ? hsad::loop::ended : hsad::loop::guard_reached;
    __threadfence_system();  // the host reads the slot once the graph completed
  }
  cudaGraphSetConditional(handle, again ? 1u : 0u);
}

// Before the WHILE node: this launch's slot, `slot_count` of them used in turn.
extern "C" __global__ void hsad_loop_begin(unsigned* slots, unsigned* live, unsigned slot_count) {
  HSAD_BARRIER_WAIT();
  const unsigned n = live[2];
  live[2] = n + 1;
  const unsigned offset = 2 + (n % slot_count) * 4;
  live[0] = offset;
  live[1] = 0;
  slots[0] = n + 1;
  slots[offset] = n;
  slots[offset + 1] = 0;
  slots[offset + 2] = hsad::loop::running;
}
#endif
