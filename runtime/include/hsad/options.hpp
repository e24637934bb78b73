// The dispatch optimizations as flags: parsed from "all", "none" or a comma list,
// and the ladder that bitonic-bench prints (baseline, then one flag added per row).
#pragma once

#include "hsad/export.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace hsad {

struct HSAD_API Options {
  bool signal = false;   // completion signals from a pool made at setup
  bool kernarg = false;  // kernarg blocks from a pool made at setup, one per in-flight dispatch
  bool nosync = false;   // barrier bit on every packet, one completion signal, one host wait
  bool fence = false;    // system scope only where the host is involved, agent scope between
  bool pinned = false;   // pinned host memory for transfers
  bool replay = false;   // replay a recorded batch (CUDA graph, or AQL packet image); not part of "all"
  // Not an optimization: record when each dispatch and copy ran (Submission::timestamps). It
  // gives every dispatch its own completion signal (AQL) or event pair (CUDA), so it costs time;
  // not a ladder flag, not part of "all" or parse().
  bool profile = false;

  static Options none() { return {}; }
  static Options all();
  // "all", "none" or a comma-separated list of flag names; throws hsad::Error naming the valid ones.
  static Options parse(std::string_view text);

  std::string to_string() const;  // "none", or the flags set, comma-separated, in ladder order
  bool operator==(const Options& o) const;
  bool operator!=(const Options& o) const { return !(*this == o); }
};

// The flag names in ladder order ("signal", "kernarg", "nosync", "fence", "pinned", "replay").
HSAD_API const std::vector<std::string>& option_names();

struct HSAD_API LadderRow {
  std::string config;  // "baseline", "+signal", ...
  Options options;     // cumulative: every flag of the rows above, and this row's
};

// Baseline, then each flag of `wanted` added one at a time in ladder order.
HSAD_API std::vector<LadderRow> ladder(const Options& wanted);

}  // namespace hsad
