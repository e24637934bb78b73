// The CUDA driver with a kernel that never ends, and after a fault (docs/measurements/cuda-stuck-probe/run.sh).
#include <cuda.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
using C = std::chrono::steady_clock;
static C::time_point t0;
static double ms() { return std::chrono::duration<double, std::milli>(C::now() - t0).count(); }
#define P(...) do { std::printf("[%8.1f ms] ", ms()); std::printf(__VA_ARGS__); std::printf("\n"); std::fflush(stdout); } while (0)
static const char* nm(CUresult r) { const char* s = "?"; cuGetErrorName(r, &s); return s; }
#define T(call) do { auto _s = ms(); CUresult _r = call; P("%-40s -> %s (%.1f ms)", #call, nm(_r), ms() - _s); } while (0)
CUdevice dev; CUcontext ctx; CUmodule mod; CUfunction f_spin, f_add, f_store, f_trap; std::string img;
void setup() {
  cuInit(0); cuDeviceGet(&dev, 0); cuDevicePrimaryCtxRetain(&ctx, dev); cuCtxSetCurrent(ctx);
  std::ifstream in("k.cubin", std::ios::binary); img.assign(std::istreambuf_iterator<char>(in), {});
  cuModuleLoadData(&mod, img.data());
  cuModuleGetFunction(&f_spin, mod, "spin"); cuModuleGetFunction(&f_add, mod, "add1");
  cuModuleGetFunction(&f_store, mod, "store"); cuModuleGetFunction(&f_trap, mod, "trap");
}
bool poll(CUevent e, int ms_) {
  auto end = C::now() + std::chrono::milliseconds(ms_);
  for (;;) { CUresult r = cuEventQuery(e); if (r == CUDA_SUCCESS) return true; if (r != CUDA_ERROR_NOT_READY) { P("  query: %s", nm(r)); return false; } if (C::now() > end) return false; std::this_thread::yield(); }
}
bool small(CUstream s, int ms_) {
  CUdeviceptr x; cuMemAlloc(&x, 4); void* a[] = {&x}; CUevent e; cuEventCreate(&e, CU_EVENT_DISABLE_TIMING);
  CUresult r = cuLaunchKernel(f_add, 1, 1, 1, 1, 1, 1, 0, s, a, nullptr); P("  launch add1: %s", nm(r));
  cuEventRecord(e, s); bool ok = poll(e, ms_); P("  add1 completed: %d", ok); return ok;
}
int main(int argc, char** argv) {
  t0 = C::now(); std::string c = argv[1]; setup();
  CUdeviceptr flag; cuMemAlloc(&flag, 4); cuMemsetD32(flag, 0, 1); cuCtxSynchronize();
  CUdeviceptr other; cuMemAlloc(&other, 1 << 20); void* host; cuMemHostAlloc(&host, 4096, 0);
  CUstream a; cuStreamCreate(&a, CU_STREAM_NON_BLOCKING);
  CUevent ea; cuEventCreate(&ea, CU_EVENT_DISABLE_TIMING);
  if (c == "resetfix3") {
    // After a fault: release, reset, retain again, a new context: does the driver recover?
    CUdeviceptr bad = 0x1000; void* args[] = {&bad};
    cuLaunchKernel(f_store, 1, 1, 1, 1, 1, 1, 0, a, args, nullptr); cuEventRecord(ea, a); poll(ea, 5000);
    T(cuDevicePrimaryCtxRelease(dev));
    T(cuDevicePrimaryCtxReset(dev));
    for (int i = 0; i < 3; ++i) T(cuDevicePrimaryCtxRetain(&ctx, dev));
    T(cuCtxSetCurrent(ctx));
    CUcontext own; T(cuCtxCreate(&own, nullptr, 0, dev));
    T(cuModuleLoadData(&mod, img.data()));
    CUstream b; T(cuStreamCreate(&b, CU_STREAM_NON_BLOCKING));
    P("done"); return 0;
  }
  if (c == "ctxdestroy") {
    // A context of its own, a kernel spinning in it: does cuCtxDestroy stop it?
    CUcontext own; T(cuCtxCreate(&own, nullptr, 0, dev));
    CUmodule m; cuModuleLoadData(&m, img.data()); CUfunction fs; cuModuleGetFunction(&fs, m, "spin");
    CUdeviceptr fl; cuMemAlloc(&fl, 4); cuMemsetD32(fl, 0, 1); cuCtxSynchronize();
    CUstream s; cuStreamCreate(&s, CU_STREAM_NON_BLOCKING); void* ar[] = {&fl};
    T(cuLaunchKernel(fs, 1, 1, 1, 1, 1, 1, 0, s, ar, nullptr)); std::this_thread::sleep_for(std::chrono::milliseconds(300));
    T(cuCtxDestroy(own));
    P("done"); return 0;
  }
  if (c == "fault" || c == "trap") {
    CUdeviceptr bad = 0x1000; void* args[] = {&bad};
    T(cuLaunchKernel(c == "fault" ? f_store : f_trap, 1, 1, 1, 1, 1, 1, 0, a, c == "fault" ? args : nullptr, nullptr));
    cuEventRecord(ea, a); poll(ea, 5000);
    T(cuStreamQuery(a)); T(cuCtxSynchronize());
    CUdeviceptr y; T(cuMemAlloc(&y, 64));
    T(cuDevicePrimaryCtxReset(dev));
    setup(); CUstream b; T(cuStreamCreate(&b, CU_STREAM_NON_BLOCKING)); small(b, 3000); P("done"); return 0;
  }
  void* args[] = {&flag};
  T(cuLaunchKernel(f_spin, 1, 1, 1, 1, 1, 1, 0, a, args, nullptr)); cuEventRecord(ea, a);
  P("spin done after 500ms? %d", poll(ea, 500));
  if (c == "newstream") { CUstream b; T(cuStreamCreate(&b, CU_STREAM_NON_BLOCKING)); small(b, 3000); }
  if (c == "samestream") { small(a, 2000); }
  if (c == "alloc") { CUdeviceptr y; T(cuMemAlloc(&y, 1 << 20)); void* h; T(cuMemHostAlloc(&h, 4096, 0)); T(cuMemAllocHost(&h, 4096)); CUevent e; T(cuEventCreate(&e, 0)); CUstream s; T(cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, -1)); }
  if (c == "free") T(cuMemFree(other));
  if (c == "freehost") T(cuMemFreeHost(host));
  if (c == "modload") { CUmodule m2; T(cuModuleLoadData(&m2, img.data())); T(cuModuleUnload(m2)); }
  if (c == "memcpy") { unsigned v = 1; T(cuMemcpyHtoD(other, &v, 4)); }
  if (c == "memcpyasync") { CUstream b; cuStreamCreate(&b, CU_STREAM_NON_BLOCKING); unsigned v = 1; T(cuMemcpyHtoDAsync(other, host, 4, b)); CUevent e; cuEventCreate(&e, CU_EVENT_DISABLE_TIMING); cuEventRecord(e, b); P("async copy done %d", poll(e, 3000)); }
  if (c == "destroy") { T(cuStreamDestroy(a)); T(cuEventDestroy(ea)); }
  if (c == "reset") { T(cuDevicePrimaryCtxReset(dev)); setup(); CUstream b; T(cuStreamCreate(&b, CU_STREAM_NON_BLOCKING)); small(b, 3000); }
  if (c == "release") { T(cuDevicePrimaryCtxRelease(dev)); }
  if (c == "setflag") { unsigned v = 1; CUstream b; cuStreamCreate(&b, CU_STREAM_NON_BLOCKING); T(cuMemcpyHtoDAsync(flag, &v, 4, b)); P("spin ends %d", poll(ea, 3000)); }
  P("return from main");
  return 0;
}
