// The simulated machine, read once from the environment that hsad-sim sets: how many GPUs,
// which target, where to trace packets, which dispatch faults.
#pragma once

#include <cstdint>
#include <string>

namespace hsad::sim {

struct Target {
  const char* name;          // "gfx90a"
  std::uint32_t major, minor, stepping;
  std::uint16_t device_id;
  std::uint32_t wavefront;
  std::uint32_t compute_units;
};

struct Config {
  std::uint32_t gpus = 1;
  Target target{};
  std::string trace_path;      // HSAD_SIM_TRACE
  std::uint64_t fault_at = 0;  // HSAD_SIM_FAULT: the Nth user dispatch (1-based) faults; 0: none
};

const Config& config();  // exits with a message for an unknown target

}  // namespace hsad::sim
