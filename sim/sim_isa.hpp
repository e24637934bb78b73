// The simulated GPU executing machine code: a dispatch's kernel object resolved to the code
// ROCr's loader placed in memory, decoded once (isa/), and run one work-group at a time on the
// worker pool like any host kernel. Only the interpreter is ISA-aware; this file adapts it to
// the simulated KFD's memory and the packet processor.
#pragma once

#include <cstdint>
#include <string>

#include "hsad/host_kernel.hpp"

namespace hsad::sim {

struct IsaKernel {
  const HostKernel* host_kernel = nullptr;  // runs the machine code; never null
  bool fully_decoded = false;               // every instruction of the kernel is one the interpreter implements
  std::string unknown;                      // otherwise: the instructions it lacks
};

// The machine code of the kernel whose descriptor is at `object` (named `name`) in a code object
// ROCr loaded. Throws std::runtime_error where the code cannot be decoded at all.
IsaKernel isa_kernel(std::uint64_t object, const std::string& name);

// Forgets the code decoded in [base, base + size): the loader is freeing it.
void forget_isa_code(std::uint64_t base, std::uint64_t size);

// Wave instructions the interpreter has executed in this process, and the thread time it took.
std::uint64_t isa_instructions_executed();
std::uint64_t isa_busy_ns();
// The instruction set the interpreter in this library was compiled for ("x86-64", "x86-64-v3").
const char* isa_build();
// LDS accesses outside their work-group's allocation (they read 0 and wrote nowhere), and the first.
std::uint64_t isa_lds_accesses_outside();
std::string isa_first_lds_access_outside();

}  // namespace hsad::sim
