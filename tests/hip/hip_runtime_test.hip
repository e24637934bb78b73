// A HIP program as people write them, run under hsad-sim: Debian's HIP runtime (CLR) over the real
// ROCr and the simulated GPU, every result checked exactly. Built by hipcc for gfx90a, gfx908 and
// gfx1030; ctest runs it on each (tests/hip/CMakeLists.txt), and with two GPUs for the peer part.
//   hip_runtime_test MODULE.hsaco    (the tests' module: hipModuleLoad)
// Prints one line per check and "hip_runtime_test: N passed, M failed".
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "hip_checks.hpp"

namespace {
using hip_checks::check;

__global__ void add_one(unsigned* x, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1;
}

// y = a * x + y on float pairs: hipcc -O3 makes packed FP32 math of it on gfx90a (v_pk_fma_f32).
__global__ void saxpy2(float2* y, const float2* x, float a, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float2 xv = x[i], yv = y[i];
    y[i] = make_float2(a * xv.x + yv.x, a * xv.y + yv.y);
  }
}

// A work-group sum in shared memory, with barriers: one partial sum per group.
__global__ void group_sums(const unsigned* x, unsigned* sums, unsigned n) {
  __shared__ unsigned lds[256];
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  lds[threadIdx.x] = i < n ? x[i] : 0;
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    __syncthreads();
    if (threadIdx.x < half) lds[threadIdx.x] += lds[threadIdx.x + half];
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = lds[0];
}

__global__ void say_hello(int value) {
  if (blockIdx.x == 0 && threadIdx.x == 0) printf("hello from the simulated GPU: %d\n", value);
}

constexpr unsigned kN = 4099;  // a multiple of nothing
unsigned blocks(unsigned n, unsigned group) { return (n + group - 1) / group; }

void properties() {
  hipDeviceProp_t p;
  if (!HIP(hipGetDeviceProperties(&p, 0))) return;
  check(std::strstr(p.name, "simulated") != nullptr, std::string("the device says it is simulated: ") + p.name);
  const std::string arch = p.gcnArchName;
  bool simulated_target = false;
  for (const char* t : {"gfx90a", "gfx908", "gfx1030", "gfx942", "gfx950", "gfx1100", "gfx1151", "gfx1201"}) {
    const std::string name(t);
    simulated_target |= arch == name || arch.rfind(name + ":", 0) == 0;  // "gfx942:sramecc+:xnack-"
  }
  check(simulated_target, "gcnArchName is a simulated target: " + arch);
  const bool rdna = arch.rfind("gfx10", 0) == 0 || arch.rfind("gfx11", 0) == 0 || arch.rfind("gfx12", 0) == 0;  // wave32
  check(p.warpSize == (rdna ? 32 : 64), "warpSize " + std::to_string(p.warpSize));
  check(p.multiProcessorCount > 0 && p.maxThreadsPerBlock == 1024, "compute units and 1024 threads per block");
}

