// A CUDA-runtime application's side of the interoperability tests (cuda_app.cu, built by nvcc):
// its own memory, stream, events and kernel, behind plain C++ so the gtest side needs no CUDA
// header. Every call throws std::runtime_error naming the CUDA call and its error.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cuda_app {

bool has_device();  // cudaGetDeviceCount > 0 (false where no driver loads)
int device_count();             // cudaGetDeviceCount
void set_device(int device);    // cudaSetDevice
int current_device();           // cudaGetDevice: the runtime's, from the thread's current context
void* device_alloc(std::size_t bytes);  // cudaMalloc
void device_free(void* p);
void* host_alloc(std::size_t bytes);    // cudaMallocHost (pinned)
void host_free(void* p);
void upload(void* dst, const void* src, std::size_t bytes);    // cudaMemcpy, blocking
void download(void* dst, const void* src, std::size_t bytes);  // cudaMemcpy, blocking

std::uint64_t stream_create();  // a non-blocking cudaStream_t
void stream_destroy(std::uint64_t stream);
void stream_sync(std::uint64_t stream);
bool stream_idle(std::uint64_t stream);  // cudaStreamQuery == cudaSuccess
std::uint64_t event_create();   // cudaEventDisableTiming
void event_destroy(std::uint64_t event);
void event_record(std::uint64_t event, std::uint64_t stream);
bool event_done(std::uint64_t event);  // cudaEventQuery == cudaSuccess
void stream_wait(std::uint64_t stream, std::uint64_t event);  // cudaStreamWaitEvent

// The application's own kernel on its stream: x[i] = 2 x[i] + 1 for i < n, after spinning about
// `spin_ns` first (so that work ordered behind it would visibly run first if it were not ordered).
void double_plus_one(std::uint64_t stream, std::uint32_t* x, std::uint32_t n, std::uint32_t spin_ns);

}  // namespace cuda_app
