// Does how the host waited change what its next launch costs (issue 60, eleventh session)? The
// seventh session's cuda-wait-probe compared block medians, which the machine's drift swamps; in
// dispatch-bench the library's submit follows the peer's cudaStreamSynchronize and the peer's
// launch the library's wait, and making the library wait with cudaStreamSynchronize first made the
// peer 3-4% cheaper. Here one graph (N empty kernels and one raising a count word in pinned host
// memory, the library's shape) is launched over and over; after each launch the host waits one of
// these ways in turn, and each launch's host time is charged to the wait before it:
//  sync      cuStreamSynchronize (what cudaStreamSynchronize does);
//  spin      a spin on the count word with the CPU's pause;
//  yield64   the library's wait: a look at the clock and the word each time, sched_yield after 64;
//  spin+q    spin, then one cuStreamQuery once the word arrived (the query's own host time is
//            printed too: query_ns, the median).
// Per N, each way's figure is the median over cycles of its launch's host time over the launch after
// sync in the same cycle (1.04: 4% dearer); the order of the ways rotates from cycle to cycle.
#include <cuda.h>

#include "cuda_probe.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {
using probe::check;
using probe::Clock;
enum Way { kSync, kSpin, kYield64, kSpinQuery, kWays };
const char* kNames[kWays] = {"sync", "spin", "yield64", "spin+q"};
}  // namespace

int main(int argc, char** argv) {
  const int cycles = argc > 1 ? std::atoi(argv[1]) : 301;
  const probe::Device device = probe::primary_device();
  const probe::EmptyAndBump kernels = probe::load_empty_and_bump();
  const CUfunction empty = kernels.empty, bump = kernels.bump;
  CUstream s;
  check(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  probe::CountWord count = probe::count_word();
  volatile std::uint32_t* word = count.word;
  std::uint32_t expected = 0;
  std::vector<double> query_ns;

  auto wait = [&](Way how) {
    const std::uint32_t target = ++expected;
    if (how == kSync) return check(cuStreamSynchronize(s), "cuStreamSynchronize");
    for (int looks = 0;; ++looks) {
      if (how == kYield64) {
        if (*word == target) break;
        (void)Clock::now();
        if (looks > 64) std::this_thread::yield();
      } else {
        if (*word == target) break;
        __builtin_ia32_pause();
      }
    }
    if (how == kSpinQuery) {
      const auto t0 = Clock::now();
      const CUresult r = cuStreamQuery(s);  // not ready yet where the word came before the stream's end
      query_ns.push_back(probe::ns_between(t0, Clock::now()));
      if (r != CUDA_ERROR_NOT_READY) check(r, "cuStreamQuery");
    }
  };

  std::printf("# %s\ndispatches,after_sync_ns", device.name);
  for (int w = 1; w < kWays; ++w) std::printf(",%s", kNames[w]);
  std::printf(",query_ns\n");
  for (int n : {1, 16, 1024}) {
    check(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
    for (int i = 0; i < n; ++i) check(cuLaunchKernel(empty, 1, 1, 1, 1, 1, 1, 0, s, nullptr, nullptr), "cuLaunchKernel");
    void* params[] = {&count.counter, &count.host_dev};
    check(cuLaunchKernel(bump, 1, 1, 1, 1, 1, 1, 0, s, params, nullptr), "cuLaunchKernel");
    CUgraph g;
    check(cuStreamEndCapture(s, &g), "cuStreamEndCapture");
    CUgraphExec e;
    check(cuGraphInstantiateWithFlags(&e, g, 0), "cuGraphInstantiate");
    auto launch = [&] {
      const auto t0 = Clock::now();
      check(cuGraphLaunch(e, s), "cuGraphLaunch");
      return probe::ns_between(t0, Clock::now());
    };
    launch();
    std::vector<double> after_sync;
    std::vector<std::vector<double>> ratios(kWays);
    query_ns.clear();
    for (int c = -3; c < cycles; ++c) {
      double ns[kWays] = {};
      for (int i = 0; i < kWays; ++i) {
        const Way how = Way((c + 3 + i) % kWays);  // the order rotates from cycle to cycle
        wait(how);  // for the launch before
        ns[how] = launch();
      }
      if (c < 0) {
        query_ns.clear();  // the warm-up's queries, the first call's cost among them
        continue;
      }
      after_sync.push_back(ns[kSync]);
      for (int w = 1; w < kWays; ++w) ratios[w].push_back(ns[w] / ns[kSync]);
    }
    wait(kSync);
    std::printf("%d,%.0f", n, probe::median(after_sync));
    for (int w = 1; w < kWays; ++w) std::printf(",%.3f", probe::median(ratios[w]));
    std::printf(",%.0f\n", probe::median(query_ns));
    std::fflush(stdout);
  }
  return 0;
}
