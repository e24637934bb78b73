// What hsad-sim's cache model did at fences (sim/README.md, "The cache model"), read from the
// simulator's door where the process runs under hsad-sim with the model on: a model's count of
// L2 lines, never a measurement of a GPU. Absent anywhere else.
#pragma once

#include <cstdint>
#include <optional>

namespace hsad::bench {

struct SimCacheLines {
  std::uint64_t written_back = 0;  // by system-scope releases
  std::uint64_t invalidated = 0;   // by system-scope acquires
  SimCacheLines operator-(const SimCacheLines& o) const { return {written_back - o.written_back, invalidated - o.invalidated}; }
};

// Every simulated GPU's, summed; nullopt where there is no cache model in this process.
std::optional<SimCacheLines> sim_cache_lines();

}  // namespace hsad::bench
