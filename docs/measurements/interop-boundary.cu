// What a boundary between an application's own CUDA work and a batch costs (issue 34), on the
// cuda backend: each of B boundaries is the application's kernel on its stream (x = 2x + 1) then
// a one-dispatch batch (x + 1) on the library's queue, with the order kept
//   host:   cudaStreamSynchronize after the application's kernel, then Queue::run (two host waits);
//   device: cudaEventRecord + Batch::wait_native before the batch, cudaStreamWaitEvent on
//           Submission::native_handle() after it: no host wait until the end;
//   device+replay: the same with Options::replay (the batch as a CUDA graph).
// Every run's result is checked exactly (the order changes it). Medians over reps, per boundary.
//   interop-boundary MODULE.cubin [boundaries=200] [reps=9]
// Built by scripts/device-bundle.sh (nvcc, against the build tree's library).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <vector>

#include "hsad/hsad.hpp"

namespace {
void cuda(cudaError_t e, const char* call) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", call, cudaGetErrorString(e));
    std::exit(2);
  }
}
#define CUDA(x) cuda((x), #x)

__global__ void double_plus_one(unsigned* x, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 2 * x[i] + 1;
}

constexpr unsigned kN = 1u << 16;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
double pct(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::size_t(p * double(v.size() - 1))];
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: interop-boundary MODULE.cubin [boundaries] [reps]\n");
    return 2;
  }
  const int boundaries = argc > 2 ? std::atoi(argv[2]) : 200;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 9;
  try {
    const hsad::Runtime rt = hsad::Runtime::open("cuda");
    const hsad::Device& dev = rt.device();
    const hsad::Kernel add_one = dev.load_module(argv[1]).kernel("module_add_one");
    unsigned* x = nullptr;
    CUDA(cudaMalloc(&x, kN * 4));
    cudaStream_t s;
    CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t ready;
    CUDA(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    const hsad::Buffer b = dev.adopt(x, kN * 4);
    hsad::Batch plain, waiting;
    plain.exec(add_one, hsad::Dim3{kN}, hsad::Dim3{256}, {b, kN});
    waiting.wait_native(reinterpret_cast<std::uint64_t>(ready)).exec(add_one, hsad::Dim3{kN}, hsad::Dim3{256}, {b, kN});
    hsad::Queue q = dev.create_queue();
    unsigned expected = 0;
    for (int i = 0; i < boundaries; ++i) expected = 2 * expected + 1 + 1;

    std::printf("# %s, %d boundaries per run, %d runs, completion %s\n", dev.info().name.c_str(), boundaries, reps,
                std::getenv("HSAD_CUDA_COMPLETION") ? std::getenv("HSAD_CUDA_COMPLETION") : "memwrite (default)");
    std::printf("mode,us_per_boundary_median,p10,p90,library_host_waits_per_boundary_in_the_loop,result\n");
    for (const std::string mode : {"host", "device", "device+replay"}) {
      hsad::Options o = hsad::Options::all();
      o.replay = mode == "device+replay";
      std::vector<double> us;
      bool exact = true;
      double waits = 0;
      for (int r = 0; r < reps + 1; ++r) {  // the first run warms up (graphs, pools) and is dropped
        CUDA(cudaMemset(x, 0, kN * 4));
        CUDA(cudaDeviceSynchronize());
        const hsad::Stats before = dev.stats();
        hsad::Stats in_loop;
        const auto t0 = std::chrono::steady_clock::now();
        if (mode == "host") {
          for (int i = 0; i < boundaries; ++i) {
            double_plus_one<<<kN / 256, 256, 0, s>>>(x, kN);
            CUDA(cudaStreamSynchronize(s));
            q.run(plain, o);
          }
          in_loop = dev.stats() - before;
        } else {
          std::deque<hsad::Submission> held;  // a handle is valid while its Submission lives
          for (int i = 0; i < boundaries; ++i) {
            double_plus_one<<<kN / 256, 256, 0, s>>>(x, kN);
            CUDA(cudaEventRecord(ready, s));
            held.push_back(q.submit(waiting, o));
            CUDA(cudaStreamWaitEvent(s, reinterpret_cast<cudaEvent_t>(held.back().native_handle()), 0));
            if (held.size() > 32) held.pop_front();  // long completed: released without a host wait
          }
          in_loop = dev.stats() - before;
          CUDA(cudaStreamSynchronize(s));
          for (auto& h : held) h.wait();
        }
        const double elapsed = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
        std::vector<unsigned> out(kN);
        CUDA(cudaMemcpy(out.data(), x, kN * 4, cudaMemcpyDeviceToHost));
        exact &= std::all_of(out.begin(), out.end(), [&](unsigned v) { return v == expected; });
        if (r == 0) continue;
        us.push_back(elapsed / boundaries);
        waits = double(in_loop.host_waits) / boundaries;
      }
      std::printf("%s,%.2f,%.2f,%.2f,%.3f,%s\n", mode.c_str(), median(us), pct(us, 0.1), pct(us, 0.9), waits,
                  exact ? "exact" : "WRONG");
    }
    CUDA(cudaFree(x));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "interop-boundary: %s\n", e.what());
    return 2;
  }
  return 0;
}
