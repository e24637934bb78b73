// Decoding: LLVM's disassembler prints each instruction as its assembler syntax; the parser here
// turns that text into operands (register numbers, constant bits in the operand's type) and
// modifiers once, so execution never looks at text again.
#include "program.hpp"

#include "semantics.hpp"

#include <cctype>
#include <llvm-c/Disassembler.h>
#include <llvm-c/Target.h>
#include <llvm/Config/llvm-config.h>  // LLVM_VERSION_MAJOR

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>

namespace hsad::isa {

namespace {

std::map<std::string, OpInfo, std::less<>>& op_table() {
  static auto* t = new std::map<std::string, OpInfo, std::less<>>();
  return *t;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Splits at `sep` where not inside () or [].
std::vector<std::string_view> split_top(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == sep && depth == 0) {
      if (i > start) out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (start < s.size() && !trim(s.substr(start)).empty()) out.push_back(trim(s.substr(start)));
  return out;
}

bool parse_int(std::string_view s, std::int64_t* out) {
  if (s.empty()) return false;
  bool negative = false;
  if (s.front() == '-') negative = true, s.remove_prefix(1);
  if (s.empty()) return false;
  int base = 10;
  if (starts_with(s, "0x") || starts_with(s, "0X")) base = 16, s.remove_prefix(2);
  if (s.empty()) return false;
  std::uint64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return false;
    v = v * std::uint64_t(base) + std::uint64_t(d);
  }
  *out = negative ? -std::int64_t(v) : std::int64_t(v);
  return true;
}

// "0.5", "-4.0", "0.15915494": a decimal point, and nothing strtod would leave unread ("v1.l" is not one).
bool looks_float(std::string_view s) {
  if (s.find('.') == std::string_view::npos || s.find("0x") != std::string_view::npos) return false;
  const std::string text(s);
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

std::uint32_t f32_bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
std::uint64_t f64_bits(double d) {
  std::uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}
std::uint16_t f16_bits(double d) {
  // The inline constants only: 0.5, 1, 2, 4 and negatives, 1/(2 pi).
  const double a = std::fabs(d);
  std::uint16_t b = a == 0.5 ? 0x3800 : a == 1.0 ? 0x3c00 : a == 2.0 ? 0x4000 : a == 4.0 ? 0x4400 : 0x3118;
  return d < 0 ? std::uint16_t(b | 0x8000) : b;
}

// A constant as a source of type t: an integer inline constant is its sign-extended bits; a
// float one is that value in t's format, a double for every 64-bit operand (as the hardware
// expands it: gfx940's v_mov_b64 v[2:3], 1.0 is the double 1.0); a literal (hex) is 32 bits: the
// high half of an f64, sign-extended for i64, zero-extended otherwise.
Operand constant(std::string_view text, Type t) {
  Operand o;
  o.kind = Operand::constant;
  o.width = is_64(t) ? 2 : 1;
  if (looks_float(text)) {
    const double d = std::strtod(std::string(text).c_str(), nullptr);
    if (is_64(t)) o.bits = f64_bits(d);
    else if (t == Type::f16 || t == Type::b16) o.bits = f16_bits(d);
    else o.bits = f32_bits(float(d));
    return o;
  }
  std::int64_t v = 0;
  if (!parse_int(text, &v)) {
    // Neither a register nor a number the parser knows (gfx11's true16 halves, "v1.l"): the
    // instruction is unknown, never run with the operand read as something else.
    o.kind = Operand::unreadable;
    return o;
  }
  const bool literal = starts_with(text, "0x") || v < -16 || v > 64;
  o.is_literal = literal;
  if (!literal) {
    o.bits = std::uint64_t(v);  // sign-extended
    if (!is_64(t)) o.bits &= 0xffffffffu;
    return o;
  }
  const std::uint32_t lit = std::uint32_t(v);
  if (t == Type::f64) o.bits = std::uint64_t(lit) << 32;
  else if (t == Type::i64) o.bits = std::uint64_t(std::int64_t(std::int32_t(lit)));
  else o.bits = lit;
  return o;
}

// "v7", "v[2:3]", "s[4:7]", "ttmp[0:1]": kind, first register, width.
bool register_range(std::string_view s, std::string_view prefix, std::uint16_t base, Operand::Kind kind, Operand* o) {
  if (!starts_with(s, prefix)) return false;
  s.remove_prefix(prefix.size());
  std::int64_t lo = 0, hi = 0;
  if (!s.empty() && s.front() == '[') {
    const auto colon = s.find(':');
    if (colon == std::string_view::npos || s.back() != ']') return false;
    if (!parse_int(s.substr(1, colon - 1), &lo) || !parse_int(s.substr(colon + 1, s.size() - colon - 2), &hi)) return false;
  } else {
    if (!parse_int(s, &lo) || (s.front() < '0' || s.front() > '9')) return false;
    hi = lo;
  }
  o->kind = kind;
  o->reg = std::uint16_t(base + lo);
  o->width = std::uint8_t(hi - lo + 1);
  return true;
}

// Encoding numbers of the named scalar registers (the same on gfx9 and gfx10).
constexpr std::uint16_t kFlatScratch = 102, kXnackMask = 104, kVcc = 106, kTtmp = 108, kM0 = 124, kExec = 126;

Operand parse_operand(std::string_view s, Type t) {
  Operand o;
  // Modifiers: -x, |x|, -|x|, neg(x), abs(x).
  if (starts_with(s, "neg(") && s.back() == ')') {
    o = parse_operand(s.substr(4, s.size() - 5), t);
    o.neg = !o.neg;
    return o;
  }
  if (starts_with(s, "sext(") && s.back() == ')') {
    o = parse_operand(s.substr(5, s.size() - 6), t);
    o.sext = true;
    return o;
  }
  if (starts_with(s, "abs(") && s.back() == ')') {
    o = parse_operand(s.substr(4, s.size() - 5), t);
    o.abs = true;
    return o;
  }
  if (s.size() > 1 && s.front() == '-' && !(s[1] >= '0' && s[1] <= '9')) {
    o = parse_operand(s.substr(1), t);
    o.neg = !o.neg;
    return o;
  }
  if (s.size() > 2 && s.front() == '|' && s.back() == '|') {
    o = parse_operand(s.substr(1, s.size() - 2), t);
    o.abs = true;
    return o;
  }
  if (register_range(s, "v", 0, Operand::vgpr, &o) || register_range(s, "a", 0, Operand::agpr, &o) ||
      register_range(s, "s", 0, Operand::sgpr, &o) || register_range(s, "ttmp", kTtmp, Operand::sgpr, &o)) {
    return o;
  }
  struct Named {
    const char* name;
    std::uint16_t reg;
    std::uint8_t width;
  };
  static const Named named[] = {
      {"vcc", kVcc, 2},           {"vcc_lo", kVcc, 1},           {"vcc_hi", kVcc + 1, 1},
      {"exec", kExec, 2},         {"exec_lo", kExec, 1},         {"exec_hi", kExec + 1, 1},
      {"m0", kM0, 1},             {"flat_scratch", kFlatScratch, 2}, {"flat_scratch_lo", kFlatScratch, 1},
      {"flat_scratch_hi", kFlatScratch + 1, 1}, {"xnack_mask", kXnackMask, 2},
      {"xnack_mask_lo", kXnackMask, 1}, {"xnack_mask_hi", kXnackMask + 1, 1},
  };
  for (const Named& n : named) {
    if (s == n.name) {
      o.kind = Operand::sgpr;
      o.reg = n.reg;
      o.width = n.width;
      return o;
    }
  }
  if (s == "scc" || s == "src_scc") return o.kind = Operand::scc, o;
  if (starts_with(s, "sendmsg(") && s.back() == ')') {  // gfx11's s_sendmsg_rtn: the message's number
    static const std::map<std::string_view, std::uint64_t> messages = {
        {"MSG_RTN_GET_DOORBELL", 128}, {"MSG_RTN_GET_DDID", 129}, {"MSG_RTN_GET_TMA", 130},
        {"MSG_RTN_GET_REALTIME", 131}, {"MSG_RTN_SAVE_WAVE", 132},  {"MSG_RTN_GET_TBA", 133},
    };
    const auto it = messages.find(s.substr(8, s.size() - 9));
    if (it == messages.end()) return o.kind = Operand::unreadable, o;
    o.kind = Operand::constant;
    o.bits = it->second;
    return o;
  }
  if (s == "off") return o.kind = Operand::off, o;
  if (s == "null") return o.kind = Operand::null, o.width = is_64(t) ? 2 : 1, o;
  if (s == "src_shared_base") return o.kind = Operand::shared_base, o.width = 2, o;
  if (s == "src_shared_limit") return o.kind = Operand::shared_limit, o.width = 2, o;
  if (s == "src_private_base") return o.kind = Operand::private_base, o.width = 2, o;
  if (s == "src_private_limit") return o.kind = Operand::private_limit, o.width = 2, o;
  return constant(s, t);
}

std::int64_t modifier_value(std::string_view m, std::string_view key) {
  std::int64_t v = 0;
  parse_int(m.substr(key.size()), &v);
  return v;
}

// "[1,0,3,2]" -> the values.
std::vector<int> list_of(std::string_view s) {
  std::vector<int> out;
  const auto open = s.find('['), close = s.find(']');
  if (open == std::string_view::npos || close == std::string_view::npos) return out;
  for (std::string_view part : split_top(s.substr(open + 1, close - open - 1), ',')) {
    std::int64_t v = 0;
    parse_int(part, &v);
    out.push_back(int(v));
  }
  return out;
}

std::uint8_t bits_of(const std::vector<int>& v) {
  std::uint8_t b = 0;
  for (std::size_t i = 0; i < v.size() && i < 8; ++i) b |= std::uint8_t((v[i] & 1) << i);
  return b;
}

SdwaSel sdwa_sel(std::string_view s) {
  if (s == "BYTE_0") return SdwaSel::byte0;
  if (s == "BYTE_1") return SdwaSel::byte1;
  if (s == "BYTE_2") return SdwaSel::byte2;
  if (s == "BYTE_3") return SdwaSel::byte3;
  if (s == "WORD_0") return SdwaSel::word0;
  if (s == "WORD_1") return SdwaSel::word1;
  return SdwaSel::dword;
}

// Applies one modifier printed after the operands; false for one it does not know.
bool apply_modifier(Inst& in, std::string_view m) {
  if (m == "glc") in.flags |= kGlc;
  else if (m == "slc") in.flags |= kSlc;
  else if (m == "dlc") in.flags |= kDlc;
  else if (m == "nt") in.flags |= kNt;
  else if (m == "sc0") in.flags |= kSc0;
  else if (m == "sc1") in.flags |= kSc1;
  else if (m == "offen") in.flags |= kOffen;
  else if (m == "idxen") in.flags |= kIdxen;
  else if (m == "addr64") in.flags |= kAddr64;
  else if (m == "lds") in.flags |= kLds;
  else if (m == "gds") in.flags |= kGds;
  else if (m == "clamp") in.flags |= kClamp;
  else if (m == "mul:2") in.omod = 1;
  else if (m == "mul:4") in.omod = 2;
  else if (m == "div:2") in.omod = 3;
  // gfx12's cache policy: a temporal hint (no effect on what the model computes) except that an
  // atomic returns its old value (TH_ATOMIC_RETURN, gfx9's glc); and the scope, which the cache
  // controls (global_inv, global_wb) act at.
  else if (starts_with(m, "th:TH_")) {
    if (m.find("RETURN") != std::string_view::npos) in.flags |= kGlc;
    if (m.find("NT") != std::string_view::npos) in.flags |= kNt;
  } else if (m == "scope:SCOPE_SYS") in.flags |= kScopeSys;
  else if (m == "scope:SCOPE_DEV") in.flags |= kScopeDev;
  else if (m == "scope:SCOPE_SE" || m == "scope:SCOPE_CU") {}
  else if (starts_with(m, "offset:")) in.offset = std::int32_t(modifier_value(m, "offset:"));
  else if (starts_with(m, "offset0:")) in.offset = std::int32_t(modifier_value(m, "offset0:"));
  else if (starts_with(m, "offset1:")) in.offset1 = std::int32_t(modifier_value(m, "offset1:"));
  else if (starts_with(m, "op_sel:")) in.op_sel = bits_of(list_of(m));
  else if (starts_with(m, "op_sel_hi:")) in.op_sel_hi = bits_of(list_of(m)), in.op_sel_hi_given = true;
  else if (starts_with(m, "neg_lo:")) in.neg_lo = bits_of(list_of(m));
  else if (starts_with(m, "neg_hi:")) in.neg_hi = bits_of(list_of(m));
  else if (starts_with(m, "cbsz:")) in.cbsz = std::uint8_t(modifier_value(m, "cbsz:"));
  else if (starts_with(m, "abid:")) in.abid = std::uint8_t(modifier_value(m, "abid:"));
  else if (starts_with(m, "blgp:")) in.blgp = std::uint8_t(modifier_value(m, "blgp:"));
  else if (starts_with(m, "index_key:")) in.index_key = std::uint8_t(modifier_value(m, "index_key:"));
  else if (starts_with(m, "bitop3:")) in.bitop3 = std::uint8_t(modifier_value(m, "bitop3:"));
  else if (starts_with(m, "quad_perm:")) {
    const auto v = list_of(m);
    in.dpp = Dpp::quad_perm;
    in.dpp_ctrl = 0;
    for (std::size_t i = 0; i < v.size() && i < 4; ++i) in.dpp_ctrl |= std::uint32_t(v[i] & 3) << (2 * i);
  } else if (starts_with(m, "dpp8:")) {
    const auto v = list_of(m);
    in.dpp = Dpp::dpp8;
    in.dpp_ctrl = 0;
    for (std::size_t i = 0; i < v.size() && i < 8; ++i) in.dpp_ctrl |= std::uint32_t(v[i] & 7) << (3 * i);
  } else if (starts_with(m, "row_shl:")) in.dpp = Dpp::row_shl, in.dpp_ctrl = std::uint32_t(modifier_value(m, "row_shl:"));
  else if (starts_with(m, "row_shr:")) in.dpp = Dpp::row_shr, in.dpp_ctrl = std::uint32_t(modifier_value(m, "row_shr:"));
  else if (starts_with(m, "row_ror:")) in.dpp = Dpp::row_ror, in.dpp_ctrl = std::uint32_t(modifier_value(m, "row_ror:"));
  else if (starts_with(m, "row_share:")) in.dpp = Dpp::row_share, in.dpp_ctrl = std::uint32_t(modifier_value(m, "row_share:"));
  else if (starts_with(m, "row_xmask:")) in.dpp = Dpp::row_xmask, in.dpp_ctrl = std::uint32_t(modifier_value(m, "row_xmask:"));
  else if (m == "wave_shl:1") in.dpp = Dpp::wave_shl;
  else if (m == "wave_rol:1") in.dpp = Dpp::wave_rol;
  else if (m == "wave_shr:1") in.dpp = Dpp::wave_shr;
  else if (m == "wave_ror:1") in.dpp = Dpp::wave_ror;
  else if (m == "row_mirror") in.dpp = Dpp::row_mirror;
  else if (m == "row_half_mirror") in.dpp = Dpp::row_half_mirror;
  else if (m == "row_bcast:15") in.dpp = Dpp::row_bcast15;
  else if (m == "row_bcast:31") in.dpp = Dpp::row_bcast31;
  else if (starts_with(m, "row_mask:")) in.row_mask = std::uint8_t(modifier_value(m, "row_mask:"));
  else if (starts_with(m, "bank_mask:")) in.bank_mask = std::uint8_t(modifier_value(m, "bank_mask:"));
  else if (starts_with(m, "bound_ctrl:")) in.flags |= kBoundCtrl;
  else if (starts_with(m, "fi:")) { if (modifier_value(m, "fi:")) in.flags |= kFetchInactive; }
  else if (starts_with(m, "dst_sel:")) in.sdwa = true, in.dst_sel = sdwa_sel(m.substr(8));
  else if (starts_with(m, "src0_sel:")) in.sdwa = true, in.src_sel[0] = sdwa_sel(m.substr(9));
  else if (starts_with(m, "src1_sel:")) in.sdwa = true, in.src_sel[1] = sdwa_sel(m.substr(9));
  else if (starts_with(m, "dst_unused:")) {
    const std::string_view u = m.substr(11);
    in.dst_unused = u == "UNUSED_SEXT" ? 1 : u == "UNUSED_PRESERVE" ? 2 : 0;
  } else if (starts_with(m, "gpr_idx(")) {
    for (std::string_view mode : split_top(m.substr(8, m.size() - 9), ',')) {
      if (mode == "SRC0") in.gpr_idx_mode |= 1;
      if (mode == "SRC1") in.gpr_idx_mode |= 2;
      if (mode == "SRC2") in.gpr_idx_mode |= 4;
      if (mode == "DST") in.gpr_idx_mode |= 8;
    }
  } else {
    return false;
  }
  return true;
}

}  // namespace

std::string unknown_modifier_of(const Inst& in) {
  std::vector<std::string_view> ops = split_top(trim(std::string_view(in.text).substr(std::min(in.text.size(), in.text.find(' ')))), ',');
  if (ops.empty()) return {};
  std::vector<std::string_view> tail = split_top(ops.back(), ' ');
  Inst scratch;
  for (std::size_t i = 1; i < tail.size(); ++i) {
    if (!apply_modifier(scratch, tail[i])) return std::string(tail[i]);
  }
  return {};
}

namespace {
// "hwreg(HW_REG_MODE, 4, 2)" -> register id, offset, size packed as SOPK's simm16 packs them.
std::int32_t hwreg(std::string_view s) {
  static const std::map<std::string_view, int> ids = {
      {"HW_REG_MODE", 1}, {"HW_REG_STATUS", 2}, {"HW_REG_TRAPSTS", 3}, {"HW_REG_HW_ID", 4},
      {"HW_REG_GPR_ALLOC", 5}, {"HW_REG_LDS_ALLOC", 6}, {"HW_REG_IB_STS", 7}, {"HW_REG_SH_MEM_BASES", 15},
      {"HW_REG_FLAT_SCR_LO", 20}, {"HW_REG_FLAT_SCR_HI", 21}, {"HW_REG_XNACK_MASK", 22},
  };
  const auto open = s.find('('), close = s.rfind(')');
  const auto parts = split_top(s.substr(open + 1, close - open - 1), ',');
  std::int64_t id = 0, offset = 0, size = 32;
  if (!parts.empty()) {
    if (auto it = ids.find(parts[0]); it != ids.end()) id = it->second;
    else parse_int(parts[0], &id);
  }
  if (parts.size() > 1) parse_int(parts[1], &offset);
  if (parts.size() > 2) parse_int(parts[2], &size);
  return std::int32_t(id | (offset << 6) | ((size - 1) << 11));
}

enum class Format { vector, scalar, smem, sopp, sopk, ds, flat, mubuf, waitcnt };

Format format_of(std::string_view m) {
  if (starts_with(m, "s_load_") || starts_with(m, "s_buffer_load_") || starts_with(m, "s_store_") ||
      starts_with(m, "s_buffer_store_") || starts_with(m, "s_scratch_")) {
    return Format::smem;
  }
  if (starts_with(m, "s_waitcnt") || m == "s_clause" || m == "s_inst_prefetch" || m == "s_nop" || m == "s_sleep" ||
      m == "s_setprio" || m == "s_code_end" || m == "s_endpgm" || m == "s_barrier" || m == "s_dcache_inv" ||
      m == "s_dcache_wb" || m == "s_icache_inv" || m == "s_ttracedata" || m == "s_set_gpr_idx_off" ||
      m == "s_round_mode" || m == "s_denorm_mode" || m == "s_sendmsg" || m == "s_trap" || m == "s_delay_alu" ||
      m == "s_set_inst_prefetch_distance" || m == "s_sethalt" || starts_with(m, "s_wait_") ||
      m == "s_barrier_signal" || m == "s_barrier_wait" || m == "s_barrier_signal_isfirst" ||
      m == "global_inv" || m == "global_wb" || m == "global_wbinv" ||
      starts_with(m, "s_cbranch_") || m == "s_branch") {
    return Format::sopp;
  }
  if (starts_with(m, "s_movk_") || starts_with(m, "s_cmovk_") || starts_with(m, "s_addk_") || starts_with(m, "s_mulk_") ||
      starts_with(m, "s_cmpk_") || m == "s_getreg_b32" || m == "s_setreg_b32" || m == "s_setreg_imm32_b32" ||
      m == "s_set_gpr_idx_on") {
    return Format::sopk;
  }
  if (starts_with(m, "s_")) return Format::scalar;
  if (starts_with(m, "ds_")) return Format::ds;
  if (starts_with(m, "buffer_gl") || starts_with(m, "buffer_wb") || m == "buffer_inv") return Format::sopp;  // cache controls
  if (starts_with(m, "global_") || starts_with(m, "flat_") || starts_with(m, "scratch_")) return Format::flat;
  if (starts_with(m, "buffer_")) return Format::mubuf;
  return Format::vector;
}

}  // namespace

Target target_for(std::string_view processor, bool wave64) {
  Target t;
  t.processor = std::string(processor);
  t.wave64 = !(starts_with(processor, "gfx10") || starts_with(processor, "gfx11") || starts_with(processor, "gfx12")) || wave64;
  if (processor == "gfx900") return t;
  if (processor == "gfx908" || processor == "gfx906") return t.sramecc = true, t;
  if (processor == "gfx90a") return t.packed_workitem_ids = true, t.sramecc = true, t;
  if (processor == "gfx940" || processor == "gfx941" || processor == "gfx942" || processor == "gfx950") {
    t.packed_workitem_ids = true;
    t.sramecc = true;
    t.architected_flat_scratch = true;
    t.ocp_fp8 = processor == "gfx950";
    return t;
  }
  if (starts_with(processor, "gfx10")) return t.gfx10 = true, t;
  if (starts_with(processor, "gfx11") || processor == "gfx1200" || processor == "gfx1201") {
    // LLVM's processor table: architected flat scratch, packed work-item IDs. RDNA4 keeps RDNA3's
    // names and dual issue, and splits the wait counters (gfx12_names).
    t.gfx10 = t.gfx11 = true;
    t.gfx12 = starts_with(processor, "gfx12");
    t.packed_workitem_ids = true;
    t.architected_flat_scratch = true;
    return t;
  }
  throw std::runtime_error("the ISA interpreter does not know the processor '" + std::string(processor) + "'");
}

bool clamp_saturates_integer(std::string_view m) {
  if (!starts_with(m, "v_") || starts_with(m, "v_cvt_")) return false;
  std::size_t at = 2;
  while (at < m.size()) {
    const std::size_t end = std::min(m.find('_', at), m.size());
    const std::string_view t = m.substr(at, end - at);
    if (t.size() >= 2 && (t[0] == 'u' || t[0] == 'i' || t[0] == 'b') && std::isdigit(static_cast<unsigned char>(t[1]))) {
      return true;
    }
    if (t.size() >= 2 && (t[0] == 'f' || (t[0] == 'b' && t[1] == 'f')) && std::isdigit(static_cast<unsigned char>(t.back()))) {
      return false;
    }
    at = end + 1;
  }
  return false;
}

const OpInfo* find_op(std::string_view mnemonic) {
  const auto& t = op_table();
  auto it = t.find(mnemonic);
  return it == t.end() ? nullptr : &it->second;
}

void register_op(const char* mnemonic, const OpInfo& info) { op_table()[mnemonic] = info; }

std::string_view base_mnemonic(std::string_view m) {
  for (std::string_view suffix : {"_e32", "_e64", "_sdwa", "_dpp"}) {
    if (m.size() > suffix.size() && m.substr(m.size() - suffix.size()) == suffix) return m.substr(0, m.size() - suffix.size());
  }
  return m;
}

namespace {
// The decode-time half of valu.hpp's plain_sources32 / plain32 (which say what each field means).
void plan_fast_paths(Inst& in) {
  in.plain_sources = 0;
  in.plain_result = false;
  if (in.dpp != Dpp::none || in.sdwa) return;
  for (int i = 0; i < 4; ++i) {
    const Type t = in.type[i];
    if (is_64(t) || t == Type::b16 || t == Type::f16 || in.src[i].abs || in.src[i].neg) break;
    in.plain_sources = std::uint8_t(i + 1);
  }
  in.plain_result = !in.omod && !(in.flags & kClamp) &&
                    (in.dst[0].kind == Operand::vgpr || in.dst[0].kind == Operand::agpr);
}
}  // namespace

namespace {
// Memory other waves of the work-group can see: LDS (not the lane shuffles that only borrow the LDS
// unit), global, flat, buffer, and scalar loads and stores. Scratch is the wave's own.
bool shares_memory(std::string_view m) {
  if (starts_with(m, "ds_")) return !(m == "ds_swizzle_b32" || m.find("permute") != std::string_view::npos);
  return starts_with(m, "global_") || starts_with(m, "flat_") || starts_with(m, "buffer_") || starts_with(m, "s_load_") ||
         starts_with(m, "s_buffer_load_") || starts_with(m, "s_store_") || starts_with(m, "s_buffer_store_") ||
         starts_with(m, "s_atomic_") || starts_with(m, "s_buffer_atomic_");
}
}  // namespace

Inst parse_instruction(const Target& target, std::string_view text, std::uint64_t address, std::uint32_t size) {
  Inst in;
  in.address = address;
  in.size = size;
  text = trim(text);
  if (auto comment = text.find("//"); comment != std::string_view::npos) text = trim(text.substr(0, comment));
  in.text = std::string(text);
  const auto space = text.find(' ');
  const std::string_view printed = text.substr(0, space);
  const std::string_view mnemonic = canonical_mnemonic(base_mnemonic(printed));
  const std::string_view rest = space == std::string_view::npos ? std::string_view() : trim(text.substr(space));
  const OpInfo* op = find_op(mnemonic);
  in.fn = op ? op->fn : &unknown_instruction;
  if (op) std::copy(std::begin(op->type), std::end(op->type), in.type);
  if (printed.size() > 5 && printed.substr(printed.size() - 5) == "_sdwa") in.sdwa = true;

  // Operands at depth-0 commas; the last one may carry space-separated modifiers.
  std::vector<std::string_view> ops = split_top(rest, ',');
  std::vector<std::string_view> mods;
  if (!ops.empty()) {
    std::vector<std::string_view> tail = split_top(ops.back(), ' ');
    ops.back() = tail.empty() ? std::string_view() : tail.front();
    mods.assign(tail.begin() + (tail.empty() ? 0 : 1), tail.end());
  }
  const Format format = format_of(mnemonic);
  // gfx12's cache controls print their scope where an operand would be: "global_inv scope:SCOPE_SYS".
  if (format == Format::sopp && !ops.empty() && starts_with(ops[0], "scope:")) {
    mods.insert(mods.begin(), ops[0]);
    ops.erase(ops.begin());
  }
  // A modifier it does not know makes the instruction unknown, never silently ignored (gfx12's
  // th: and scope:, gfx90a's row_newbcast, ...); SOPP's operands (waitcnt counters, s_delay_alu's
  // fields) are not modifiers.
  for (std::string_view m : mods) {
    if (!apply_modifier(in, m) && format != Format::sopp) in.fn = &unknown_instruction, in.flags |= kUnknownModifier;
  }
  if ((in.flags & kClamp) && op && !op->int_clamp && clamp_saturates_integer(mnemonic)) in.fn = &unknown_instruction;

  std::size_t op_sel_entries = 0;  // how many halves the printed op_sel names
  for (std::string_view m : mods) {
    if (starts_with(m, "op_sel:")) op_sel_entries = list_of(m).size();
  }
  auto reg = [&](std::string_view s, Type t = Type::b32) { return parse_operand(s, t); };
  auto imm = [&](std::string_view s) {
    std::int64_t v = 0;
    if (!parse_int(s, &v)) {
      if (starts_with(s, "hwreg(")) return std::int64_t(hwreg(s));
      return std::int64_t(0);
    }
    return v;
  };
  switch (format) {
    case Format::sopp:
      if (!ops.empty() && (starts_with(mnemonic, "s_cbranch_") || mnemonic == "s_branch")) {
        const std::int32_t simm16 = std::int16_t(std::uint16_t(imm(ops[0])));
        in.simm = simm16;
        in.target = 0;  // resolved by the Program
      } else if (!ops.empty() && ops[0].find('(') == std::string_view::npos) {
        in.simm = std::int32_t(imm(ops[0]));
      }
      break;
    case Format::sopk:
      if (mnemonic == "s_setreg_b32") {
        in.simm = std::int32_t(imm(ops.at(0)));
        in.src[0] = reg(ops.at(1));
        in.nsrc = 1;
      } else if (mnemonic == "s_setreg_imm32_b32") {
        in.simm = std::int32_t(imm(ops.at(0)));
        in.src[0] = constant(ops.at(1), Type::b32);
        in.nsrc = 1;
      } else if (mnemonic == "s_set_gpr_idx_on") {
        in.src[0] = reg(ops.at(0));
        in.nsrc = 1;
        if (ops.size() > 1) apply_modifier(in, ops[1]);
      } else if (starts_with(mnemonic, "s_cmpk_")) {
        in.src[0] = reg(ops.at(0));
        in.nsrc = 1;
        in.simm = std::int32_t(imm(ops.at(1)));
      } else {  // s_movk, s_addk, s_mulk, s_cmovk, s_getreg: dst, immediate
        in.dst[0] = reg(ops.at(0));
        in.ndst = 1;
        in.simm = std::int32_t(imm(ops.at(1)));
      }
      break;
    case Format::smem: {
      // s_load_dwordx2 s[0:1], s[4:5], 0x8 | s_buffer_load_dword s0, s[8:11], s4
      if (!ops.empty()) in.dst[0] = reg(ops[0]), in.ndst = 1;
      if (ops.size() > 1) in.src[0] = reg(ops[1]), in.nsrc = 1;
      if (ops.size() > 2) {
        std::int64_t v = 0;
        if (parse_int(ops[2], &v)) in.offset = std::int32_t(v);
        else in.src[1] = reg(ops[2]), in.nsrc = 2;  // an SGPR offset (or null)
      }
      break;
    }
    case Format::ds: {
      // ds_read_b32 v0, v1 | ds_write_b32 v1, v2 | ds_add_rtn_u32 v0, v1, v2 | ds_write2_b32 v1, v2, v3
      // ds_bpermute_b32 v0, v1, v2 | ds_add_u32 v1, v2
      const bool returns = mnemonic.find("read") != std::string_view::npos ||
                           mnemonic.find("_rtn") != std::string_view::npos ||
                           mnemonic.find("permute") != std::string_view::npos ||
                           mnemonic == "ds_swizzle_b32" || mnemonic.find("_load") != std::string_view::npos;
      std::size_t i = 0;
      if (returns && !ops.empty()) in.dst[0] = reg(ops[i++]), in.ndst = 1;
      if (mnemonic == "ds_swizzle_b32") in.nsrc = 1;  // no address: src[1] is the data, as for the others
      for (; i < ops.size() && in.nsrc < 4; ++i) in.src[in.nsrc++] = reg(ops[i]);
      // gfx11's ds_cmpstore takes the new value first and the compared one second: the other way
      // round from ds_cmpst, whose semantics it shares.
      if (starts_with(base_mnemonic(printed), "ds_cmpstore")) std::swap(in.src[1], in.src[2]);
      break;
    }
    case Format::flat: {
      // global_load_dword v2, v[0:1], off | global_load_dword v1, v2, s[4:5] offset:16
      // global_store_dword v[0:1], v2, off | global_atomic_add v0, v[1:2], v3, off glc
      // scratch_load_dword v1, off, s0 | scratch_store_dword off, v0, s33 | flat_load_dword v0, v[0:1]
      const bool load = mnemonic.find("_load") != std::string_view::npos;
      const bool atomic_returns = mnemonic.find("_atomic") != std::string_view::npos && (in.flags & (kGlc | kSc0));
      std::size_t i = 0;
      if ((load || atomic_returns) && !ops.empty()) in.dst[0] = reg(ops[i++]), in.ndst = 1;
      if (i < ops.size()) in.src[0] = reg(ops[i++]);                     // address (or off)
      if (!load && i < ops.size()) in.src[1] = reg(ops[i++]);            // data (cmpswap: new, then compared)
      if (i < ops.size()) in.src[2] = reg(ops[i++]);                     // saddr (or off)
      in.nsrc = 3;
      break;
    }
    case Format::mubuf: {
      // buffer_store_dword v5, v3, s[0:3], 0 offen offset:4 | buffer_load_dword v1, off, s[0:3], s7
      // The cache controls (buffer_wbl2, buffer_invl2, buffer_wbinvl1_vol...) have no operands: HIP
      // emits them around device-side printf's system-scope atomics.
      if (ops.empty()) break;
      const bool load = mnemonic.find("_load") != std::string_view::npos;
      const bool atomic_returns = mnemonic.find("_atomic") != std::string_view::npos && (in.flags & kGlc);
      if (load || atomic_returns) in.dst[0] = reg(ops.at(0)), in.ndst = 1;
      else in.src[1] = reg(ops.at(0));                     // data
      in.src[0] = reg(ops.at(1));                          // vaddr (or off)
      in.src[2] = reg(ops.at(2));                          // the resource
      in.src[3] = reg(ops.size() > 3 ? ops[3] : std::string_view("0"));  // soffset
      if (atomic_returns) in.src[1] = reg(ops.at(0));
      in.nsrc = 4;
      break;
    }
    case Format::scalar:
    case Format::vector: {
      const std::size_t nsrc = op ? op->nsrc : 0;
      const std::size_t total = ops.size();
      const std::size_t ndst = total >= nsrc ? total - nsrc : 0;
      // gfx11's true16 operands ("v1.h", as LLVM 20 and later print 16-bit operations): the VGPR,
      // and the half as op_sel names it (bit i for source i, bit 3 for the destination), which the
      // 16-bit semantics read whatever the encoding.
      std::string unhalved;
      // (A source's type says whether it is 16 bits; the table has no result type, and only a
      // 16-bit result is printed as a half.)
      auto operand = [&](std::string_view text, Type t, int op_sel_bit) {
        const bool sixteen = op_sel_bit == 3 || t == Type::b16 || t == Type::f16;
        if (format == Format::vector && text.size() > 3 && text[text.size() - 2] == '.' &&
            (text.back() == 'l' || text.back() == 'h') && sixteen) {
          if (text.back() == 'h') in.op_sel |= std::uint8_t(1u << op_sel_bit);
          unhalved = std::string(text.substr(0, text.size() - 2));
          return reg(unhalved, t);
        }
        return reg(text, t);
      };
      const std::uint8_t printed_op_sel = in.op_sel;
      in.op_sel = 0;
      for (std::size_t d = 0; d < ndst && d < 2; ++d) in.dst[d] = operand(ops[d], d == 0 ? in.type[0] : Type::b64, 3);
      in.ndst = std::uint8_t(std::min<std::size_t>(ndst, 2));
      for (std::size_t s = 0; s < nsrc && ndst + s < total; ++s) in.src[s] = operand(ops[ndst + s], in.type[s], int(s));
      in.nsrc = std::uint8_t(std::min<std::size_t>(nsrc, total - ndst));
      // VOP3's op_sel is printed with an entry per source, then the destination's: with fewer than
      // three sources the destination's entry lands below bit 3, where the semantics read it.
      std::uint8_t sel = printed_op_sel;
      if (format == Format::vector && !starts_with(mnemonic, "v_pk_") && op_sel_entries == std::size_t(in.nsrc) + 1 && in.nsrc < 3) {
        const std::uint8_t dst_bit = std::uint8_t(1u << in.nsrc);
        sel = std::uint8_t((sel & ~dst_bit) | ((sel & dst_bit) ? 8 : 0));
      }
      in.op_sel |= sel;
      break;
    }
    case Format::waitcnt:
      break;
  }
  for (const Operand* o : {&in.dst[0], &in.dst[1], &in.src[0], &in.src[1], &in.src[2], &in.src[3], &in.src[4]}) {
    if (o->kind == Operand::unreadable) in.fn = &unknown_instruction, in.flags |= kUnknownOperand;
  }
  if (op && op->prepare && !(in.flags & kUnknownOperand)) op->prepare(in);
  if (target.sramecc && in.mem_d16) in.mem_d16 |= kD16ZeroesOtherHalf;
  in.yields = shares_memory(mnemonic);
  // Packed f32 (v_pk_add/mul/fma_f32): an inline float constant is the f32 in the operand's low
  // half and 0 in its high half, as packed 16-bit constants are on gfx9 (the compiler writes
  // op_sel_hi:0 for the constant where both halves want it: rocFFT's `v_pk_fma_f32 v[..], v[..],
  // 2.0, v[..] op_sel_hi:[1,0,1]`), not the double that 64-bit operands read.
  if (starts_with(mnemonic, "v_pk_") && mnemonic.size() > 4 && mnemonic.substr(mnemonic.size() - 4) == "_f32") {
    for (int s = 0; s < in.nsrc; ++s) {
      Operand& o = in.src[s];
      if (o.kind != Operand::constant || o.is_literal || o.width != 2) continue;
      double d = 0;
      std::memcpy(&d, &o.bits, 8);
      const double a = std::fabs(d);
      const bool inline_float = a == 0.5 || a == 1.0 || a == 2.0 || a == 4.0 || std::fabs(a - 0.15915494309189535) < 1e-7;
      if (inline_float) o.bits = f32_bits(float(d));
    }
  }
  plan_fast_paths(in);
  return in;
}

namespace {
void init_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUDisassembler();
  });
}