void memory_and_kernels() {
  std::vector<unsigned> host(kN);
  for (unsigned i = 0; i < kN; ++i) host[i] = i;
  unsigned* d = nullptr;
  unsigned* pinned = nullptr;
  if (!HIP(hipMalloc(&d, kN * 4)) || !HIP(hipHostMalloc(&pinned, kN * 4))) return;
  // Pageable, blocking.
  HIP(hipMemcpy(d, host.data(), kN * 4, hipMemcpyHostToDevice));
  hipLaunchKernelGGL(add_one, dim3(blocks(kN, 256)), dim3(256), 0, 0, d, kN);
  HIP(hipGetLastError());
  std::vector<unsigned> back(kN);
  HIP(hipMemcpy(back.data(), d, kN * 4, hipMemcpyDeviceToHost));
  unsigned wrong = 0;
  for (unsigned i = 0; i < kN; ++i) wrong += back[i] != i + 1;
  check(wrong == 0, "hipMemcpy (pageable) and hipLaunchKernelGGL: " + std::to_string(wrong) + " wrong");
  // Pinned, asynchronous on a stream; device to device.
  hipStream_t s;
  HIP(hipStreamCreate(&s));
  unsigned* d2 = nullptr;
  HIP(hipMalloc(&d2, kN * 4));
  HIP(hipMemcpyAsync(d2, d, kN * 4, hipMemcpyDeviceToDevice, s));
  hipLaunchKernelGGL(add_one, dim3(blocks(kN, 64)), dim3(64), 0, s, d2, kN);
  HIP(hipMemcpyAsync(pinned, d2, kN * 4, hipMemcpyDeviceToHost, s));
  HIP(hipStreamSynchronize(s));
  wrong = 0;
  for (unsigned i = 0; i < kN; ++i) wrong += pinned[i] != i + 2;
  check(wrong == 0, "hipMemcpyAsync (pinned, device to device) on a stream: " + std::to_string(wrong) + " wrong");
  // Pageable, asynchronous.
  std::vector<unsigned> page(kN, 7);
  HIP(hipMemcpyAsync(d, page.data(), kN * 4, hipMemcpyHostToDevice, s));
  hipLaunchKernelGGL(add_one, dim3(blocks(kN, 128)), dim3(128), 0, s, d, kN);
  HIP(hipMemcpyAsync(page.data(), d, kN * 4, hipMemcpyDeviceToHost, s));
  HIP(hipStreamSynchronize(s));
  wrong = 0;
  for (unsigned v : page) wrong += v != 8;
  check(wrong == 0, "hipMemcpyAsync (pageable): " + std::to_string(wrong) + " wrong");
  // Shared memory and barriers.
  unsigned* sums = nullptr;
  const unsigned groups = blocks(kN, 256);
  HIP(hipMalloc(&sums, groups * 4));
  HIP(hipMemcpy(d, host.data(), kN * 4, hipMemcpyHostToDevice));
  hipLaunchKernelGGL(group_sums, dim3(groups), dim3(256), 0, 0, d, sums, kN);
  std::vector<unsigned> got(groups);
  HIP(hipMemcpy(got.data(), sums, groups * 4, hipMemcpyDeviceToHost));
  wrong = 0;
  for (unsigned g = 0; g < groups; ++g) {
    unsigned want = 0;
    for (unsigned i = g * 256; i < kN && i < (g + 1) * 256; ++i) want += i;
    wrong += got[g] != want;
  }
  check(wrong == 0, "shared memory and __syncthreads: " + std::to_string(wrong) + " group sums wrong");
  // Packed FP32 math (gfx90a): exact for these small integers.
  std::vector<float> x(2 * kN), y(2 * kN);
  for (unsigned i = 0; i < 2 * kN; ++i) x[i] = float(i % 1000), y[i] = float(i % 7);
  float *dx = nullptr, *dy = nullptr;
  HIP(hipMalloc(&dx, 8 * kN));
  HIP(hipMalloc(&dy, 8 * kN));
  HIP(hipMemcpy(dx, x.data(), 8 * kN, hipMemcpyHostToDevice));
  HIP(hipMemcpy(dy, y.data(), 8 * kN, hipMemcpyHostToDevice));
  hipLaunchKernelGGL(saxpy2, dim3(blocks(kN, 256)), dim3(256), 0, 0, reinterpret_cast<float2*>(dy),
                     reinterpret_cast<const float2*>(dx), 3.0f, kN);
  std::vector<float> out(2 * kN);
  HIP(hipMemcpy(out.data(), dy, 8 * kN, hipMemcpyDeviceToHost));
  wrong = 0;
  for (unsigned i = 0; i < 2 * kN; ++i) wrong += out[i] != 3.0f * x[i] + y[i];
  check(wrong == 0, "float2 saxpy (packed FP32 on gfx90a): " + std::to_string(wrong) + " wrong");
  HIP(hipFree(dx));
  HIP(hipFree(dy));
  HIP(hipFree(sums));
  HIP(hipFree(d2));
  HIP(hipStreamDestroy(s));
  HIP(hipHostFree(pinned));
  HIP(hipFree(d));
}

// Two streams ordered by an event, and the elapsed time between two events.
// Copies larger than one copy-engine packet carries on gfx9 (4 MiB): ROCr 5 splits them, ROCr 6
// sends gfx90a's and gfx10.3's in one packet with a 30-bit count. Every byte arrives, both ways.
void large_copies() {
  constexpr std::size_t kWords = (24u << 20) / 4 + 3;  // 24 MiB and a tail
  std::vector<unsigned> host(kWords), back(kWords, 0);
  for (std::size_t i = 0; i < kWords; ++i) host[i] = unsigned(i * 2654435761u);
  unsigned *d = nullptr, *e = nullptr;
  if (!HIP(hipMalloc(&d, kWords * 4)) || !HIP(hipMalloc(&e, kWords * 4))) return;
  HIP(hipMemcpy(d, host.data(), kWords * 4, hipMemcpyHostToDevice));
  HIP(hipMemcpy(e, d, kWords * 4, hipMemcpyDeviceToDevice));
  HIP(hipMemcpy(back.data(), e, kWords * 4, hipMemcpyDeviceToHost));
  std::size_t wrong = 0, first = kWords;
  for (std::size_t i = 0; i < kWords; ++i) {
    if (back[i] != host[i]) wrong += 1, first = std::min(first, i);
  }
  check(wrong == 0, "24 MiB copied to the device, within it and back: " + std::to_string(wrong) +
                        " words wrong" + (wrong ? ", the first at byte " + std::to_string(first * 4) : std::string()));
  HIP(hipFree(d));
  HIP(hipFree(e));
}

