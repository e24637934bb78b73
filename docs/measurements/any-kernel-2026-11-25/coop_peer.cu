// One cooperative dispatch of tests/modules/app_kernels.cu's app_grid_rounds (one round, two
// work-groups per SM), end to end (submit and wait): through the library (a cooperative queue,
// not replayed and replayed) against the CUDA runtime's cudaLaunchCooperativeKernel +
// cudaStreamSynchronize of the same kernel compiled into this program, alternating in one
// process. Usage: coop_peer APP_FATBIN [REPS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#include "../../../tests/modules/app_kernels.cu"
#include "hsad/hsad.hpp"

namespace {
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 201;
  hsad::Runtime rt = hsad::Runtime::open("cuda");
  const hsad::Device& d = rt.device();
  const hsad::Module m = d.load_module(argv[1]);
  const unsigned block = 256, groups = 2 * d.info().compute_units, n = groups * block, rounds = 1;
  hsad::Buffer a = d.alloc(n * 4), b = d.alloc(n * 4);
  hsad::LaunchConfig coop;
  coop.cooperative = true;
  hsad::Batch batch;
  batch.exec(m.kernel("app_grid_rounds"), hsad::Dim3{n}, hsad::Dim3{block}, {a, b, n, rounds}, coop);
  hsad::Queue q = d.create_cooperative_queue();
  hsad::Options plain = hsad::Options::all(), replay = hsad::Options::all();
  plain.replay = false;

  unsigned *ra = nullptr, *rb = nullptr;
  cudaMalloc(&ra, n * 4);
  cudaMalloc(&rb, n * 4);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  unsigned rn = n, rr = rounds;
  void* args[] = {&ra, &rb, &rn, &rr};

  std::vector<double> lib, lib_replay, runtime;
  using clock = std::chrono::steady_clock;
  for (int r = 0; r < reps + 5; ++r) {
    auto t0 = clock::now();
    q.run(batch, plain);
    auto t1 = clock::now();
    q.run(batch, replay);
    auto t2 = clock::now();
    const cudaError_t e = cudaLaunchCooperativeKernel(reinterpret_cast<void*>(&app_grid_rounds), dim3(groups), dim3(block), args, 0, s);
    const cudaError_t w = cudaStreamSynchronize(s);
    auto t3 = clock::now();
    if (e != cudaSuccess || w != cudaSuccess) {
      std::fprintf(stderr, "cuda runtime: %s / %s\n", cudaGetErrorString(e), cudaGetErrorString(w));
      return 1;
    }
    if (r < 5) continue;  // warm-up
    lib.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    lib_replay.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
    runtime.push_back(std::chrono::duration<double, std::micro>(t3 - t2).count());
  }
  std::printf("device,groups,reps,hsadispatch_us,hsadispatch_replay_us,cudaLaunchCooperativeKernel_us,lib_over_runtime,replay_over_runtime\n");
  const double l = median(lib), lr = median(lib_replay), c = median(runtime);
  std::printf("%s,%u,%d,%.2f,%.2f,%.2f,%.3f,%.3f\n", d.info().name.c_str(), groups, reps, l, lr, c, l / c, lr / c);
}
