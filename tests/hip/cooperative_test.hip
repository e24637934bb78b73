// Cooperative launches of a HIP program on the simulated GPU: CLR sees the device's global wave
// sync (GWS), launches on ROCr's cooperative queue after its GWS init, and cooperative groups'
// grid.sync() holds every work-group until all arrived. Every result checked exactly.
//   cooperative_test              the checks (with two GPUs, a multi-device launch too);
//                                 "cooperative_test: N passed, M failed"
//   cooperative_test --outside    a grid-syncing kernel launched as an ordinary one: the
//                                 simulator stops it with an error that says so (CLR then aborts)
//   cooperative_test --hang       a cooperative kernel whose work-group 0 skips grid.sync(): the
//                                 simulator stops it with an error instead of hanging
#include <hip/hip_runtime.h>
// After hip_runtime.h: the header uses its names.
#include <hip/hip_cooperative_groups.h>

#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "grid_rounds.hpp"
#include "hip_checks.hpp"

namespace {
namespace cg = cooperative_groups;
using hip_checks::check;

constexpr unsigned kBlock = 256;

// Rounds that each read what another block wrote the round before (the next block's values):
// right only where grid.sync() holds every block back until all arrived.
__global__ void __launch_bounds__(kBlock) rounds(unsigned* a, unsigned* b, unsigned n, unsigned count) {
  cg::grid_group grid = cg::this_grid();
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned r = 0; r < count; ++r) {
    if (i < n) b[i] = a[i] + a[(i + blockDim.x) % n];
    grid.sync();
    if (i < n) a[i] = b[i];
    grid.sync();
  }
}

// What the grid group says of itself, per thread.
__global__ void grid_facts(unsigned* rank, unsigned* size, unsigned* valid) {
  cg::grid_group grid = cg::this_grid();
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  rank[i] = unsigned(grid.thread_rank());
  size[i] = unsigned(grid.size());
  valid[i] = grid.is_valid() ? 1u : 0u;
}

__global__ void fill(unsigned* a, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = i + 1;
}

// Work-group 0 leaves without grid.sync(): the others would wait for it forever.
__global__ void skips_the_barrier(unsigned* out) {
  cg::grid_group grid = cg::this_grid();
  if (blockIdx.x != 0) grid.sync();
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

// One grid per GPU: each writes its values, passes the multi-grid barrier, reads the other GPU's
// (peer access), passes it again, then adds what it read.
__global__ void exchange(unsigned* mine, const unsigned* other, unsigned n) {
  cg::multi_grid_group all = cg::this_multi_grid();
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) mine[i] = i + 1 + 1000 * all.grid_rank();
  all.sync();
  const unsigned theirs = i < n ? other[i] : 0;
  all.sync();
  if (i < n) mine[i] += theirs;
}

// The grid of `blocks` blocks, filled by an ordinary kernel on `stream`, `count` cooperative
// rounds, the result read back on the same stream: the cooperative queue is ordered with it.
bool launch_rounds(unsigned blocks, unsigned count, hipStream_t stream) {
  const unsigned n = blocks * kBlock;
  unsigned *a = nullptr, *b = nullptr;
  if (!HIP(hipMalloc(&a, n * 4)) || !HIP(hipMalloc(&b, n * 4))) return false;
  hipLaunchKernelGGL(fill, dim3(blocks), dim3(kBlock), 0, stream, a, n);
  void* args[] = {&a, &b, const_cast<unsigned*>(&n), &count};
  const bool launched = HIP(hipLaunchCooperativeKernel(reinterpret_cast<void*>(rounds), dim3(blocks), dim3(kBlock), args,
                                                       0, stream));
  std::vector<unsigned> out(n), start(n);
  std::iota(start.begin(), start.end(), 1u);
  HIP(hipMemcpyAsync(out.data(), a, n * 4, hipMemcpyDeviceToHost, stream));
  HIP(hipStreamSynchronize(stream));
  HIP(hipFree(a));
  HIP(hipFree(b));
  return launched && out == hsad::test::grid_rounds(start, kBlock, count);
}

void cooperative() {
  int attribute = -1, cus = 0, per_cu = 0;
  HIP(hipDeviceGetAttribute(&attribute, hipDeviceAttributeCooperativeLaunch, 0));
  check(attribute == 1, "the device supports cooperative launches (GWS): the attribute says " + std::to_string(attribute));
  HIP(hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, 0));
  HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, reinterpret_cast<const void*>(rounds), kBlock, 0));
  const unsigned most = unsigned(cus * per_cu);
  check(most > 0, "the occupancy calculator gives " + std::to_string(per_cu) + " blocks per CU on " + std::to_string(cus) + " CUs");

  hipStream_t stream;
  HIP(hipStreamCreate(&stream));
  check(launch_rounds(8, 3, stream), "8 blocks, 3 rounds of two grid.sync() each: every value exact");
  check(launch_rounds(most, 2, stream), "the most blocks resident at once (" + std::to_string(most) +
                                            "), 2 rounds: every value exact");
  check(launch_rounds(5, 4, nullptr), "5 blocks, 4 rounds on the null stream: every value exact");

  // Too many blocks to be resident together: CLR refuses before anything reaches the GPU.
  unsigned *a = nullptr, *b = nullptr;
  HIP(hipMalloc(&a, 4));
  HIP(hipMalloc(&b, 4));
  unsigned n = 1, count = 1;
  void* args[] = {&a, &b, &n, &count};
  const hipError_t large = hipLaunchCooperativeKernel(reinterpret_cast<void*>(rounds), dim3(most + 1), dim3(kBlock), args,
                                                      0, stream);
  check(large == hipErrorCooperativeLaunchTooLarge,
        std::string("one block more than can be resident is refused: ") + hipGetErrorString(large));
  (void)hipGetLastError();

  const unsigned blocks = 6, threads = blocks * 128;
  unsigned *rank = nullptr, *size = nullptr, *valid = nullptr;
  HIP(hipMalloc(&rank, threads * 4));
  HIP(hipMalloc(&size, threads * 4));
  HIP(hipMalloc(&valid, threads * 4));
  void* facts[] = {&rank, &size, &valid};
  HIP(hipLaunchCooperativeKernel(reinterpret_cast<void*>(grid_facts), dim3(blocks), dim3(128), facts, 0, stream));
  std::vector<unsigned> r(threads), s(threads), v(threads), iota(threads);
  std::iota(iota.begin(), iota.end(), 0u);
  HIP(hipMemcpyAsync(r.data(), rank, threads * 4, hipMemcpyDeviceToHost, stream));
  HIP(hipMemcpyAsync(s.data(), size, threads * 4, hipMemcpyDeviceToHost, stream));
  HIP(hipMemcpyAsync(v.data(), valid, threads * 4, hipMemcpyDeviceToHost, stream));
  HIP(hipStreamSynchronize(stream));
  check(r == iota && s == std::vector<unsigned>(threads, threads) && v == std::vector<unsigned>(threads, 1u),
        "grid.thread_rank(), grid.size() and grid.is_valid() in a cooperative launch");
  for (void* p : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(rank), static_cast<void*>(size),
                  static_cast<void*>(valid)}) {
    HIP(hipFree(p));
  }
  HIP(hipStreamDestroy(stream));
}