void streams_and_events() {
  unsigned* d = nullptr;
  if (!HIP(hipMalloc(&d, kN * 4))) return;
  HIP(hipMemset(d, 0, kN * 4));
  hipStream_t a, b;
  hipEvent_t start, produced, end;
  HIP(hipStreamCreate(&a));
  HIP(hipStreamCreate(&b));
  HIP(hipEventCreate(&start));
  HIP(hipEventCreate(&produced));
  HIP(hipEventCreate(&end));
  HIP(hipEventRecord(start, a));
  for (int k = 0; k < 5; ++k) hipLaunchKernelGGL(add_one, dim3(blocks(kN, 256)), dim3(256), 0, a, d, kN);
  HIP(hipEventRecord(produced, a));
  HIP(hipStreamWaitEvent(b, produced, 0));
  hipLaunchKernelGGL(add_one, dim3(blocks(kN, 256)), dim3(256), 0, b, d, kN);
  HIP(hipEventRecord(end, b));
  HIP(hipEventSynchronize(end));
  std::vector<unsigned> back(kN);
  HIP(hipMemcpy(back.data(), d, kN * 4, hipMemcpyDeviceToHost));
  unsigned wrong = 0;
  for (unsigned v : back) wrong += v != 6;
  check(wrong == 0, "hipStreamWaitEvent orders two streams: " + std::to_string(wrong) + " wrong");
  float ms = -1;
  HIP(hipEventElapsedTime(&ms, start, produced));
  check(ms > 0, "hipEventElapsedTime is positive: " + std::to_string(ms) + " ms (the interpreter's time, no AMD number)");
  HIP(hipEventDestroy(start));
  HIP(hipEventDestroy(produced));
  HIP(hipEventDestroy(end));
  HIP(hipStreamDestroy(a));
  HIP(hipStreamDestroy(b));
  HIP(hipFree(d));
}

