// Program: the executable segment of one code object, decoded once into Insts. Decoding is
// LLVM's AMDGPU disassembler (the LLVM hipcc uses, through its C API); what each instruction
// means is this interpreter's own (semantics_*.cpp). Pure: no ROCr.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "instruction.hpp"

namespace hsad::isa {

// What the instructions of one processor mean, where the generations differ.
struct Target {
  std::string processor;        // "gfx90a"
  bool gfx10 = false;           // RDNA (gfx10.x and later): another encoding, wave32 by default, no AGPRs
  // RDNA3 (gfx11.x): gfx10's register model with new mnemonics (canonical_mnemonic), VOPD's dual
  // issue, and the work-item IDs packed into v0.
  bool gfx11 = false;
  // RDNA4 (gfx12.x): gfx11's, with the wait counters split, the cache policy in th:/scope:, and
  // the barrier in two halves (s_barrier_signal, s_barrier_wait).
  bool gfx12 = false;
  bool packed_workitem_ids = false;  // gfx90a and later CDNA: v0 holds x | y << 10 | z << 20
  bool architected_flat_scratch = false;  // gfx940
  // SRAM ECC on, as the Instinct GPUs run (and hsad-sim's topology says): a d16 load zeroes the
  // register's other half instead of keeping it (LLVM: d16PreservesUnusedBits is false).
  // rocBLAS's Tensile kernels rely on it: they OR a ds_read_u16 with a ds_read_u16_d16_hi.
  bool sramecc = false;
  // The 8-bit floats of the matrix instructions in OCP's encodings (gfx950) rather than CDNA3's
  // FNUZ ones (gfx94x).
  bool ocp_fp8 = false;
  // gfx10 code built for wave64 (-mwavefrontsize64): decoded with 64-bit VCC and EXEC operands.
  // The kernel descriptor says which (KERNEL_CODE_PROPERTY_ENABLE_WAVEFRONT_SIZE32).
  bool wave64 = true;
};
// Throws std::runtime_error for a processor the interpreter does not know. gfx10 and gfx11
// targets are wave32 unless `wave64`; gfx9 ones are always wave64.
Target target_for(std::string_view processor, bool wave64 = false);

// How a mnemonic is executed: its handler, how many of the operands after the destinations are
// sources, and how each source is read.
struct OpInfo {
  Handler fn = nullptr;
  std::uint8_t nsrc = 0;
  Type type[5] = {Type::b32, Type::b32, Type::b32, Type::b32, Type::b32};
  void (*prepare)(Inst& in) = nullptr;  // decode-time work of the semantics (memory widths, atomics)
  // The handler saturates an integer result under VOP3's clamp bit. An instruction with an integer
  // result and clamp whose handler does not decodes as unknown ("v_sub_u32 clamp"): it would be wrong.
  bool int_clamp = false;
};
// Whether the mnemonic's result is an integer (its first type: "v_sub_u32", "v_mad_u64_u32") that
// clamp saturates; float results are clamped to [0, 1] for every handler, conversions saturate anyway.
bool clamp_saturates_integer(std::string_view mnemonic);
// The semantics tables register here (by base mnemonic: "v_add_f32", without _e32 / _e64).
const OpInfo* find_op(std::string_view mnemonic);
void register_op(const char* mnemonic, const OpInfo& info);

class Program {
 public:
  // Decodes `code`, the bytes of an executable segment that starts at device address `address`.
  // Instructions the interpreter does not know decode to a handler that faults when reached.
  Program(const Target& target, std::uint64_t address, std::string_view code);

  const Target& target() const { return target_; }
  // The instruction that starts at `address`; throws std::out_of_range where none does.
  std::uint32_t index_of(std::uint64_t address) const;
  const Inst& operator[](std::uint32_t index) const { return insts_[index]; }
  std::size_t size() const { return insts_.size(); }
  std::uint16_t max_vgpr() const { return max_vgpr_; }  // registers referenced, for sizing the file
  std::uint16_t max_agpr() const { return max_agpr_; }
  // Mnemonics that occur (base form) and whether each is implemented, for coverage reports.
  const std::unordered_map<std::string, bool>& mnemonics() const { return mnemonics_; }

 private:
  void keep(Inst in, const std::uint8_t* at);  // records a decoded instruction (at: its bytes)

  Target target_;
  std::uint64_t address_;
  std::vector<Inst> insts_;
  std::vector<std::uint32_t> by_word_;  // (address - start) / 4 -> index + 1; 0: not an instruction start
  std::uint16_t max_vgpr_ = 0, max_agpr_ = 0;
  std::unordered_map<std::string, bool> mnemonics_;
};

// The base mnemonic and encoding of a printed one: "v_add_f32_e32" -> "v_add_f32".
std::string_view base_mnemonic(std::string_view mnemonic);
// The name the semantics know an instruction by: gfx11 renamed many that it kept (global_load_b32
// is gfx9's and gfx10's global_load_dword, s_and_not1_b32 their s_andn2_b32); every other name is
// itself. The renamed names are new, so no target is needed to tell them apart.
std::string_view canonical_mnemonic(std::string_view base);

// Parses one line of the disassembler's output into an Inst (for tests, and the decoder).
Inst parse_instruction(const Target& target, std::string_view text, std::uint64_t address, std::uint32_t size);
// gfx11's dual issue (VOPD): "v_dual_mul_f32 v0, v1, v2 :: v_dual_mov_b32 v3, 1.0" as the two
// instructions it is, each with its half's text, in an order that gives what issuing them together
// gives (both read their sources before either writes). Both are unknown where no order does.
std::vector<Inst> dual_issue(const Target& target, std::string_view text, std::uint64_t address, std::uint32_t size);
// The first modifier of an instruction (Inst::text) the parser does not know, or empty.
std::string unknown_modifier_of(const Inst& in);

}  // namespace hsad::isa
