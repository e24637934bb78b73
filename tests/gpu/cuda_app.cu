// The CUDA-runtime application of the interoperability tests (cuda_app.hpp).
#include "cuda_app.hpp"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace cuda_app {
namespace {
void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(call) + ": " + cudaGetErrorString(e));
}
#define CUDA(x) check((x), #x)

cudaStream_t s(std::uint64_t h) { return reinterpret_cast<cudaStream_t>(h); }
cudaEvent_t e(std::uint64_t h) { return reinterpret_cast<cudaEvent_t>(h); }

__device__ unsigned long long globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void double_plus_one_kernel(std::uint32_t* x, std::uint32_t n, std::uint32_t spin_ns) {
  if (spin_ns) {
    const unsigned long long start = globaltimer();
    while (globaltimer() - start < spin_ns) {
    }
  }
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 2 * x[i] + 1;
}
}  // namespace

bool has_device() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}
int device_count() {
  int n = 0;
  CUDA(cudaGetDeviceCount(&n));
  return n;
}
void set_device(int device) { CUDA(cudaSetDevice(device)); }
int current_device() {
  int d = -1;
  CUDA(cudaGetDevice(&d));
  return d;
}
void* device_alloc(std::size_t bytes) {
  void* p = nullptr;
  CUDA(cudaMalloc(&p, bytes));
  return p;
}
void device_free(void* p) { CUDA(cudaFree(p)); }
void* host_alloc(std::size_t bytes) {
  void* p = nullptr;
  CUDA(cudaMallocHost(&p, bytes));
  return p;
}
void host_free(void* p) { CUDA(cudaFreeHost(p)); }
void upload(void* dst, const void* src, std::size_t bytes) { CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice)); }
void download(void* dst, const void* src, std::size_t bytes) { CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost)); }

std::uint64_t stream_create() {
  cudaStream_t st = nullptr;
  CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  return reinterpret_cast<std::uint64_t>(st);
}
void stream_destroy(std::uint64_t stream) { CUDA(cudaStreamDestroy(s(stream))); }
void stream_sync(std::uint64_t stream) { CUDA(cudaStreamSynchronize(s(stream))); }
bool stream_idle(std::uint64_t stream) { return cudaStreamQuery(s(stream)) == cudaSuccess; }
std::uint64_t event_create() {
  cudaEvent_t ev = nullptr;
  CUDA(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  return reinterpret_cast<std::uint64_t>(ev);
}
void event_destroy(std::uint64_t event) { CUDA(cudaEventDestroy(e(event))); }
void event_record(std::uint64_t event, std::uint64_t stream) { CUDA(cudaEventRecord(e(event), s(stream))); }
bool event_done(std::uint64_t event) { return cudaEventQuery(e(event)) == cudaSuccess; }
void stream_wait(std::uint64_t stream, std::uint64_t event) { CUDA(cudaStreamWaitEvent(s(stream), e(event), 0)); }

void double_plus_one(std::uint64_t stream, std::uint32_t* x, std::uint32_t n, std::uint32_t spin_ns) {
  double_plus_one_kernel<<<(n + 255) / 256, 256, 0, s(stream)>>>(x, n, spin_ns);
  CUDA(cudaGetLastError());
}

}  // namespace cuda_app