// Stream capture, one instantiation, two launches.
void graphs() {
  unsigned* d = nullptr;
  if (!HIP(hipMalloc(&d, kN * 4))) return;
  HIP(hipMemset(d, 0, kN * 4));
  hipStream_t s;
  HIP(hipStreamCreate(&s));
  hipGraph_t g;
  HIP(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
  for (int k = 0; k < 8; ++k) hipLaunchKernelGGL(add_one, dim3(blocks(kN, 64)), dim3(64), 0, s, d, kN);
  HIP(hipStreamEndCapture(s, &g));
  hipGraphExec_t exec;
  if (!HIP(hipGraphInstantiate(&exec, g, nullptr, nullptr, 0))) return;
  HIP(hipGraphLaunch(exec, s));
  HIP(hipGraphLaunch(exec, s));
  HIP(hipStreamSynchronize(s));
  std::vector<unsigned> back(kN);
  HIP(hipMemcpy(back.data(), d, kN * 4, hipMemcpyDeviceToHost));
  unsigned wrong = 0;
  for (unsigned v : back) wrong += v != 16;
  check(wrong == 0, "a captured graph of 8 launches, launched twice: " + std::to_string(wrong) + " wrong");
  HIP(hipGraphExecDestroy(exec));
  HIP(hipGraphDestroy(g));
  HIP(hipStreamDestroy(s));
  HIP(hipFree(d));
}

// The tests' own module (tests/modules/module_kernels.cu) through hipModuleLoad.
void modules(const char* path) {
  hipModule_t m;
  if (!HIP(hipModuleLoad(&m, path))) return;
  hipFunction_t f;
  if (!HIP(hipModuleGetFunction(&f, m, "module_add_one"))) return;
  unsigned* d = nullptr;
  HIP(hipMalloc(&d, kN * 4));
  HIP(hipMemset(d, 0, kN * 4));
  struct {
    unsigned* x;
    unsigned n;
  } args{d, kN};
  std::size_t size = sizeof args;
  void* config[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END};
  HIP(hipModuleLaunchKernel(f, blocks(kN, 256), 1, 1, 256, 1, 1, 0, nullptr, nullptr, config));
  std::vector<unsigned> back(kN);
  HIP(hipMemcpy(back.data(), d, kN * 4, hipMemcpyDeviceToHost));
  unsigned wrong = 0;
  for (unsigned v : back) wrong += v != 1;
  check(wrong == 0, "hipModuleLoad and hipModuleLaunchKernel: " + std::to_string(wrong) + " wrong");
  hipFunction_t missing;
  check(hipModuleGetFunction(&missing, m, "module_missing") != hipSuccess, "a kernel the module lacks is refused");
  HIP(hipFree(d));
  HIP(hipModuleUnload(m));
}

void device_printf() {
  std::fflush(stdout);
  hipLaunchKernelGGL(say_hello, dim3(2), dim3(64), 0, 0, 42);
  check(HIP(hipDeviceSynchronize()), "device-side printf returned (its line is above)");
}

// Two GPUs: peer access, then copies between them.
void peers() {
  int count = 0;
  HIP(hipGetDeviceCount(&count));
  if (count < 2) {
    std::printf("(one GPU: the peer checks run under hsad-sim --gpus 2)\n");
    return;
  }
  int can = 0;
  HIP(hipDeviceCanAccessPeer(&can, 0, 1));
  check(can == 1, "hipDeviceCanAccessPeer(0, 1)");
  HIP(hipSetDevice(0));
  HIP(hipDeviceEnablePeerAccess(1, 0));
  std::vector<unsigned> host(kN);
  for (unsigned i = 0; i < kN; ++i) host[i] = 3 * i;
  unsigned *d0 = nullptr, *d1 = nullptr;
  HIP(hipMalloc(&d0, kN * 4));
  HIP(hipMemcpy(d0, host.data(), kN * 4, hipMemcpyHostToDevice));
  HIP(hipSetDevice(1));
  HIP(hipMalloc(&d1, kN * 4));
  HIP(hipMemcpyPeer(d1, 1, d0, 0, kN * 4));
  hipLaunchKernelGGL(add_one, dim3(blocks(kN, 256)), dim3(256), 0, 0, d1, kN);
  hipEvent_t added;  // GPU 0's copy back waits for GPU 1's kernel on the device
  HIP(hipEventCreate(&added));
  HIP(hipEventRecord(added, nullptr));
  hipStream_t s;
  HIP(hipSetDevice(0));
  HIP(hipStreamCreate(&s));
  HIP(hipStreamWaitEvent(s, added, 0));
  HIP(hipMemcpyPeerAsync(d0, 0, d1, 1, kN * 4, s));
  HIP(hipStreamSynchronize(s));
  std::vector<unsigned> back(kN);
  HIP(hipMemcpy(back.data(), d0, kN * 4, hipMemcpyDeviceToHost));
  unsigned wrong = 0;
  for (unsigned i = 0; i < kN; ++i) wrong += back[i] != 3 * i + 1;
  check(wrong == 0, "hipMemcpyPeer there, a kernel on GPU 1, hipMemcpyPeerAsync back: " + std::to_string(wrong) + " wrong");
  HIP(hipStreamDestroy(s));
  HIP(hipFree(d0));
  HIP(hipSetDevice(1));
  HIP(hipEventDestroy(added));
  HIP(hipFree(d1));
  HIP(hipSetDevice(0));
}

// What the simulator does not model is an error code, not a hang: sharing memory between
// processes (KFD's ShareMemory). (Cooperative launches: cooperative_test.hip.)
void unmodeled() {
  void* d = nullptr;
  HIP(hipMalloc(&d, 4096));
  hipIpcMemHandle_t h;
  const hipError_t e = hipIpcGetMemHandle(&h, d);
  check(e != hipSuccess, std::string("hipIpcGetMemHandle is refused: ") + hipGetErrorString(e));
  HIP(hipDeviceSynchronize());
  HIP(hipFree(d));
}
}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc != 2) {
    std::fprintf(stderr, "usage: hip_runtime_test MODULE.hsaco\n");
    return 2;
  }
  properties();
  memory_and_kernels();
  large_copies();
  streams_and_events();
  graphs();
  modules(argv[1]);
  device_printf();
  peers();
  unmodeled();
  return hip_checks::finish("hip_runtime_test");
}
