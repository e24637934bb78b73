// What the standalone CUDA driver probes of docs/measurements/ share (cuda-replay-probe,
// cuda-wait-probe, cuda-wait-paired, cuda-launch-levels, cuda-graph-shapes, cuda-launch-kinds): a
// driver call checked (a failure ends the probe, naming the call), device 0 opened, the clock, and
// the median of a set of samples.
#pragma once

#include <cuda.h>

#include <algorithm>
#include <chrono>
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

}  // namespace probe
