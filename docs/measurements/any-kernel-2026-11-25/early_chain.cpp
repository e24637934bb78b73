// A chain of dependent application kernels (tests/modules/app_kernels.cu's app_chain_step, which
// waits for its predecessor itself), launched with and without LaunchConfig::early_launch,
// alternating: µs per kernel end to end, median of the repetitions, and the ratio in the run.
// Usage: early_chain MODULE [LINKS] [REPS] [ITEMS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "hsad/hsad.hpp"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const unsigned links = argc > 2 ? unsigned(std::atoi(argv[2])) : 1000;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 21;
  const unsigned n = argc > 4 ? unsigned(std::atoi(argv[4])) : 4096;
  hsad::Runtime rt = hsad::Runtime::open();
  const hsad::Device& d = rt.device();
  const hsad::Module m = d.load_module(argv[1]);
  const hsad::Kernel step = m.kernel("app_chain_step");
  hsad::Buffer x = d.alloc(n * sizeof(float));
  hsad::Queue q = d.create_queue();
  hsad::Batch batches[2];
  for (int early = 0; early < 2; ++early) {
    hsad::LaunchConfig c;
    c.early_launch = early == 1;
    for (unsigned k = 0; k < links; ++k) batches[early].exec(step, hsad::Dim3{n}, hsad::Dim3{256}, {x, n}, c);
  }
  hsad::Options o = hsad::Options::all();
  o.replay = false;
  std::vector<double> us[2];
  for (int r = 0; r < reps + 1; ++r) {
    for (int early = 0; early < 2; ++early) {
      const auto t0 = std::chrono::steady_clock::now();
      q.run(batches[early], o);
      const auto t1 = std::chrono::steady_clock::now();
      if (r > 0) us[early].push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / links);  // first: warm-up
    }
  }
  const hsad::Stats s = d.stats();
  std::printf("device,links,items,reps,us_per_kernel_plain,us_per_kernel_early,early_over_plain,early_launches_total\n");
  double med[2];
  for (int e = 0; e < 2; ++e) {
    std::sort(us[e].begin(), us[e].end());
    med[e] = us[e][us[e].size() / 2];
  }
  std::printf("%s,%u,%u,%d,%.3f,%.3f,%.3f,%llu\n", d.info().name.c_str(), links, n, reps, med[0], med[1], med[1] / med[0],
              static_cast<unsigned long long>(s.early_launches));
}