// hipLaunchCooperativeKernelMultiDevice over two GPUs (run with --gpus 2).
void multi_device() {
  int gpus = 0, attribute = -1;
  HIP(hipGetDeviceCount(&gpus));
  if (gpus < 2) return;
  HIP(hipDeviceGetAttribute(&attribute, hipDeviceAttributeCooperativeMultiDeviceLaunch, 0));
  check(attribute == 1, "the devices support multi-device cooperative launches: the attribute says " + std::to_string(attribute));
  const unsigned n = 4 * kBlock;
  unsigned* data[2] = {};
  hipStream_t streams[2];
  for (int g = 0; g < 2; ++g) {
    HIP(hipSetDevice(g));
    HIP(hipDeviceEnablePeerAccess(1 - g, 0));
    // Fine-grained: the other GPU reads these values while this kernel runs. hipMalloc's memory is
    // coarse-grained, up to date for other agents only at synchronization (HIP's "Coherence
    // control"); on gfx908 and gfx1030 no instruction writes the L2 back inside a kernel, so with
    // hipMalloc this exchange read stale memory under hsad-sim's cache model, as it may on the GPU.
    HIP(hipExtMallocWithFlags(reinterpret_cast<void**>(&data[g]), n * 4, hipDeviceMallocFinegrained));
    HIP(hipStreamCreate(&streams[g]));
  }
  unsigned count = n;
  void* args[2][3] = {{&data[0], &data[1], &count}, {&data[1], &data[0], &count}};
  hipLaunchParams launches[2];
  for (int g = 0; g < 2; ++g) {
    launches[g].func = reinterpret_cast<void*>(exchange);
    launches[g].gridDim = dim3(4);
    launches[g].blockDim = dim3(kBlock);
    launches[g].sharedMem = 0;
    launches[g].stream = streams[g];
    launches[g].args = args[g];
  }
  HIP(hipLaunchCooperativeKernelMultiDevice(launches, 2, 0));
  bool exact = true;
  for (int g = 0; g < 2; ++g) {
    HIP(hipSetDevice(g));
    HIP(hipStreamSynchronize(streams[g]));
    std::vector<unsigned> out(n);
    HIP(hipMemcpy(out.data(), data[g], n * 4, hipMemcpyDeviceToHost));
    for (unsigned i = 0; i < n; ++i) exact = exact && out[i] == 2 * (i + 1) + 1000;
    HIP(hipStreamDestroy(streams[g]));
    HIP(hipFree(data[g]));
  }
  HIP(hipSetDevice(0));
  check(exact, "two GPUs' grids exchange values across two multi-grid barriers: every value exact");
}

// The two ways a grid barrier cannot complete: each stops the queue with the simulator's error
// (on stderr), and CLR reports the queue error and aborts; nothing hangs.
int stopped(const char* mode) {
  unsigned* out = nullptr;
  HIP(hipMalloc(&out, 8 * kBlock * 4));
  if (std::strcmp(mode, "--outside") == 0) {
    unsigned n = 8 * kBlock, count = 1;
    unsigned* b = nullptr;
    HIP(hipMalloc(&b, n * 4));
    hipLaunchKernelGGL(rounds, dim3(8), dim3(kBlock), 0, nullptr, out, b, n, count);
  } else {
    void* args[] = {&out};
    HIP(hipLaunchCooperativeKernel(reinterpret_cast<void*>(skips_the_barrier), dim3(8), dim3(kBlock), args, 0, nullptr));
  }
  const hipError_t e = hipDeviceSynchronize();
  std::printf("cooperative_test %s: hipDeviceSynchronize returned: %s\n", mode, hipGetErrorString(e));
  return e == hipSuccess ? 1 : 0;
}
}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc == 2 && (std::strcmp(argv[1], "--outside") == 0 || std::strcmp(argv[1], "--hang") == 0)) return stopped(argv[1]);
  if (argc != 1) {
    std::fprintf(stderr, "usage: cooperative_test [--outside | --hang]\n");
    return 2;
  }
  cooperative();
  multi_device();
  return hip_checks::finish("cooperative_test");
}
