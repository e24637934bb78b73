// Whether how the host waits changes what the next launch costs (issue 60, seventh session): a
// graph whose one kernel raises a counter in device memory and copies it to a pinned host word
// (as the library's count does) launched with cuGraphLaunch, the host time of the launch alone,
// after each of four waits for the launch before it: cuStreamSynchronize (the CUDA runtime's
// peer), a pure spin on the word (with the CPU's pause), the library's wait before this session
// (64 looks, then sched_yield between looks), and a sleep of 1 us between looks. Beside them, a
// graph of one empty kernel (the peer's) and one of the empty kernel followed by the counting one
// (the library's shape at one dispatch), both after cuStreamSynchronize. Rounds alternate the
// cases; each prints the median host ns over --reps launches.
// Built against the toolkit's stub libcuda (plain C++; the kernels are PTX text).
#include <cuda.h>

#include "cuda_probe.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

using probe::check;
using probe::Clock;

inline void relax() { __builtin_ia32_pause(); }

enum class Wait { sync, spin, yield64, sleep1us };

template <class Reached>
void wait_for(Wait how, CUstream s, Reached reached) {
  if (how == Wait::sync) return check(cuStreamSynchronize(s), "cuStreamSynchronize");
  for (int looks = 0; !reached(); ++looks) {
    if (how == Wait::spin) relax();
    else if (how == Wait::yield64) {
      if (looks > 64) std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(1));
    }
  }
}
}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 201;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  const probe::Device device = probe::primary_device();
  const char* name = device.name;
  const probe::EmptyAndBump kernels = probe::load_empty_and_bump();
  const CUfunction empty = kernels.empty, bump = kernels.bump;
  CUstream s;
  check(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  probe::CountWord count = probe::count_word();
  volatile std::uint32_t* word = count.word;

  auto graph_of = [&](bool with_empty, bool with_bump) {
    check(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
    if (with_empty) check(cuLaunchKernel(empty, 1, 1, 1, 1, 1, 1, 0, s, nullptr, nullptr), "cuLaunchKernel");
    if (with_bump) {
      void* params[] = {&count.counter, &count.host_dev};
      check(cuLaunchKernel(bump, 1, 1, 1, 1, 1, 1, 0, s, params, nullptr), "cuLaunchKernel");
    }
    CUgraph g;
    check(cuStreamEndCapture(s, &g), "cuStreamEndCapture");
    CUgraphExec e;
    check(cuGraphInstantiateWithFlags(&e, g, 0), "cuGraphInstantiate");
    return e;
  };
  const CUgraphExec plain = graph_of(true, false), counting = graph_of(false, true), both = graph_of(true, true);
  std::uint32_t expected = 0;

  auto median = [&](CUgraphExec e, bool counts, Wait how) {
    std::vector<double> ns;
    for (int r = -3; r < reps; ++r) {
      const auto t0 = Clock::now();
      check(cuGraphLaunch(e, s), "cuGraphLaunch");
      const auto t1 = Clock::now();
      if (counts) {
        const std::uint32_t target = ++expected;
        wait_for(how, s, [&] { return *word == target; });
      } else {
        wait_for(Wait::sync, s, [] { return true; });
      }
      if (r >= 0) ns.push_back(probe::ns_between(t0, t1));
    }
    check(cuStreamSynchronize(s), "cuStreamSynchronize");
    return probe::median(ns);
  };

  std::printf("device,%s\nround,plain_sync,counting_sync,empty+counting_sync,counting_spin,counting_yield64,counting_sleep1us\n", name);
  for (int round = 1; round <= rounds; ++round) {
    const double a = median(plain, false, Wait::sync);
    const double b = median(counting, true, Wait::sync);
    const double c = median(both, true, Wait::sync);
    const double d = median(counting, true, Wait::spin);
    const double e = median(counting, true, Wait::yield64);
    const double f = median(counting, true, Wait::sleep1us);
    std::printf("%d,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f\n", round, a, b, c, d, e, f);
  }
  return 0;
}
