// What the semantics files share: a wave's registers, the work-group's memories, and reading
// and writing operands. Each semantics_*.cpp registers the mnemonics it implements.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "interpreter.hpp"
#include "l2_cache.hpp"

namespace hsad::isa {

inline constexpr std::uint16_t kRegFlatScratch = 102, kRegVcc = 106, kRegM0 = 124, kRegExec = 126;

struct Wave {
  std::uint32_t lanes = 64;
  std::uint32_t s[128] = {};  // by encoding number: s0.., flat_scratch 102, vcc 106, ttmp 108, m0 124, exec 126
  bool scc = false;
  std::uint32_t* v = nullptr;  // VGPRs, v[reg * lanes + lane]
  std::uint32_t* a = nullptr;  // AGPRs, the same layout
  std::uint32_t num_v = 0, num_a = 0;
  std::uint32_t pc = 0;        // index of the instruction to execute
  // barrier: at s_barrier; grid_barrier: at ds_gws_barrier, until the whole grid's waves arrive.
  enum class State : std::uint8_t { running, barrier, grid_barrier, done } state = State::running;
  std::uint64_t executed = 0;  // instructions, for the budget that stops a kernel that never ends
  std::uint32_t index = 0;     // in the work-group
  std::uint32_t mode = 0;      // HW_REG_MODE
  std::uint64_t flat_scratch = 0;  // gfx10 (set through s_setreg) and gfx940 (set by the hardware)
  std::uint64_t scratch_base = 0;  // this wave's private memory
  bool gpr_idx_on = false;         // gfx9 s_set_gpr_idx_on
  bool preserve_hi16 = false;      // 16-bit results keep the register's high half (gfx10) or zero it (gfx9)
  std::uint8_t gpr_idx_mode = 0;

  std::uint64_t exec() const {
    return lanes == 32 ? s[kRegExec] : (std::uint64_t(s[kRegExec + 1]) << 32) | s[kRegExec];
  }
  void set_exec(std::uint64_t e) {
    s[kRegExec] = std::uint32_t(e);
    s[kRegExec + 1] = lanes == 32 ? 0 : std::uint32_t(e >> 32);
  }
  std::uint64_t vcc() const { return lanes == 32 ? s[kRegVcc] : (std::uint64_t(s[kRegVcc + 1]) << 32) | s[kRegVcc]; }
  std::uint64_t lane_mask() const { return lanes == 64 ? ~0ull : (1ull << lanes) - 1; }
  std::uint32_t& vreg(std::uint32_t reg, std::uint32_t lane) { return v[reg * lanes + lane]; }
};

class WorkGroup;

// A cooperative dispatch's side of ds_gws_barrier: counts the waves that arrive on each resource
// and lets them all go once the resource's value + 1 have arrived.
class GridBarrier {
 public:
  virtual ~GridBarrier() = default;
  virtual void arrive(WorkGroup& group, Wave& wave, const Inst& inst, std::uint32_t resource, std::uint32_t value) = 0;
};

class WorkGroup {
 public:
  WorkGroup(const Program& program, const KernelDescriptor& kd, const Dispatch& dispatch, Memory& memory,
            std::uint8_t* lds, std::uint32_t lds_bytes, std::uint8_t* scratch, std::uint64_t scratch_bytes)
      : program(program), kd(kd), dispatch(dispatch), memory(memory), lds(lds), lds_bytes(lds_bytes),
        scratch(scratch), scratch_bytes(scratch_bytes) {}

  const Program& program;
  const KernelDescriptor& kd;
  const Dispatch& dispatch;
  Memory& memory;
  std::uint8_t* lds;
  std::uint32_t lds_bytes;
  std::uint8_t* scratch;
  std::uint64_t scratch_bytes;
  std::uint64_t wave_scratch_bytes = 0;  // per wave
  std::uint64_t entry = 0;               // the kernel's first instruction (faults give the pc from there too)
  std::uint32_t private_bytes = 0;       // per work-item
  GridBarrier* grid = nullptr;           // set in a cooperative dispatch (run_grid)

  [[noreturn]] void fault(const Wave& wave, const Inst& inst, const std::string& what) const;

  // The host address of [address, address + bytes) in memory the kernel may reach (an
  // allocation, the dispatch packet, this work-group's scratch); faults otherwise. `cached`: set
  // to the allocation's L2 lines where the GPU's L2 caches it (then access it through them).
  std::uint8_t* global(const Wave& wave, const Inst& inst, std::uint64_t address, std::uint32_t bytes,
                       CachedRange** cached = nullptr);
  // A read and a write of global memory, through the L2 where it caches the allocation.
  const std::uint8_t* read_global(const Wave& wave, const Inst& inst, std::uint64_t address, std::uint32_t bytes);
  void write_global(const Wave& wave, const Inst& inst, std::uint64_t address, const void* src, std::uint32_t bytes);
  // Whether [address, address + bytes) lies in one allocation (no fault where it does not), and
  // the allocation's L2 lines where the L2 caches it.
  bool global_range(std::uint64_t address, std::uint64_t bytes, CachedRange** cached);
  // LDS bytes [offset, offset + bytes) of this work-group. Outside the allocation, as on the
  // hardware, bytes that read as zeros and take a write nowhere (counted: lds_accesses_outside);
  // a fault under set_strict_lds(true).
  std::uint8_t* shared(const Wave& wave, const Inst& inst, std::uint64_t offset, std::uint32_t bytes);
  // The lane's private dword at byte `offset` of the wave's private segment (swizzled by lane, as
  // the scratch buffer resource and flat scratch address it); faults outside the segment.
  std::uint8_t* private_dword(const Wave& wave, const Inst& inst, std::uint64_t wave_base, std::uint64_t offset,
                              std::uint32_t lane);

