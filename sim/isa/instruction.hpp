// One decoded AMDGPU instruction, ready to execute: its handler, its operands resolved to register
// numbers and constant bit patterns, and the modifiers that change what it does. Pure data.
#pragma once

#include <cstdint>
#include <string>

namespace hsad::isa {

struct Wave;
struct Inst;
class WorkGroup;
using Handler = void (*)(WorkGroup& group, Wave& wave, const Inst& inst);

// How an instruction reads an operand: the width and the meaning of its bits, which decide how
// an inline constant or a literal becomes bits (an f64 literal is the high half, -1 is
// sign-extended, 1.0 is 1.0 in the operand's own format).
enum class Type : std::uint8_t { b32, i32, f32, b64, i64, f64, b16, f16 };

inline bool is_64(Type t) { return t == Type::b64 || t == Type::i64 || t == Type::f64; }

struct Operand {
  enum Kind : std::uint8_t {
    none,
    sgpr,      // s0..s105 (and ttmp, flat_scratch, xnack_mask by number)
    vgpr,
    agpr,
    vcc,       // the 64-bit VCC (vcc_lo / vcc_hi are sgpr numbers 106 / 107)
    exec,      // the 64-bit EXEC (exec_lo / exec_hi: 126 / 127)
    m0,
    scc,
    constant,  // an inline constant or a literal, `bits` already in the operand's type
    off,       // "off": no address register
    null,      // gfx10 "null": reads 0, writes vanish
    shared_base, shared_limit, private_base, private_limit,  // the apertures, as 64-bit values
    unreadable,  // text the parser cannot read as an operand: the instruction is unknown
  };
  Kind kind = none;
  std::uint8_t width = 1;  // registers (dwords)
  std::uint16_t reg = 0;   // first register number
  bool neg = false, abs = false;  // VOP3 source modifiers
  bool sext = false;              // SDWA: sign-extend the selected byte or word
  std::uint64_t bits = 0;  // constant value
  bool is_literal = false;
};

// Flags parsed from the modifiers after the operands.
enum InstFlag : std::uint32_t {
  kGlc = 1u << 0, kSlc = 1u << 1, kDlc = 1u << 2, kNt = 1u << 3,
  kOffen = 1u << 4, kIdxen = 1u << 5, kClamp = 1u << 6, kLds = 1u << 7,
  kGds = 1u << 8, kBoundCtrl = 1u << 9, kFetchInactive = 1u << 10, kAddr64 = 1u << 11,
  kSc0 = 1u << 12, kSc1 = 1u << 13,
  kUnknownModifier = 1u << 14,  // a modifier the parser does not know: the instruction is unknown
  kUnorderedPair = 1u << 15,    // a VOPD half whose partner reads its result and whose result it reads
  kUnknownOperand = 1u << 16,   // an operand the parser cannot read ("v1.l"): the instruction is unknown
  kScopeSys = 1u << 17,         // gfx12's scope:SCOPE_SYS (the cache controls reach the L2 at it)
  kScopeDev = 1u << 18,         // gfx12's scope:SCOPE_DEV
};

// LLVM's memory models for GFX942 and GFX12: an access at system scope is not completed in the
// one L2 a GPU's work-groups share. A load or store is at system scope with sc0 and sc1 (gfx94x) or
// scope:SCOPE_SYS (gfx12); an atomic with sc1 (gfx94x: its sc0 only says it returns) or SCOPE_SYS.
// gfx90a's instructions carry none of these: their memory type decides.
inline bool at_system_scope(std::uint32_t flags, bool atomic) {
  if (flags & kScopeSys) return true;
  return atomic ? (flags & kSc1) != 0 : (flags & kSc0) && (flags & kSc1);
}

// Inst::mem_d16's flag: the target zeroes the half of the register a d16 load does not write.
inline constexpr std::uint8_t kD16ZeroesOtherHalf = 4;

enum class Dpp : std::uint8_t {
  none, quad_perm, row_shl, row_shr, row_ror, wave_shl, wave_rol, wave_shr, wave_ror,
  row_mirror, row_half_mirror, row_bcast15, row_bcast31, row_share, row_xmask, dpp8,
};

enum class SdwaSel : std::uint8_t { dword, byte0, byte1, byte2, byte3, word0, word1 };

struct Inst {
  Handler fn = nullptr;
  std::uint64_t address = 0;   // its address on the device
  std::uint32_t size = 4;      // bytes
  std::uint32_t next = 0;      // index of the instruction after it
  std::uint32_t target = 0;    // index of a branch's target
  std::uint8_t ndst = 0, nsrc = 0;
  Operand dst[2];
  Operand src[5];  // five: CDNA4's scaled MFMA (A, B, C and the two scale registers); four elsewhere
  Type type[5] = {Type::b32, Type::b32, Type::b32, Type::b32, Type::b32};  // how each source is read
  std::uint32_t flags = 0;
  std::int32_t offset = 0, offset1 = 0;  // memory offsets (offset0/offset1 of ds_*2)
  std::int32_t simm = 0;       // SOPK/SOPP immediate
  std::uint8_t omod = 0;       // 0, or mul:2 (1), mul:4 (2), div:2 (3)
  std::uint8_t op_sel = 0, op_sel_hi = 0x7, neg_lo = 0, neg_hi = 0;  // VOP3 / VOP3P
  bool op_sel_hi_given = false;  // printed: v_fma_mix*'s default is 0 (f32 sources), not 0x7
  Dpp dpp = Dpp::none;
  std::uint32_t dpp_ctrl = 0;  // quad_perm pattern, shift amount, dpp8 selects
  std::uint8_t row_mask = 0xf, bank_mask = 0xf;
  SdwaSel dst_sel = SdwaSel::dword, src_sel[2] = {SdwaSel::dword, SdwaSel::dword};
  std::uint8_t dst_unused = 0;  // 0 pad, 1 sext, 2 preserve
  bool sdwa = false;
  std::uint8_t gpr_idx_mode = 0;  // s_set_gpr_idx_on: bit 0 src0, 1 src1, 2 src2, 3 dst
  // Matrix instructions (v_mfma_*): A's block broadcast (cbsz, abid) and B's lane-group pattern.
  std::uint8_t cbsz = 0, abid = 0, blgp = 0;
  // v_bitop3 (gfx950): the truth table of its three sources, indexed by (a << 2) | (b << 1) | c.
  std::uint8_t bitop3 = 0;
  // Memory instructions, worked out from the mnemonic once (OpInfo::prepare): bytes per element,
  // elements (dwordxN), sign extension, which half a d16 access uses, the atomic's operation.
  std::uint8_t mem_bytes = 4, mem_count = 1, mem_d16 = 0, atomic_op = 0;  // mem_d16: 1 low, 2 high, | kD16ZeroesOtherHalf
  bool mem_sign = false, mem_wide = false;
  // Worked out once at decode time for the VALU's fast paths (valu.hpp), instead of at every
  // execution: how many leading sources read as plain 32-bit rows (no DPP or SDWA, 32 bits wide,
  // no abs or neg), and whether the result goes whole to a VGPR or AGPR (no omod, clamp, DPP or
  // SDWA). The defaults send an Inst built by hand down the general path, which is always right.
  std::uint8_t plain_sources = 0;
  bool plain_result = false;
  // It reads or writes memory another wave of the work-group may share (LDS, global, flat, buffer,
  // scalar memory): the wave gives way to the others after it (GroupRun::run).
  bool yields = false;
  // gfx12's sparse WMMA (v_swmmac_*): which 16-bit set of the index word the lanes read. Here, in
  // the padding before `text`, so that the fields every instruction reads keep their places.
  std::uint8_t index_key = 0;
  std::string text;            // as the disassembler printed it, for errors
};

}  // namespace hsad::isa
