// The simulated machine, read once from the environment that hsad-sim sets: how many GPUs,
// which target, how kernels execute, where to trace packets, which dispatch faults.
#pragma once

#include <cstdint>
#include <string>

#include "sim_target.hpp"

namespace hsad::sim {


// How a dispatch runs: its machine code through the ISA interpreter (isa/), or its host build
// (the cpu agent's kernel of the same name).
enum class Exec { isa, host };

struct Config {
  std::uint32_t gpus = 1;
  Exec exec = Exec::isa;       // HSAD_SIM_EXEC: isa (the default) or host
  Target target{};
  std::string trace_path;      // HSAD_SIM_TRACE
  bool stats = false;          // HSAD_SIM_STATS: at exit, instructions the ISA interpreter executed
  bool strict_lds = false;     // HSAD_SIM_STRICT_LDS: an LDS access outside the allocation faults
  // HSAD_SIM_CACHE (on unless "off" or "0"): each GPU's L2 caches its device memory write-back
  // (isa/l2_cache.hpp), so a fence too narrow gives wrong results. Off under --exec host, whose
  // kernels reach memory directly.
  bool cache_model = true;
  bool cache_report = false;  // HSAD_SIM_CACHE=report: the model, and its diagnosis (sim_cache_report.hpp)
  // HSAD_SIM_SDMA (on unless "off", which hsad-sim --sdma off sets with ROCr's HSA_ENABLE_SDMA=0):
  // ROCr's copies go to the simulated copy engines (sim_sdma.hpp), as on AMD hardware; off: to
  // ROCr's blit kernels.
  bool sdma = true;
  // HSAD_SIM_BLITS: how ROCr's blit kernels (executed as memmove) meet the L2. "shader" (the
  // default with SDMA on, where ROCr uses them for copies within a GPU): as the shader blits they
  // are, through the L2. "engine" (the default with SDMA off, where they stand for the engine):
  // on memory, outside the L2.
  bool blits_as_copy_engine = false;
  std::uint64_t fault_at = 0;  // HSAD_SIM_FAULT: the Nth user dispatch (1-based) faults; 0: none
};

// Read on first use (the program opens the driver or its topology), so that a program may still
// set HSAD_SIM_* before it initialises ROCr, as a test that picks its trace file does.
const Config& config();  // exits with a message for an unknown target
// Reads the environment as config() would and exits with the same message on a mistake, without
// fixing the description: the door checks it as the process starts.
void check_config();

}  // namespace hsad::sim