 private:
  struct Range {
    std::uint64_t lo = 0, hi = 0;
    CachedRange* cached = nullptr;
    std::uint64_t delta = 0;  // host address - GPU address: 0 but for memory mapped elsewhere
  };
  Range cache_[8];
  std::uint32_t next_ = 0;
  alignas(16) std::uint8_t outside_[64] = {};  // what an LDS access outside the allocation reads and writes
};

// The handler of a mnemonic the interpreter does not know: a fault naming it.
void unknown_instruction(WorkGroup& group, Wave& wave, const Inst& inst);

// ---- operands

// The VGPR number an operand refers to, after gfx9 VGPR indexing (s_set_gpr_idx_on).
inline std::uint32_t vreg_of(const Wave& w, const Operand& o, std::uint8_t role_bit) {
  if (w.gpr_idx_on && (w.gpr_idx_mode & role_bit)) return o.reg + (w.s[kRegM0] & 0xff);
  return o.reg;
}

// The 32-bit value of a scalar (or constant) operand, dword `part` of it.
inline std::uint32_t scalar32(const Wave& w, const Operand& o, std::uint32_t part = 0) {
  switch (o.kind) {
    case Operand::sgpr: return w.s[(o.reg + part) & 127];
    case Operand::constant: return std::uint32_t(o.bits >> (32 * part));
    case Operand::scc: return w.scc ? 1 : 0;
    case Operand::shared_base: return part ? std::uint32_t(kSharedAperture >> 32) : 0;
    case Operand::private_base: return part ? std::uint32_t(kPrivateAperture >> 32) : 0;
    case Operand::shared_limit: return std::uint32_t((kSharedAperture + kApertureBytes - 1) >> (32 * part));
    case Operand::private_limit: return std::uint32_t((kPrivateAperture + kApertureBytes - 1) >> (32 * part));
    default: return 0;
  }
}
inline std::uint64_t scalar64(const Wave& w, const Operand& o) {
  if (o.kind == Operand::constant) return o.bits;
  return std::uint64_t(scalar32(w, o, 0)) | (std::uint64_t(scalar32(w, o, 1)) << 32);
}

inline void write_scalar32(Wave& w, const Operand& o, std::uint32_t v, std::uint32_t part = 0) {
  if (o.kind == Operand::sgpr) w.s[(o.reg + part) & 127] = v;
  else if (o.kind == Operand::scc) w.scc = v != 0;
}
inline void write_scalar64(Wave& w, const Operand& o, std::uint64_t v) {
  write_scalar32(w, o, std::uint32_t(v), 0);
  if (o.width > 1) write_scalar32(w, o, std::uint32_t(v >> 32), 1);
}

// A per-lane read of a source: VGPR (or AGPR) lanes, or one value for all lanes. A broadcast
// points at its own `value`, so a Src32 is made where it is used and never copied or moved: src32
// returns a prvalue, which C++17 constructs in the caller's object (a copy would point at the
// original's value, and a trivially copyable Src32 is returned in registers, its pointer left
// behind in the callee's frame).
class Src32 {
 public:
  Src32(const Wave& w, const Operand& o, std::uint32_t part, std::uint8_t role_bit) {
    if (o.kind == Operand::vgpr) {
      p = w.v + (vreg_of(w, o, role_bit) + part) * w.lanes;
      stride = 1;
    } else if (o.kind == Operand::agpr) {
      p = w.a + (o.reg + part) * w.lanes;
      stride = 1;
    } else {
      value = scalar32(w, o, part);
      p = &value;
      stride = 0;
    }
  }
  Src32(const Src32&) = delete;
  Src32& operator=(const Src32&) = delete;
  std::uint32_t operator[](std::uint32_t lane) const { return p[lane * stride]; }

  const std::uint32_t* p;
  std::uint32_t stride;  // 1 for registers, 0 for a broadcast scalar
  std::uint32_t value = 0;
};
inline Src32 src32(const Wave& w, const Operand& o, std::uint32_t part, std::uint8_t role_bit) {
  return Src32(w, o, part, role_bit);
}

inline std::uint32_t* dst32(Wave& w, const Operand& o, std::uint32_t part) {
  if (o.kind == Operand::agpr) return w.a + (o.reg + part) * w.lanes;
  return w.v + (vreg_of(w, o, 8) + part) * w.lanes;
}

inline float as_f32(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
inline std::uint32_t bits32(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline double as_f64(std::uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}
inline std::uint64_t bits64(double d) {
  std::uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

// Calls f(lane) for every lane EXEC enables.
template <class F>
inline void for_lanes(const Wave& w, F&& f) {
  std::uint64_t e = w.exec();
  while (e) {
    const std::uint32_t lane = std::uint32_t(__builtin_ctzll(e));
    e &= e - 1;
    f(lane);
  }
}

// Registration helpers for the tables.
void register_scalar_ops();
void register_scalar_float_ops();  // gfx11.5 and gfx12
void register_vector_ops();
void register_memory_ops();
void register_lane_ops();
void register_matrix_ops();
void register_all_ops();  // every table once

}  // namespace hsad::isa