// The processor LLVM's disassembler is asked to decode for. LLVM 15 knows gfx940 but not gfx941 or
// gfx942 (asked for them, it ends the process), and the three share their encodings; LLVM 21 knows
// all but gfx940 and gfx941.
const char* disassembler_cpu(const std::string& processor) {
#if LLVM_VERSION_MAJOR < 16
  if (processor == "gfx941" || processor == "gfx942") return "gfx940";
#endif
#if LLVM_VERSION_MAJOR < 17
  // RDNA3.5 adds scalar float instructions that gfx1100 lacks: decoded as gfx1100, they would be
  // skipped as data.
  if (processor == "gfx1150" || processor == "gfx1151") {
    throw std::runtime_error("the ISA interpreter's disassembler (LLVM " + std::to_string(LLVM_VERSION_MAJOR) + ") does not know " +
                             processor + ": LLVM 17 or later does");
  }
#endif
#if LLVM_VERSION_MAJOR < 18
  // RDNA4's encodings are its own (LLVM 15 would end the process asked for them).
  if (processor.rfind("gfx12", 0) == 0) {
    throw std::runtime_error("the ISA interpreter's disassembler (LLVM " + std::to_string(LLVM_VERSION_MAJOR) + ") does not know " +
                             processor + ": LLVM 18 or later does");
  }
#endif
#if LLVM_VERSION_MAJOR < 20
  if (processor == "gfx950") {
    throw std::runtime_error("the ISA interpreter's disassembler (LLVM " + std::to_string(LLVM_VERSION_MAJOR) +
                             ") does not know gfx950: LLVM 20 or later does");
  }
#endif
  return processor.c_str();
}

