// rocPRIM's exclusive scan of 65537 32-bit items into 64-bit sums, repeated, each result checked
// on the host: the reproducer of the sid stage's intermittent rocPRIM failure (hsad-sim copied
// a 128-bit look-back word in dword pieces). Where a run is wrong it prints the first wrong item
// and the look-back state's words (each block's 64-bit prefix and its flag, 128 bits a block).
// Built and run in the sid root (scripts/test-sid.sh makes it), with both cores kept busy:
//   hipcc -std=c++17 -O2 --offload-arch=gfx90a scan_repro.hip -o scan_repro
//   hsad-sim --target gfx90a -- ./scan_repro 300
#include <hip/hip_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <rocprim/rocprim.hpp>
#include <vector>

#define HIP(call) \
  if (hipError_t e = (call); e != hipSuccess) { std::printf("%s: %s\n", #call, hipGetErrorString(e)); return 1; }

int main(int argc, char** argv) {
  const std::size_t n = 65537;
  const int reps = argc > 1 ? std::atoi(argv[1]) : 100;
  std::mt19937 rng(3u + unsigned(n));
  std::vector<std::uint32_t> in(n);
  for (auto& x : in) x = rng() % 1000;
  std::vector<std::uint64_t> want(n);
  std::uint64_t acc = 7;
  for (std::size_t i = 0; i < n; ++i) want[i] = acc, acc += in[i];
  std::uint32_t* d_in = nullptr;
  std::uint64_t* d_out = nullptr;
  HIP(hipMalloc(&d_in, n * 4));
  HIP(hipMalloc(&d_out, n * 8));
  HIP(hipMemcpy(d_in, in.data(), n * 4, hipMemcpyHostToDevice));
  int wrong_runs = 0;
  for (int r = 0; r < reps; ++r) {
    std::size_t bytes = 0;
    HIP(rocprim::exclusive_scan(nullptr, bytes, d_in, d_out, std::uint64_t(7), n, rocprim::plus<std::uint64_t>()));
    void* storage = nullptr;
    HIP(hipMalloc(&storage, bytes));
    HIP(rocprim::exclusive_scan(storage, bytes, d_in, d_out, std::uint64_t(7), n, rocprim::plus<std::uint64_t>()));
    HIP(hipDeviceSynchronize());
    std::vector<std::uint64_t> state(bytes / 8);
    HIP(hipMemcpy(state.data(), storage, state.size() * 8, hipMemcpyDeviceToHost));
    HIP(hipFree(storage));
    std::vector<std::uint64_t> got(n);
    HIP(hipMemcpy(got.data(), d_out, n * 8, hipMemcpyDeviceToHost));
    std::size_t first = n, count = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (got[i] != want[i]) first = first == n ? i : first, ++count;
    }
    if (!count) continue;
    ++wrong_runs;
    std::printf("run %d: %zu items wrong from %zu (want %llu, got %llu)\n  look-back words:", r, count, first,
                static_cast<unsigned long long>(want[first]), static_cast<unsigned long long>(got[first]));
    for (std::size_t i = 0; i < state.size(); ++i) {
      if (state[i] && state[i] != 255) std::printf(" [%zu]=%llu", i, static_cast<unsigned long long>(state[i]));
    }
    std::printf("\n");
  }
  std::printf("%d of %d runs wrong\n", wrong_runs, reps);
  return wrong_runs != 0;
}
