// Loading libcuda.so.1 once, on first use.
#include "backends/cuda/cuda_driver.hpp"

#include <dlfcn.h>

#include <mutex>

#include "hsad/error.hpp"

namespace hsad::cuda {
namespace {
#define HSAD_STR2(x) #x
#define HSAD_STR(x) HSAD_STR2(x)

struct Loaded {
  Driver d;
  std::string why;
  bool ok = false;
};

Loaded load() {
  Loaded l;
  l.d.handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!l.d.handle) {
    l.why = std::string("libcuda.so.1 not found (no NVIDIA driver): ") + dlerror();
    return l;
  }
#define HSAD_CUDA_LOAD(name)                                                              \
  l.d.name = reinterpret_cast<decltype(l.d.name)>(dlsym(l.d.handle, HSAD_STR(name)));    \
  if (!l.d.name) {                                                                        \
    l.why = std::string("the driver lacks ") + HSAD_STR(name) + " (driver too old)";      \
    return l;                                                                             \
  }
  HSAD_CUDA_CALLS(HSAD_CUDA_LOAD)
#undef HSAD_CUDA_LOAD
#define HSAD_CUDA_LOAD_OPTIONAL(name) l.d.name = reinterpret_cast<decltype(l.d.name)>(dlsym(l.d.handle, HSAD_STR(name)));
  HSAD_CUDA_OPTIONAL_CALLS(HSAD_CUDA_LOAD_OPTIONAL)
#undef HSAD_CUDA_LOAD_OPTIONAL

  CUresult r = l.d.cuInit(0);
  if (r != CUDA_SUCCESS) {
    const char* name = nullptr;
    l.d.cuGetErrorName(r, &name);
    l.why = std::string("cuInit failed: ") + (name ? name : "?");
    return l;
  }
  int count = 0;
  l.d.cuDeviceGetCount(&count);
  if (count == 0) {
    l.why = "the driver found no CUDA device";
    return l;
  }
  l.ok = true;
  l.why = std::to_string(count) + " device(s)";
  return l;
}
}  // namespace

const Driver* driver(std::string* why) {
  static const Loaded loaded = load();
  if (why) *why = loaded.why;
  return loaded.ok ? &loaded.d : nullptr;
}

static Errc code_of(CUresult status) {
  switch (status) {
    case CUDA_ERROR_OUT_OF_MEMORY: return Errc::out_of_memory;
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_INVALID_HANDLE:
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_NOT_FOUND: return Errc::invalid_argument;
    case CUDA_ERROR_NOT_SUPPORTED:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE: return Errc::unsupported;
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
    case CUDA_ERROR_NOT_INITIALIZED: return Errc::driver_missing;
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_TIMEOUT: return Errc::device_fault;
    default: return Errc::runtime;
  }
}

void check(CUresult status, const char* call) {
  if (status == CUDA_SUCCESS) return;
  const Driver* d = driver();
  const char* name = "?";
  const char* text = "";
  if (d) {
    d->cuGetErrorName(status, &name);
    d->cuGetErrorString(status, &text);
  }
  throw Error(code_of(status), "cuda", call, std::string(name) + ": " + (text ? text : ""),
              status == CUDA_ERROR_ILLEGAL_ADDRESS || status == CUDA_ERROR_LAUNCH_FAILED
                  ? "a kernel faulted: the context is unusable until the process restarts"
                  : "");
}

}  // namespace hsad::cuda