// gfx9's VOP3 v_cmpx_* writes EXEC and an SGPR pair of its own (rocBLAS's Tensile kernels write
// s[56:57] so); LLVM 21's disassembler no longer decodes one whose pair is not EXEC. Decoded with
// EXEC in its place, then printed with the pair: the bytes it took, or 0 where it is not one.
std::size_t gfx9_cmpx_with_sgpr(LLVMDisasmContextRef dc, std::uint8_t* at, std::size_t left, std::uint64_t address,
                                char* text, std::size_t size) {
  if (left < 8) return 0;
  std::uint32_t word;
  std::memcpy(&word, at, 4);
  const std::uint32_t sdst = word & 0xff;
  if ((word >> 26) != 0x34 || sdst == 126 || (sdst > 101 && sdst != 106)) return 0;  // VOP3, an SGPR pair or VCC
  std::uint8_t patched[8];
  std::memcpy(patched, at, 8);
  patched[0] = 126;
  if (LLVMDisasmInstruction(dc, patched, 8, address, text, size) != 8) return 0;
  std::string t(text);
  const auto first = t.find_first_not_of(" \t");
  const auto space = t.find(' ', first);
  if (first == std::string::npos || t.compare(first, 7, "v_cmpx_") != 0 || space == std::string::npos ||
      t.compare(space + 1, 5, "exec,") != 0) {
    return 0;
  }
  const std::string pair = sdst == 106 ? "vcc" : "s[" + std::to_string(sdst) + ":" + std::to_string(sdst + 1) + "]";
  t.replace(space + 1, 4, pair);
  std::snprintf(text, size, "%s", t.c_str());
  return 8;
}

