// Mode a: submit, wait, repeat (time the submit). Mode b: 64 submits back to back, then wait.
#include "hsad/hsad.hpp"
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cstdlib>
#include <cstring>
using namespace hsad;
int main(int argc, char** argv) {
  register_host_kernel(make_host_kernel("sb_empty", +[](const WorkGroup&) {}));
  Runtime rt = Runtime::open(argc > 3 ? argv[3] : "cpu");
  Device d = rt.device();
  Queue q = d.create_queue();
  Batch b; b.exec(d.kernel(argc > 4 ? argv[4] : "sb_empty"), Dim3{1}, Dim3{1}, {});
  Options o = Options::all();
  const int n = argc > 2 ? atoi(argv[2]) : 100000;
  std::vector<double> t;
  if (argv[1][0] == 'a') {
    for (int i = 0; i < n; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      Submission s = q.submit(b, o);
      auto t1 = std::chrono::steady_clock::now();
      s.wait();
      t.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
    }
  } else {
    std::vector<Submission> subs; subs.reserve(64);
    for (int i = 0; i < n / 64; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      for (int j = 0; j < 64; ++j) subs.push_back(q.submit(b, o));
      auto t1 = std::chrono::steady_clock::now();
      for (auto& s : subs) s.wait();
      subs.clear();
      t.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / 64);
    }
  }
  std::sort(t.begin(), t.end());
  std::size_t m = t.size();
  std::printf("%s submit median %.0f ns p10 %.0f p90 %.0f\n", argv[1], t[m/2], t[m/10], t[9*m/10]);
}
