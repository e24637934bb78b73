// hip-interop: HIP and hsadispatch in one program, sharing memory and signals instead of copies
// and host waits. The program's own HIP kernels make random keys and count the ones out of order;
// hsadispatch sorts them in place with its bitonic network (one batch, one doorbell):
//   1. the keys are the program's hipMalloc'd memory, adopted as a Buffer (Device::adopt): no copy;
//   2. the sort is submitted first and held on the device by the program's own hsa_signal
//      (Batch::wait_native), which the program sets to 0 once its keys are ready;
//   3. the program waits through HSA for the sort's native signal (Submission::native_handle),
//      then checks the order with its own kernel.
// Exits 0 when the keys come out sorted, 1 when not, 2 on an error (which it prints).
#include <hip/hip_runtime.h>
#include <hsa/hsa.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "hsad/hsad.hpp"

namespace {
__global__ void make_keys(unsigned* keys, unsigned n, unsigned seed) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = (i + 1) * 2654435761u ^ seed;  // a hash of the index: random enough for a sort
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  keys[i] = x;
}

__global__ void count_unsorted(const unsigned* keys, unsigned n, unsigned* count) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n && keys[i] > keys[i + 1]) atomicAdd(count, 1u);
}

void hip(hipError_t e, const char* call) {
  if (e != hipSuccess) throw std::runtime_error(std::string(call) + ": " + hipGetErrorString(e));
}
#define HIP(x) hip((x), #x)
}  // namespace

int main(int argc, char** argv) {
  try {
    const unsigned n = argc > 1 ? unsigned(std::strtoul(argv[1], nullptr, 0)) : 1u << 16;
    if (n < 2 || (n & (n - 1))) throw std::runtime_error("keys: a power of two of at least 2");
    unsigned *keys = nullptr, *unsorted = nullptr;
    HIP(hipMalloc(&keys, n * 4));
    HIP(hipMalloc(&unsorted, 4));
    hipStream_t stream;
    HIP(hipStreamCreate(&stream));

    const hsad::Runtime rt = hsad::Runtime::open("rocr");  // HIP and hsadispatch share one ROCr
    const hsad::Device& device = rt.device();
    std::printf("device: %s\n", device.info().name.c_str());
    const hsad::Buffer buffer = device.adopt(keys, n * 4);

    // The sort, recorded once: every pass of the network, behind the program's own signal.
    hsa_signal_t ready;
    if (hsa_signal_create(1, 0, nullptr, &ready) != HSA_STATUS_SUCCESS) throw std::runtime_error("hsa_signal_create");
    hsad::Batch sort;
    sort.wait_native(ready.handle);
    const hsad::Kernel step = device.kernel("bitonic_step");
    unsigned stages = 0;
    while ((1u << stages) < n) ++stages;
    for (unsigned stage = 0; stage < stages; ++stage)
      for (unsigned pass = 0; pass <= stage; ++pass) sort.exec(step, hsad::Dim3{n / 2}, hsad::Dim3{256}, {buffer, stage, pass, 1u, n});
    hsad::Queue queue = device.create_queue();
    const hsad::Stats before = device.stats();
    hsad::Submission sorted = queue.submit(sort, hsad::Options{});  // waits on the device, not here

    // The program's own work: the keys. Then its signal lets the sort go.
    make_keys<<<(n + 255) / 256, 256, 0, stream>>>(keys, n, 2026u);
    HIP(hipGetLastError());
    HIP(hipStreamSynchronize(stream));
    hsa_signal_store_screlease(ready, 0);

    // The program waits for the sort through HSA, as for any signal of its own.
    hsa_signal_wait_scacquire(hsa_signal_t{sorted.native_handle()}, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX,
                              HSA_WAIT_STATE_BLOCKED);
    const hsad::Stats s = device.stats() - before;
    HIP(hipMemsetAsync(unsorted, 0, 4, stream));
    count_unsorted<<<(n + 255) / 256, 256, 0, stream>>>(keys, n, unsorted);
    unsigned wrong = 0;
    HIP(hipMemcpyAsync(&wrong, unsorted, 4, hipMemcpyDeviceToHost, stream));
    HIP(hipStreamSynchronize(stream));
    sorted.wait();  // already complete: releases what the submission held
    std::printf("%u keys made by HIP, sorted in place by hsadispatch (%llu packets, %llu doorbells, "
                "%llu device waits, %llu host waits), checked by HIP: %u out of order\n",
                n, (unsigned long long)s.packets, (unsigned long long)s.doorbells,
                (unsigned long long)s.device_waits, (unsigned long long)s.host_waits, wrong);
    hsa_signal_destroy(ready);
    HIP(hipStreamDestroy(stream));
    HIP(hipFree(unsorted));
    HIP(hipFree(keys));
    return wrong == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hip-interop: %s\n", e.what());
    return 2;
  }
}