void note_registers(const Operand& o, std::uint16_t* max_v, std::uint16_t* max_a) {
  if (o.kind == Operand::vgpr) *max_v = std::max<std::uint16_t>(*max_v, std::uint16_t(o.reg + o.width));
  if (o.kind == Operand::agpr) *max_a = std::max<std::uint16_t>(*max_a, std::uint16_t(o.reg + o.width));
}
}  // namespace

Program::Program(const Target& target, std::uint64_t address, std::string_view code) : target_(target), address_(address) {
  init_llvm();
  register_all_ops();
  LLVMDisasmContextRef dc = LLVMCreateDisasmCPUFeatures("amdgcn-amd-amdhsa", disassembler_cpu(target.processor),
                                                        target.gfx10 && target.wave64 ? "+wavefrontsize64" : "",
                                                        nullptr, 0, nullptr, nullptr);
  if (!dc) throw std::runtime_error("LLVM has no AMDGPU disassembler for " + target.processor);
  struct Dispose {
    LLVMDisasmContextRef d;
    ~Dispose() { LLVMDisasmDispose(d); }
  } dispose{dc};
  by_word_.assign(code.size() / 4 + 1, 0);
  auto* bytes = reinterpret_cast<std::uint8_t*>(const_cast<char*>(code.data()));
  char text[512];
  for (std::size_t off = 0; off + 4 <= code.size();) {
    std::size_t len = LLVMDisasmInstruction(dc, bytes + off, code.size() - off, address + off, text, sizeof text);
    if (len == 0) {
      std::uint32_t word;
      std::memcpy(&word, bytes + off, 4);
      // gfx10's all-zero word is V_ILLEGAL, which LLVM 21 decodes so and LLVM 15 does not.
      if (target_.gfx10 && word == 0) {
        std::snprintf(text, sizeof text, "v_illegal");
        len = 4;
      } else if (std::size_t cmpx = gfx9_cmpx_with_sgpr(dc, bytes + off, code.size() - off, address + off, text, sizeof text)) {
        len = cmpx;
      } else {  // not an instruction (data, or padding): skip a word
        off += 4;
        continue;
      }
    }
    by_word_[off / 4] = std::uint32_t(insts_.size() + 1);
    if (target_.gfx11 && std::strstr(text, " :: ")) {
      for (Inst& half : dual_issue(target_, text, address + off, std::uint32_t(len))) keep(std::move(half), bytes + off);
    } else {
      keep(parse_instruction(target_, text, address + off, std::uint32_t(len)), bytes + off);
    }
    off += len;
  }
  for (std::uint32_t i = 0; i < insts_.size(); ++i) {
    Inst& in = insts_[i];
    in.next = i + 1 < insts_.size() ? i + 1 : i;
    const std::string_view m = base_mnemonic(std::string_view(in.text).substr(0, in.text.find(' ')));
    if (starts_with(m, "s_cbranch_") || m == "s_branch") {
      const std::uint64_t target_address = in.address + 4 + std::int64_t(in.simm) * 4;
      try {
        in.target = index_of(target_address);
      } catch (const std::out_of_range&) {
        in.target = std::uint32_t(insts_.size());  // outside the code: faults when taken
      }
    }
  }
}

