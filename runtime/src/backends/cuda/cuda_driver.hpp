// The CUDA driver API, loaded at run time: libcuda.so.1 is dlopen'ed and the entry points the
// backend uses are resolved into one table. Types come from the toolkit's own cuda.h.
#pragma once

#include <cuda.h>

#include <string>

namespace hsad::cuda {

// The name cuda.h maps each call to (cuMemAlloc -> cuMemAlloc_v2, ...), which is the symbol.
#define HSAD_CUDA_CALLS(X)                                                                       \
  X(cuInit) X(cuDriverGetVersion) X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName)           \
  X(cuDeviceGetAttribute) X(cuDeviceTotalMem) X(cuDevicePrimaryCtxRetain)                         \
  X(cuDevicePrimaryCtxRelease) X(cuDevicePrimaryCtxReset) X(cuCtxSetCurrent) X(cuCtxGetCurrent) X(cuModuleLoadData) X(cuModuleUnload)           \
  X(cuModuleGetFunction) X(cuFuncGetParamInfo) X(cuFuncGetAttribute) X(cuFuncSetAttribute) X(cuOccupancyMaxActiveBlocksPerMultiprocessor) X(cuStreamCreate) \
  X(cuStreamDestroy) X(cuStreamSynchronize) X(cuLaunchKernel) X(cuEventCreate) X(cuEventRecord)   \
  X(cuEventQuery) X(cuEventDestroy) X(cuMemAlloc) X(cuMemFree) X(cuMemHostAlloc) X(cuMemFreeHost) \
  X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuGetErrorName) X(cuGetErrorString) X(cuStreamBeginCapture)   \
  X(cuStreamEndCapture) X(cuGraphInstantiateWithFlags) X(cuGraphLaunch) X(cuGraphExecDestroy)     \
  X(cuGraphDestroy) X(cuStreamWriteValue32) X(cuStreamQuery) X(cuMemHostGetDevicePointer) X(cuLaunchKernelEx) \
  X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync) X(cuMemcpyPeerAsync) X(cuStreamWaitEvent)      \
  X(cuStreamWaitValue32) X(cuEventElapsedTime) X(cuModuleLoadDataEx) X(cuModuleGetFunctionCount)                   \
  X(cuModuleEnumerateFunctions) X(cuFuncGetName) X(cuDeviceCanAccessPeer) X(cuCtxEnablePeerAccess) \
  X(cuCtxGetStreamPriorityRange) X(cuStreamCreateWithPriority) X(cuPointerGetAttributes) \
  X(cuStreamGetCaptureInfo) X(cuGraphExecKernelNodeSetParams)

// Entry points only some features need (CUDA 12.3+ conditional graph nodes, for device-run loops;
// a replayed graph's own completion write, CUDA 11.7+):
// null where the driver lacks them, and the feature then says so.
#define HSAD_CUDA_OPTIONAL_CALLS(X) \
  X(cuGraphConditionalHandleCreate) X(cuGraphAddNode) X(cuStreamUpdateCaptureDependencies) \
  X(cuGraphExecBatchMemOpNodeSetParams)

struct Driver {
#define HSAD_CUDA_MEMBER(name) decltype(&::name) name = nullptr;
  HSAD_CUDA_CALLS(HSAD_CUDA_MEMBER)
  HSAD_CUDA_OPTIONAL_CALLS(HSAD_CUDA_MEMBER)
#undef HSAD_CUDA_MEMBER
  void* handle = nullptr;
};

// The loaded driver, or nullptr with `why` saying what is missing (no library, a missing
// entry point, cuInit failing, no device).
const Driver* driver(std::string* why = nullptr);

// Throws hsad::Error naming the call and the driver's own status name and text.
void check(CUresult status, const char* call);

}  // namespace hsad::cuda
