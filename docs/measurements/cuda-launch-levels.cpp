// Why a launch's host time differs between processes (issue 60, seventh session): within one run
// cuGraphLaunch's median is steady, between runs it ranges 1.2-3 us. Is it the stream (each maps
// to one of the GPU's channels), or the CPU the thread runs on? A graph of one empty kernel:
//  A. on each of 8 streams of the context, three passes (median host ns over --reps launches);
//  B. on the first stream from the thread pinned to each CPU in turn;
//  C. two streams alternating launch by launch (median of each).
// Built against the toolkit's stub libcuda (plain C++; the kernel is PTX text).
#include <cuda.h>
#include <sched.h>

#include "cuda_probe.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {
const char* kPtx = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry empty() { ret; }\n";

using probe::check;
using probe::Clock;
using probe::median;

double launch_ns(CUgraphExec e, CUstream s) {
  const auto t0 = Clock::now();
  check(cuGraphLaunch(e, s), "cuGraphLaunch");
  const auto t1 = Clock::now();
  check(cuStreamSynchronize(s), "cuStreamSynchronize");
  return probe::ns_between(t0, t1);
}
}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 201;
  probe::primary_device();
  CUmodule mod;
  check(cuModuleLoadData(&mod, kPtx), "cuModuleLoadData");
  CUfunction empty;
  check(cuModuleGetFunction(&empty, mod, "empty"), "cuModuleGetFunction");
  std::vector<CUstream> streams(8);
  for (CUstream& s : streams) check(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  check(cuStreamBeginCapture(streams[0], CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
  check(cuLaunchKernel(empty, 1, 1, 1, 1, 1, 1, 0, streams[0], nullptr, nullptr), "cuLaunchKernel");
  CUgraph g;
  check(cuStreamEndCapture(streams[0], &g), "cuStreamEndCapture");
  CUgraphExec e;
  check(cuGraphInstantiateWithFlags(&e, g, 0), "cuGraphInstantiate");
  for (CUstream s : streams) launch_ns(e, s);  // each stream's first launch

  std::printf("A,pass");
  for (std::size_t i = 0; i < streams.size(); ++i) std::printf(",stream%zu", i);
  std::printf("\n");
  for (int pass = 1; pass <= 3; ++pass) {
    std::printf("A,%d", pass);
    for (CUstream s : streams) {
      std::vector<double> ns;
      for (int r = 0; r < reps; ++r) ns.push_back(launch_ns(e, s));
      std::printf(",%.0f", median(ns));
    }
    std::printf("\n");
  }

  cpu_set_t all;
  sched_getaffinity(0, sizeof all, &all);
  std::printf("B,cpu,median_ns\n");
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &all)) continue;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) continue;
    std::vector<double> ns;
    for (int r = 0; r < reps; ++r) ns.push_back(launch_ns(e, streams[0]));
    std::printf("B,%d,%.0f\n", cpu, median(ns));
  }
  sched_setaffinity(0, sizeof all, &all);

  std::printf("C,pass,stream0,stream1\n");
  for (int pass = 1; pass <= 3; ++pass) {
    std::vector<double> a, b;
    for (int r = 0; r < reps; ++r) {
      a.push_back(launch_ns(e, streams[0]));
      b.push_back(launch_ns(e, streams[1]));
    }
    std::printf("C,%d,%.0f,%.0f\n", pass, median(a), median(b));
  }
  return 0;
}
