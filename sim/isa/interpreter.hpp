// The interpreter's interface: run the waves of one work-group of a dispatch, on memory the
// caller describes. Pure: the AQL packet layout is the HSA specification's, written out here;
// nothing of ROCr is included.
#pragma once

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "program.hpp"

namespace hsad::isa {

// An AQL kernel dispatch packet (HSA 1.2, 64 bytes): what the dispatch pointer points to.
struct DispatchPacket {
  std::uint16_t header, setup;
  std::uint16_t workgroup_size_x, workgroup_size_y, workgroup_size_z;
  std::uint16_t reserved0;
  std::uint32_t grid_size_x, grid_size_y, grid_size_z;
  std::uint32_t private_segment_size, group_segment_size;
  std::uint64_t kernel_object;
  std::uint64_t kernarg_address;
  std::uint64_t reserved2;
  std::uint64_t completion_signal;
};
static_assert(sizeof(DispatchPacket) == 64);

class CachedRange;

// Where the kernel may read and write: the allocations its runtime made.
class Memory {
 public:
  virtual ~Memory() = default;
  // The allocation holding `address`: its base and size, and where its bytes are in this process
  // (`host_base`: the base itself, except memory the driver maps at another GPU address), or
  // false where none does.
  virtual bool allocation(std::uint64_t address, std::uint64_t* base, std::uint64_t* size, std::uint64_t* host_base) = 0;
  // The L2 lines of the allocation at `base` where the dispatching GPU's L2 caches it (its own
  // device memory, under the cache model: l2_cache.hpp); null where accesses reach memory.
  virtual CachedRange* cached(std::uint64_t base) {
    (void)base;
    return nullptr;
  }
  // gfx90a's cache controls: buffer_wbl2 (a release at system scope) and buffer_invl2 (an
  // acquire at system scope) on the dispatching GPU's L2.
  virtual void write_back_l2() {}
  virtual void invalidate_l2() {}
};

// The kernel did something a GPU would stop it for, or the interpreter cannot do: the message
// names the kernel, the program counter, the instruction and what went wrong.
struct Fault : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An access outside every allocation: on a GPU without XNACK, the driver's memory event (the
// queue stops), not a wave trap.
struct MemoryFault : Fault {
  MemoryFault(const std::string& what, std::uint64_t at, bool is_write) : Fault(what), address(at), write(is_write) {}
  std::uint64_t address;
  bool write;
};

// The apertures flat addresses reach LDS and private memory through (the simulated GPU's).
inline constexpr std::uint64_t kSharedAperture = 0x1000000000000ull;
inline constexpr std::uint64_t kPrivateAperture = 0x2000000000000ull;
inline constexpr std::uint64_t kApertureBytes = 1ull << 32;

// A device's global wave sync resources (GWS), which the driver gives to one queue at a time.
// ds_gws_init sets a resource's barrier value: the number of waves a ds_gws_barrier on it waits
// for, minus one; a barrier that completes sets the value again from its own operand.
class GlobalWaveSync {
 public:
  static constexpr std::uint32_t kResources = 64;  // what KFD reports for gfx9 and gfx10
  std::uint32_t value(std::uint32_t resource) const { return values_[resource].load(std::memory_order_acquire); }
  void set(std::uint32_t resource, std::uint32_t value) { values_[resource].store(value, std::memory_order_release); }

 private:
  std::atomic<std::uint32_t> values_[kResources] = {};
};

struct Dispatch {
  std::string kernel;             // its name, for messages
  const DispatchPacket* packet;   // a copy that outlives the dispatch: the dispatch pointer
  std::uint64_t queue = 0;        // the queue pointer (amd_queue_t)
  std::uint64_t dispatch_id = 0;
  // Set when the queue is destroyed: the waves stop, as the driver preempts them.
  const std::atomic<bool>* cancel = nullptr;
  // The GWS of the queue the dispatch runs on, where the queue holds them (a cooperative queue).
  GlobalWaveSync* gws = nullptr;
  // The dispatch's writer_tag (l2_cache.hpp): what the cache model's diagnosis names.
  std::uint16_t writer = 0;
};

// The kernel descriptor (.kd, 64 bytes) fields the interpreter sets a wave up from.
struct KernelDescriptor {
  std::uint32_t group_segment_fixed_size = 0;
  std::uint32_t private_segment_fixed_size = 0;
  std::int64_t entry_offset = 0;  // from the descriptor to the first instruction
  std::uint32_t rsrc1 = 0, rsrc2 = 0, rsrc3 = 0;
  std::uint16_t properties = 0;
  bool wave32 = false;
  std::uint32_t user_sgprs = 0;
  std::uint32_t vgprs = 0;  // from the granulated count
};
KernelDescriptor read_kernel_descriptor(const void* bytes, const Target& target);

// Runs work-group `group` (x, y, z) of the dispatch to its end. Throws Fault.
// `program` holds the code segment with the descriptor's entry point.
void run_work_group(const Program& program, const KernelDescriptor& kd, std::uint64_t descriptor_address,
                    const Dispatch& dispatch, const std::uint32_t group[3], Memory& memory);

// Runs every work-group of the dispatch as one cooperative launch, resident together: round
// robin, each wave until it ends, waits at a barrier (s_barrier, or ds_gws_barrier for the whole
// grid) or has run a time slice (so a wave spinning on memory another work-group writes lets that
// one run). Needs dispatch.gws. Throws Fault, also where the waves left wait at a grid barrier
// that can never complete (on a GPU, a hang).
void run_grid(const Program& program, const KernelDescriptor& kd, std::uint64_t descriptor_address,
              const Dispatch& dispatch, Memory& memory);

// Wave instructions executed in this process so far, and the nanoseconds threads spent in
// run_work_group doing so (summed over threads): the speed report's figures.
std::uint64_t instructions_executed();
std::uint64_t interpreter_busy_ns();
// The instruction set this copy of the interpreter was compiled for: "x86-64" (the baseline), or
// "x86-64-v3" for the copy the dynamic loader picks on CPUs with AVX2 (sim/CMakeLists.txt).
const char* interpreter_build();

// LDS accesses outside a work-group's allocation read zeros and write nowhere, as on AMD GPUs
// (rocPRIM's merge of an empty input reads one); strict: they fault instead, for a developer
// looking for the bug. How many there were in this process, and the first one, named.
void set_strict_lds(bool strict);
std::uint64_t lds_accesses_outside();
std::string first_lds_access_outside();

}  // namespace hsad::isa
