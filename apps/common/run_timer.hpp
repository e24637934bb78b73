// The wall time and the calling thread's CPU time of a solve: what an application's own thread
// spends submitting and waiting. The thread's, not the process's: under hsad-sim the process's
// would count the simulated GPU's threads.
#pragma once

#include <time.h>

#include <chrono>

namespace hsad::bench {

inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

struct RunTimer {
  std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
  double cpu = thread_cpu_seconds();
  void stop(double& seconds, double& cpu_seconds) const {
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
    cpu_seconds = thread_cpu_seconds() - cpu;
  }
};

}  // namespace hsad::bench
