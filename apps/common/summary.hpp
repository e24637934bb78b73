// Robust statistics for latency samples: median and the 10th/90th percentiles.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

namespace hsad::bench {

struct Summary {
  double median = 0, p10 = 0, p90 = 0;
  std::size_t samples = 0;
};

// Linear interpolation between closest ranks; q in [0, 1].
inline double quantile(std::vector<double> sorted, double q) {
  if (sorted.empty()) return 0;
  std::sort(sorted.begin(), sorted.end());
  const double pos = q * double(sorted.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - double(lo));
}

inline Summary summarize(const std::vector<double>& samples) {
  return {quantile(samples, 0.5), quantile(samples, 0.1), quantile(samples, 0.9), samples.size()};
}

// The median wall time of `reps` calls of f, in seconds.
template <class F>
double median_seconds(int reps, F&& f) {
  std::vector<double> s;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return summarize(s).median;
}

}  // namespace hsad::bench
