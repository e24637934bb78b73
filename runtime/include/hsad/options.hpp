// The dispatch optimizations as flags, parsed from "all", "none" or a comma list. (The ladder the
// benches print from them is theirs: apps/common/ladder.hpp.)
// Options{} is what an application wants: every optimization that pays on the first submit.
#pragma once

#include "hsad/export.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace hsad {

struct HSAD_API Options {
  bool signal = true;    // completion signals from a pool made at setup
  bool kernarg = true;   // kernarg blocks from a pool made at setup, one per in-flight dispatch
  bool nosync = true;    // barrier bit on every packet, one completion signal, one host wait
  bool fence = true;     // system scope only where the host is involved, agent scope between
  bool pinned = true;    // pinned host memory for transfers
  // Replay a recorded batch (CUDA graph, or AQL packet image), cached per queue by the batch's
  // identity and version. Pays from the second submit of an unchanged batch (building a CUDA graph
  // costs more than launching it once), so it is the application's choice per batch, not the
  // default. It implies nosync: a replayed batch has no host wait inside it.
  bool replay = false;
  // Not an optimization: record when each dispatch and copy ran (Submission::timestamps). It
  // gives every dispatch its own completion signal (AQL) or event pair (CUDA), so it costs time;
  // not a ladder flag, not part of "all" or parse().
  bool profile = false;

  // The ladder's baseline: every flag off (creates signals and kernarg memory per submit, waits
  // on the host after every command). For benchmarks and tests; no application wants it.
  static Options none();
  static Options baseline() { return none(); }
  // Every optimization the ladder has, replay included: Options{} plus replay.
  static Options all();
  // "all", "none" or a comma-separated list of flag names; throws hsad::Error naming the valid ones.
  static Options parse(std::string_view text);

  std::string to_string() const;  // "none", or the flags set, comma-separated, in ladder order
  bool operator==(const Options& o) const;
  bool operator!=(const Options& o) const { return !(*this == o); }
};

// The flag names in ladder order ("signal", "kernarg", "nosync", "fence", "pinned", "replay").
HSAD_API const std::vector<std::string>& option_names();


}  // namespace hsad
