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

void check(CUresult status, const char* call) {
  if (status == CUDA_SUCCESS) return;
  const Driver* d = driver();
  const char* name = "?";
  const char* text = "";
  if (d) {
    d->cuGetErrorName(status, &name);
    d->cuGetErrorString(status, &text);
  }
  throw Error("cuda", call, std::string(name) + ": " + (text ? text : ""),
              status == CUDA_ERROR_ILLEGAL_ADDRESS || status == CUDA_ERROR_LAUNCH_FAILED
                  ? "a kernel faulted: the context is unusable until the process restarts"
                  : "");
}

}  // namespace hsad::cuda
