// The apps' peers are written once against the CUDA runtime's names and built twice: by nvcc (the
// CUDA peers) and by hipcc (their HIP twins, the same calls under HIP's names). Only what the
// peers call is mapped; where the two APIs differ in shape (graph instantiation, streaming
// stores) a small function says it once.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>

#if defined(__HIPCC__)
#include <hip/hip_runtime.h>

#define HSAD_VENDOR "hip"
#define cudaError_t hipError_t
#define cudaSuccess hipSuccess
#define cudaGetErrorString hipGetErrorString
#define cudaGetLastError hipGetLastError
#define cudaMalloc hipMalloc
#define cudaMallocHost(p, bytes) hipHostMalloc((p), (bytes), hipHostMallocDefault)
#define cudaFree hipFree
#define cudaFreeHost hipHostFree
#define cudaMemset hipMemset
#define cudaMemcpyAsync hipMemcpyAsync
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost
#define cudaStream_t hipStream_t
#define cudaStreamCreateWithFlags hipStreamCreateWithFlags
#define cudaStreamNonBlocking hipStreamNonBlocking
#define cudaStreamSynchronize hipStreamSynchronize
#define cudaStreamDestroy hipStreamDestroy
#define cudaStreamCreateWithPriority hipStreamCreateWithPriority
#define cudaDeviceGetStreamPriorityRange hipDeviceGetStreamPriorityRange
#define cudaStreamWaitEvent hipStreamWaitEvent
#define cudaEvent_t hipEvent_t
#define cudaEventCreateWithFlags hipEventCreateWithFlags
#define cudaEventDisableTiming hipEventDisableTiming
#define cudaEventRecord hipEventRecord
#define cudaEventDestroy hipEventDestroy
#define cudaSetDevice hipSetDevice
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaDeviceCanAccessPeer hipDeviceCanAccessPeer
#define cudaDeviceEnablePeerAccess hipDeviceEnablePeerAccess
#define cudaErrorPeerAccessAlreadyEnabled hipErrorPeerAccessAlreadyEnabled
#define cudaMemcpyPeerAsync hipMemcpyPeerAsync
#define cudaGraph_t hipGraph_t
#define cudaGraphExec_t hipGraphExec_t
#define cudaGraphNode_t hipGraphNode_t
#define cudaKernelNodeParams hipKernelNodeParams
#define cudaStreamBeginCapture hipStreamBeginCapture
#define cudaStreamEndCapture hipStreamEndCapture
#define cudaStreamCaptureModeThreadLocal hipStreamCaptureModeThreadLocal
#define cudaGraphCreate hipGraphCreate
#define cudaGraphAddKernelNode hipGraphAddKernelNode
#define cudaGraphLaunch hipGraphLaunch
#define cudaGraphExecDestroy hipGraphExecDestroy
#define cudaGraphDestroy hipGraphDestroy

namespace hsad::bench {
inline hipError_t instantiate_graph(hipGraphExec_t* exec, hipGraph_t graph) {
  return hipGraphInstantiate(exec, graph, nullptr, nullptr, 0);
}
template <class T> __device__ inline void store_streaming(T* p, T v) { __builtin_nontemporal_store(v, p); }
}  // namespace hsad::bench

#else
#include <cuda_runtime.h>

#define HSAD_VENDOR "cuda"

namespace hsad::bench {
inline cudaError_t instantiate_graph(cudaGraphExec_t* exec, cudaGraph_t graph) {
  return cudaGraphInstantiate(exec, graph, 0);
}
template <class T> __device__ inline void store_streaming(T* p, T v) { __stcs(p, v); }
}  // namespace hsad::bench
#endif

namespace hsad::bench {
// A runtime call the peer needs: a failure throws, naming the runtime, the call and its words.
inline void vendor_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(HSAD_VENDOR ": ") + what + ": " + cudaGetErrorString(e));
}
// A release on the way out (a free, a destroy; destructors included): a failure there changes no
// result already measured, so it is said on stderr rather than thrown.
inline void vendor_release(cudaError_t e, const char* what) {
  if (e != cudaSuccess) std::fprintf(stderr, "%s: %s: %s\n", HSAD_VENDOR, what, cudaGetErrorString(e));
}
}  // namespace hsad::bench
