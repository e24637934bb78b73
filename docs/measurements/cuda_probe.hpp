// What the standalone CUDA driver probes of docs/measurements/ share (cuda-replay-probe,
// cuda-wait-probe, cuda-wait-paired, cuda-launch-levels, cuda-graph-shapes, cuda-launch-kinds): a
// driver call checked (a failure ends the probe, naming the call), device 0 opened, the clock, and
// the median of a set of samples.
#pragma once

#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace probe {

inline void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* name = "?";
  cuGetErrorName(r, &name);
  std::fprintf(stderr, "%s: %s\n", what, name);
  std::exit(1);
}

using Clock = std::chrono::steady_clock;

inline double ns_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::nano>(b - a).count();
}

// Device 0's primary context, made current on this thread.
struct Device {
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  char name[128] = {};
};
inline Device primary_device() {
  Device d;
  check(cuInit(0), "cuInit");
  check(cuDeviceGet(&d.dev, 0), "cuDeviceGet");
  check(cuDevicePrimaryCtxRetain(&d.ctx, d.dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(d.ctx), "cuCtxSetCurrent");
  cuDeviceGetName(d.name, sizeof d.name, d.dev);
  return d;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Two kernels for a driver's module (cuModuleLoadData): one that does nothing, and `bump`, which
// raises a count in device memory and copies it to a word of pinned host memory, as the library's
// completion does (its parameters: CountWord's counter and host_dev).
inline constexpr const char* kEmptyAndBumpPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry empty() { ret; }
.visible .entry bump(.param .u64 dev, .param .u64 host) {
  .reg .u64 %d;
  .reg .u64 %h;
  .reg .u32 %v;
  ld.param.u64 %d, [dev];
  ld.param.u64 %h, [host];
  ld.global.u32 %v, [%d];
  add.u32 %v, %v, 1;
  st.global.u32 [%d], %v;
  membar.sys;
  st.volatile.global.u32 [%h], %v;
  ret;
}
)";

// kEmptyAndBumpPtx loaded into the current context.
struct EmptyAndBump {
  CUmodule module = nullptr;
  CUfunction empty = nullptr, bump = nullptr;
};
inline EmptyAndBump load_empty_and_bump() {
  EmptyAndBump k;
  check(cuModuleLoadData(&k.module, kEmptyAndBumpPtx), "cuModuleLoadData");
  check(cuModuleGetFunction(&k.empty, k.module, "empty"), "cuModuleGetFunction (empty)");
  check(cuModuleGetFunction(&k.bump, k.module, "bump"), "cuModuleGetFunction (bump)");
  return k;
}

// The count `bump` raises (zero to begin with) and the host word it is copied to.
struct CountWord {
  CUdeviceptr counter = 0;   // device memory
  CUdeviceptr host_dev = 0;  // the host word, as the device addresses it
  volatile std::uint32_t* word = nullptr;
};
inline CountWord count_word() {
  CountWord c;
  void* host = nullptr;
  check(cuMemHostAlloc(&host, 64, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc");
  c.word = static_cast<volatile std::uint32_t*>(host);
  *c.word = 0;
  check(cuMemHostGetDevicePointer(&c.host_dev, host, 0), "cuMemHostGetDevicePointer");
  check(cuMemAlloc(&c.counter, 64), "cuMemAlloc");
  check(cuMemsetD32(c.counter, 0, 16), "cuMemsetD32");
  return c;
}

// The library's kernels (build/default/kernels/kernels.fatbin, copied to .dev/ by
// scripts/device-bundle.sh), loaded into the current context; a missing file ends the probe.
inline CUmodule load_fatbin(const char* path) {
  std::FILE* file = std::fopen(path, "rb");
  if (!file) {
    std::fprintf(stderr, "cannot open %s\n", path);
    std::exit(1);
  }
  std::vector<char> image(1 << 26);
  image.resize(std::fread(image.data(), 1, image.size(), file));
  std::fclose(file);
  CUmodule m;
  check(cuModuleLoadData(&m, image.data()), "cuModuleLoadData (the library's fatbin)");
  return m;
}

}  // namespace probe