// Records one decoded instruction: its mnemonic for coverage reports, its registers.
void Program::keep(Inst in, const std::uint8_t* at) {
  const std::string base(base_mnemonic(in.text.substr(0, in.text.find(' '))));
  // An integer instruction with clamp its handler does not saturate counts as an instruction of
  // its own: "v_sub_u32 clamp".
  const bool unsaturated = (in.flags & kClamp) && in.fn == &unknown_instruction && find_op(canonical_mnemonic(base)) != nullptr;
  // One with a modifier the parser does not know counts with that modifier: "global_load_dword th:TH_LOAD_NT".
  const std::string key = (in.flags & kUnknownModifier) ? base + " " + unknown_modifier_of(in)
                          : (in.flags & kUnknownOperand) ? base + " (an operand it cannot read)"
                          : unsaturated                 ? base + " clamp"
                                                        : base;
  const bool known = in.fn != &unknown_instruction;
  if (auto it = mnemonics_.find(key); it == mnemonics_.end()) mnemonics_.emplace(key, known);
  if (base == "ds_swizzle_b32") {  // the printer spells the pattern as a macro: take the encoded bits
    std::uint32_t word;
    std::memcpy(&word, at, 4);
    in.offset = std::int32_t(word & 0xffff);
  }
  for (const Operand& o : in.dst) note_registers(o, &max_vgpr_, &max_agpr_);
  for (const Operand& o : in.src) note_registers(o, &max_vgpr_, &max_agpr_);
  insts_.push_back(std::move(in));
}

std::uint32_t Program::index_of(std::uint64_t address) const {
  if (address < address_ || (address - address_) % 4 != 0 || (address - address_) / 4 >= by_word_.size() ||
      by_word_[(address - address_) / 4] == 0) {
    throw std::out_of_range("no instruction starts at 0x" + [address] {
      char b[32];
      std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(address));
      return std::string(b);
    }());
  }
  return by_word_[(address - address_) / 4] - 1;
}

}  // namespace hsad::isa
