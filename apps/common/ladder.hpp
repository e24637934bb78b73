// The benchmark ladder: the baseline, then each optimization flag added one at a time in the
// order the seed's ladder has them. Only the benches and their tests use it: it is not the
// library's API (a new flag must not change the shared library's interface).
#pragma once

#include <string>
#include <vector>

#include "hsad/options.hpp"

namespace hsad::bench {

struct LadderRow {
  std::string config;  // "baseline", "+signal", ...
  Options options;     // cumulative: every flag of the rows above, and this row's
};

// Baseline, then each flag of `wanted` added one at a time in ladder order (option_names()).
std::vector<LadderRow> ladder(const Options& wanted);

}  // namespace hsad::bench
