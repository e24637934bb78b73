// The scalar unit: SOP1/SOP2/SOPC/SOPK arithmetic and logic, EXEC masking (s_*_saveexec),
// branches and program-counter moves, barriers, traps, hardware registers, scalar memory.
// Written from AMD's Vega/CDNA2 and RDNA2 ISA references.
#include <algorithm>
#include <chrono>
#include <cstring>

#include "semantics.hpp"
#include "whole_words.hpp"

namespace hsad::isa {
namespace {

using H = Handler;

std::uint32_t s0(const Wave& w, const Inst& in) { return scalar32(w, in.src[0]); }
std::uint32_t s1(const Wave& w, const Inst& in) { return scalar32(w, in.src[1]); }
std::uint64_t s0_64(const Wave& w, const Inst& in) { return scalar64(w, in.src[0]); }
std::uint64_t s1_64(const Wave& w, const Inst& in) { return scalar64(w, in.src[1]); }

// A 32-bit SOP2 result with SCC = result != 0 (the logic ops).
template <class F>
void logic32(Wave& w, const Inst& in, F f) {
  const std::uint32_t r = f(s0(w, in), s1(w, in));
  write_scalar32(w, in.dst[0], r);
  w.scc = r != 0;
}
template <class F>
void logic64(Wave& w, const Inst& in, F f) {
  const std::uint64_t r = f(s0_64(w, in), s1_64(w, in));
  write_scalar64(w, in.dst[0], r);
  w.scc = r != 0;
}

std::int32_t sext16(std::int32_t v) { return std::int16_t(std::uint16_t(v)); }

std::uint32_t bfe32(std::uint32_t v, std::uint32_t ctl, bool sign) {
  const std::uint32_t off = ctl & 31, width = (ctl >> 16) & 0x7f;
  if (width == 0) return 0;
  std::uint32_t r = v >> off;
  if (width < 32) {
    r &= (1u << width) - 1;
    if (sign && (r >> (width - 1)) & 1) r |= ~((1u << width) - 1);
  }
  return r;
}
std::uint64_t bfe64(std::uint64_t v, std::uint32_t ctl, bool sign) {
  const std::uint32_t off = ctl & 63, width = (ctl >> 16) & 0x7f;
  if (width == 0) return 0;
  std::uint64_t r = v >> off;
  if (width < 64) {
    r &= (1ull << width) - 1;
    if (sign && (r >> (width - 1)) & 1) r |= ~((1ull << width) - 1);
  }
  return r;
}

// EXEC-saving ops: D = EXEC; EXEC = f(S0, EXEC); SCC = EXEC != 0.
template <class F>
void saveexec(Wave& w, const Inst& in, F f) {
  const std::uint64_t old = w.exec();
  const std::uint64_t s = w.lanes == 32 ? scalar32(w, in.src[0]) : s0_64(w, in);
  const std::uint64_t e = f(s, old) & w.lane_mask();
  if (w.lanes == 32) write_scalar32(w, in.dst[0], std::uint32_t(old));
  else write_scalar64(w, in.dst[0], old);
  w.set_exec(e);
  w.scc = e != 0;
}

void jump(WorkGroup& g, Wave& w, const Inst& in, std::uint64_t address) {
  try {
    w.pc = g.program.index_of(address);
  } catch (const std::out_of_range&) {
    g.fault(w, in, "a jump to an address that holds no instruction");
  }
}

void branch_if(WorkGroup& g, Wave& w, const Inst& in, bool taken) {
  if (!taken) return;
  if (in.target >= g.program.size()) g.fault(w, in, "a branch out of the kernel's code");
  w.pc = in.target;
}

// Hardware registers (s_getreg / s_setreg): the simm16 packs id, offset and size - 1.
std::uint32_t hwreg_value(const WorkGroup& g, const Wave& w, std::uint32_t id) {
  switch (id) {
    case 1: return w.mode;
    case 4: return w.index;  // HW_ID: the wave's slot
    case 15: return std::uint32_t(kSharedAperture >> 48) << 16 | std::uint32_t(kPrivateAperture >> 48);  // SH_MEM_BASES
    case 20: return std::uint32_t(w.flat_scratch);
    case 21: return std::uint32_t(w.flat_scratch >> 32);
    default: (void)g; return 0;
  }
}

void s_getreg(WorkGroup& g, Wave& w, const Inst& in) {
  const std::uint32_t id = in.simm & 63, offset = (in.simm >> 6) & 31, size = ((in.simm >> 11) & 31) + 1;
  const std::uint32_t v = hwreg_value(g, w, id) >> offset;
  write_scalar32(w, in.dst[0], size == 32 ? v : v & ((1u << size) - 1));
}

void s_setreg(WorkGroup& g, Wave& w, const Inst& in) {
  const std::uint32_t id = in.simm & 63, offset = (in.simm >> 6) & 31, size = ((in.simm >> 11) & 31) + 1;
  const std::uint32_t mask = (size == 32 ? ~0u : (1u << size) - 1) << offset;
  const std::uint32_t value = (scalar32(w, in.src[0]) << offset) & mask;
  switch (id) {
    case 1: w.mode = (w.mode & ~mask) | value; break;
    case 20: w.flat_scratch = (w.flat_scratch & ~std::uint64_t(mask)) | value; break;
    case 21: w.flat_scratch = (w.flat_scratch & ~(std::uint64_t(mask) << 32)) | (std::uint64_t(value) << 32); break;
    default: (void)g; break;  // registers with no effect here (trap status, ...)
  }
}

// Scalar loads: N dwords from sbase + offset (an immediate, an SGPR, or both).
template <int N>
void s_load(WorkGroup& g, Wave& w, const Inst& in) {
  std::uint64_t address = scalar64(w, in.src[0]) + std::int64_t(in.offset);
  if (in.nsrc > 1) address += scalar32(w, in.src[1]);
  std::uint32_t v[N];
  read_whole_words(v, g.read_global(w, in, address, 4 * N), N);  // a 64-bit flag another work-group stores: whole
  for (int i = 0; i < N; ++i) write_scalar32(w, in.dst[0], v[i], i);
}

// gfx12's sub-dword scalar loads (s_load_u8, s_load_i16, ...): one byte or half-word, zero- or
// sign-extended into the SGPR.
template <int Bytes, bool Signed>
void s_load_sub(WorkGroup& g, Wave& w, const Inst& in) {
  std::uint64_t address = scalar64(w, in.src[0]) + std::int64_t(in.offset);
  if (in.nsrc > 1) address += scalar32(w, in.src[1]);
  const std::uint8_t* p = g.read_global(w, in, address, Bytes);
  std::uint32_t v = Bytes == 1 ? p[0] : std::uint32_t(p[0] | (p[1] << 8));
  if (Signed) v = Bytes == 1 ? std::uint32_t(std::int8_t(v)) : std::uint32_t(std::int16_t(v));
  write_scalar32(w, in.dst[0], v);
}

// Scalar buffer loads: through a buffer resource (base, num_records); a dword past num_records
// reads 0. The dwords inside are read in one access, as s_load reads its N: aligned 64- and
// 128-bit words whole (whole_words.hpp), and the memory looked up once, not once a dword (so a
// range running from one allocation into the next faults, as an s_load's does; and an offset
// whose dwords would end past 2^64, a negative immediate's, reads 0 rather than wrap below the base).
template <int N>
void s_buffer_load(WorkGroup& g, Wave& w, const Inst& in) {
  const std::uint64_t base = scalar32(w, in.src[0], 0) | (std::uint64_t(scalar32(w, in.src[0], 1) & 0xffff) << 32);
  const std::uint32_t records = scalar32(w, in.src[0], 2);
  std::uint64_t offset = std::uint64_t(std::int64_t(in.offset));
  if (in.nsrc > 1) offset += scalar32(w, in.src[1]);
  // Dword i is inside where offset + 4i + 4 <= records.
  const std::uint64_t inside =
      records >= 4 && offset <= records - 4 ? std::min<std::uint64_t>(N, (records - 4 - offset) / 4 + 1) : 0;
  std::uint32_t v[N] = {};
  if (inside) read_whole_words(v, g.read_global(w, in, base + offset, std::uint32_t(4 * inside)), std::uint32_t(inside));
  for (int i = 0; i < N; ++i) write_scalar32(w, in.dst[0], v[i], i);
}

std::uint64_t now_ticks() {
  return std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
}

void reg(const char* name, H fn, std::uint8_t nsrc, Type t0 = Type::b32, Type t1 = Type::b32, Type t2 = Type::b32) {
  OpInfo info;
  info.fn = fn;
  info.nsrc = nsrc;
  info.type[0] = t0, info.type[1] = t1, info.type[2] = t2;
  register_op(name, info);
}

}  // namespace

void register_scalar_ops() {
  constexpr Type b64 = Type::b64, i64 = Type::i64;
  // ---- SOP2
  reg("s_add_u32", [](WorkGroup&, Wave& w, const Inst& in) {
    const std::uint64_t r = std::uint64_t(s0(w, in)) + s1(w, in);
    write_scalar32(w, in.dst[0], std::uint32_t(r));
    w.scc = r >> 32;
  }, 2);
  reg("s_sub_u32", [](WorkGroup&, Wave& w, const Inst& in) {
    const std::uint32_t a = s0(w, in), b = s1(w, in);
    write_scalar32(w, in.dst[0], a - b);
    w.scc = b > a;
  }, 2);
  reg("s_addc_u32", [](WorkGroup&, Wave& w, const Inst& in) {
    const std::uint64_t r = std::uint64_t(s0(w, in)) + s1(w, in) + (w.scc ? 1 : 0);
    write_scalar32(w, in.dst[0], std::uint32_t(r));
    w.scc = r >> 32;
  }, 2);
  reg("s_subb_u32", [](WorkGroup&, Wave& w, const Inst& in) {
    const std::uint64_t a = s0(w, in), b = std::uint64_t(s1(w, in)) + (w.scc ? 1 : 0);
    write_scalar32(w, in.dst[0], std::uint32_t(a - b));
    w.scc = b > a;
  }, 2);
  reg("s_add_i32", [](WorkGroup&, Wave& w, const Inst& in) {
    const std::int32_t a = std::int32_t(s0(w, in)), b = std::int32_t(s1(w, in));
    const std::int32_t r = std::int32_t(std::uint32_t(a) + std::uint32_t(b));
    write_scalar32(w, in.dst[0], std::uint32_t(r));
    w.scc = ((a >= 0) == (b >= 0)) && ((r >= 0) != (a >= 0));
  }, 2);
  reg("s_sub_i32", [](WorkGroup&, Wave& w, const Inst& in) {
    const std::int32_t a = std::int32_t(s0(w, in)), b = std::int32_t(s1(w, in));
    const std::int32_t r = std::int32_t(std::uint32_t(a) - std::uint32_t(b));
    write_scalar32(w, in.dst[0], std::uint32_t(r));
    w.scc = ((a >= 0) != (b >= 0)) && ((r >= 0) != (a >= 0));
  }, 2);
  reg("s_min_i32", [](WorkGroup&, Wave& w, const Inst& in) {
    const std::int32_t a = std::int32_t(s0(w, in)), b = std::int32_t(s1(w, in));
    write_scalar32(w, in.dst[0], std::uint32_t(a < b ? a : b));
    w.scc = a < b;
  }, 2);
  reg("s_min_u32", [](WorkGroup&, Wave& w, const Inst& in) {
    const std::uint32_t a = s0(w, in), b = s1(w, in);
    write_scalar32(w, in.dst[0], a < b ? a : b);
    w.scc = a < b;
  }, 2);
  reg("s_max_i32", [](WorkGroup&, Wave& w, const Inst& in) {
    const std::int32_t a = std::int32_t(s0(w, in)), b = std::int32_t(s1(w, in));
    write_scalar32(w, in.dst[0], std::uint32_t(a > b ? a : b));
    w.scc = a > b;
  }, 2);
  reg("s_max_u32", [](WorkGroup&, Wave& w, const Inst& in) {
    const std::uint32_t a = s0(w, in), b = s1(w, in);
    write_scalar32(w, in.dst[0], a > b ? a : b);
    w.scc = a > b;
  }, 2);
  reg("s_cselect_b32", [](WorkGroup&, Wave& w, const Inst& in) { write_scalar32(w, in.dst[0], w.scc ? s0(w, in) : s1(w, in)); }, 2);
  reg("s_cselect_b64", [](WorkGroup&, Wave& w, const Inst& in) { write_scalar64(w, in.dst[0], w.scc ? s0_64(w, in) : s1_64(w, in)); }, 2, b64, b64);
  reg("s_and_b32", [](WorkGroup&, Wave& w, const Inst& in) { logic32(w, in, [](auto a, auto b) { return a & b; }); }, 2);
  reg("s_or_b32", [](WorkGroup&, Wave& w, const Inst& in) { logic32(w, in, [](auto a, auto b) { return a | b; }); }, 2);
  reg("s_xor_b32", [](WorkGroup&, Wave& w, const Inst& in) { logic32(w, in, [](auto a, auto b) { return a ^ b; }); }, 2);
  reg("s_andn2_b32", [](WorkGroup&, Wave& w, const Inst& in) { logic32(w, in, [](auto a, auto b) { return a & ~b; }); }, 2);
  reg("s_orn2_b32", [](WorkGroup&, Wave& w, const Inst& in) { logic32(w, in, [](auto a, auto b) { return a | ~b; }); }, 2);
  reg("s_nand_b32", [](WorkGroup&, Wave& w, const Inst& in) { logic32(w, in, [](auto a, auto b) { return ~(a & b); }); }, 2);
  reg("s_nor_b32", [](WorkGroup&, Wave& w, const Inst& in) { logic32(w, in, [](auto a, auto b) { return ~(a | b); }); }, 2);
  reg("s_xnor_b32", [](WorkGroup&, Wave& w, const Inst& in) { logic32(w, in, [](auto a, auto b) { return ~(a ^ b); }); }, 2);
  reg("s_and_b64", [](WorkGroup&, Wave& w, const Inst& in) { logic64(w, in, [](auto a, auto b) { return a & b; }); }, 2, b64, b64);
  reg("s_or_b64", [](WorkGroup&, Wave& w, const Inst& in) { logic64(w, in, [](auto a, auto b) { return a | b; }); }, 2, b64, b64);
  reg("s_xor_b64", [](WorkGroup&, Wave& w, const Inst& in) { logic64(w, in, [](auto a, auto b) { return a ^ b; }); }, 2, b64, b64);
  reg("s_andn2_b64", [](WorkGroup&, Wave& w, const Inst& in) { logic64(w, in, [](auto a, auto b) { return a & ~b; }); }, 2, b64, b64);
  reg("s_orn2_b64", [](WorkGroup&, Wave& w, const Inst& in) { logic64(w, in, [](auto a, auto b) { return a | ~b; }); }, 2, b64, b64);
  reg("s_nand_b64", [](WorkGroup&, Wave& w, const Inst& in) { logic64(w, in, [](auto a, auto b) { return ~(a & b); }); }, 2, b64, b64);
  reg("s_nor_b64", [](WorkGroup&, Wave& w, const Inst& in) { logic64(w, in, [](auto a, auto b) { return ~(a | b); }); }, 2, b64, b64);
  reg("s_xnor_b64", [](WorkGroup&, Wave& w, const Inst& in) { logic64(w, in, [](auto a, auto b) { return ~(a ^ b); }); }, 2, b64, b64);
  reg("s_lshl_b32", [](WorkGroup&, Wave& w, const Inst& in) { logic32(w, in, [](auto a, auto b) { return a << (b & 31); }); }, 2);
  reg("s_lshr_b32", [](WorkGroup&, Wave& w, const Inst& in) { logic32(w, in, [](auto a, auto b) { return a >> (b & 31); }); }, 2);
  reg("s_ashr_i32", [](WorkGroup&, Wave& w, const Inst& in) {
    logic32(w, in, [](auto a, auto b) { return std::uint32_t(std::int32_t(a) >> (b & 31)); });
  }, 2);
  reg("s_lshl_b64", [](WorkGroup&, Wave& w, const Inst& in) {
    const std::uint64_t r = s0_64(w, in) << (s1(w, in) & 63);
    write_scalar64(w, in.dst[0], r);
    w.scc = r != 0;
  }, 2, b64);
  reg("s_lshr_b64", [](WorkGroup&, Wave& w, const Inst& in) {
    const std::uint64_t r = s0_64(w, in) >> (s1(w, in) & 63);
    write_scalar64(w, in.dst[0], r);
    w.scc = r != 0;
  }, 2, b64);
  reg("s_ashr_i64", [](WorkGroup&, Wave& w, const Inst& in) {
    const std::uint64_t r = std::uint64_t(std::int64_t(s0_64(w, in)) >> (s1(w, in) & 63));
    write_scalar64(w, in.dst[0], r);
    w.scc = r != 0;
  }, 2, i64);
  reg("s_bfm_b32", [](WorkGroup&, Wave& w, const Inst& in) {
    write_scalar32(w, in.dst[0], ((1u << (s0(w, in) & 31)) - 1) << (s1(w, in) & 31));
  }, 2);
  reg("s_bfm_b64", [](WorkGroup&, Wave& w, const Inst& in) {
    write_scalar64(w, in.dst[0], ((1ull << (s0(w, in) & 63)) - 1) << (s1(w, in) & 63));
  }, 2);
  reg("s_mul_i32", [](WorkGroup&, Wave& w, const Inst& in) { write_scalar32(w, in.dst[0], s0(w, in) * s1(w, in)); }, 2);
  reg("s_mul_hi_u32", [](WorkGroup&, Wave& w, const Inst& in) {
    write_scalar32(w, in.dst[0], std::uint32_t((std::uint64_t(s0(w, in)) * s1(w, in)) >> 32));
  }, 2);
  reg("s_mul_hi_i32", [](WorkGroup&, Wave& w, const Inst& in) {
    write_scalar32(w, in.dst[0], std::uint32_t((std::int64_t(std::int32_t(s0(w, in))) * std::int32_t(s1(w, in))) >> 32));
  }, 2);
  reg("s_bfe_u32", [](WorkGroup&, Wave& w, const Inst& in) { logic32(w, in, [](auto a, auto b) { return bfe32(a, b, false); }); }, 2);
  reg("s_bfe_i32", [](WorkGroup&, Wave& w, const Inst& in) { logic32(w, in, [](auto a, auto b) { return bfe32(a, b, true); }); }, 2);
  reg("s_bfe_u64", [](WorkGroup&, Wave& w, const Inst& in) {
    const std::uint64_t r = bfe64(s0_64(w, in), s1(w, in), false);
    write_scalar64(w, in.dst[0], r);
    w.scc = r != 0;
  }, 2, b64);
  reg("s_bfe_i64", [](WorkGroup&, Wave& w, const Inst& in) {
    const std::uint64_t r = bfe64(s0_64(w, in), s1(w, in), true);
    write_scalar64(w, in.dst[0], r);
    w.scc = r != 0;
  }, 2, i64);
  reg("s_absdiff_i32", [](WorkGroup&, Wave& w, const Inst& in) {
    const std::int64_t d = std::int64_t(std::int32_t(s0(w, in))) - std::int32_t(s1(w, in));
    const std::uint32_t r = std::uint32_t(d < 0 ? -d : d);
    write_scalar32(w, in.dst[0], r);
    w.scc = r != 0;
  }, 2);
  for (int n = 1; n <= 4; ++n) {
    static const char* names[] = {"", "s_lshl1_add_u32", "s_lshl2_add_u32", "s_lshl3_add_u32", "s_lshl4_add_u32"};
    static H fns[] = {nullptr,
                      [](WorkGroup&, Wave& w, const Inst& in) { const std::uint64_t r = (std::uint64_t(s0(w, in)) << 1) + s1(w, in); write_scalar32(w, in.dst[0], std::uint32_t(r)); w.scc = r >> 32; },
                      [](WorkGroup&, Wave& w, const Inst& in) { const std::uint64_t r = (std::uint64_t(s0(w, in)) << 2) + s1(w, in); write_scalar32(w, in.dst[0], std::uint32_t(r)); w.scc = r >> 32; },
                      [](WorkGroup&, Wave& w, const Inst& in) { const std::uint64_t r = (std::uint64_t(s0(w, in)) << 3) + s1(w, in); write_scalar32(w, in.dst[0], std::uint32_t(r)); w.scc = r >> 32; },
                      [](WorkGroup&, Wave& w, const Inst& in) { const std::uint64_t r = (std::uint64_t(s0(w, in)) << 4) + s1(w, in); write_scalar32(w, in.dst[0], std::uint32_t(r)); w.scc = r >> 32; }};
    reg(names[n], fns[n], 2);
  }
  reg("s_pack_ll_b32_b16", [](WorkGroup&, Wave& w, const Inst& in) { write_scalar32(w, in.dst[0], (s0(w, in) & 0xffff) | (s1(w, in) << 16)); }, 2);
  reg("s_pack_lh_b32_b16", [](WorkGroup&, Wave& w, const Inst& in) { write_scalar32(w, in.dst[0], (s0(w, in) & 0xffff) | (s1(w, in) & 0xffff0000u)); }, 2);
  reg("s_pack_hh_b32_b16", [](WorkGroup&, Wave& w, const Inst& in) { write_scalar32(w, in.dst[0], (s0(w, in) >> 16) | (s1(w, in) & 0xffff0000u)); }, 2);

  // ---- SOP1
  reg("s_mov_b32", [](WorkGroup&, Wave& w, const Inst& in) { write_scalar32(w, in.dst[0], s0(w, in)); }, 1);
  reg("s_mov_b64", [](WorkGroup&, Wave& w, const Inst& in) { write_scalar64(w, in.dst[0], s0_64(w, in)); }, 1, b64);
  reg("s_cmov_b32", [](WorkGroup&, Wave& w, const Inst& in) { if (w.scc) write_scalar32(w, in.dst[0], s0(w, in)); }, 1);
  reg("s_cmov_b64", [](WorkGroup&, Wave& w, const Inst& in) { if (w.scc) write_scalar64(w, in.dst[0], s0_64(w, in)); }, 1, b64);
  reg("s_not_b32", [](WorkGroup&, Wave& w, const Inst& in) { const std::uint32_t r = ~s0(w, in); write_scalar32(w, in.dst[0], r); w.scc = r != 0; }, 1);
  reg("s_not_b64", [](WorkGroup&, Wave& w, const Inst& in) { const std::uint64_t r = ~s0_64(w, in); write_scalar64(w, in.dst[0], r); w.scc = r != 0; }, 1, b64);
  reg("s_brev_b32", [](WorkGroup&, Wave& w, const Inst& in) {
    std::uint32_t v = s0(w, in), r = 0;
    for (int i = 0; i < 32; ++i) r |= ((v >> i) & 1u) << (31 - i);
    write_scalar32(w, in.dst[0], r);
  }, 1);
  reg("s_bcnt1_i32_b32", [](WorkGroup&, Wave& w, const Inst& in) { const std::uint32_t r = __builtin_popcount(s0(w, in)); write_scalar32(w, in.dst[0], r); w.scc = r != 0; }, 1);
  reg("s_bcnt1_i32_b64", [](WorkGroup&, Wave& w, const Inst& in) { const std::uint32_t r = __builtin_popcountll(s0_64(w, in)); write_scalar32(w, in.dst[0], r); w.scc = r != 0; }, 1, b64);
  reg("s_bcnt0_i32_b32", [](WorkGroup&, Wave& w, const Inst& in) { const std::uint32_t r = 32 - __builtin_popcount(s0(w, in)); write_scalar32(w, in.dst[0], r); w.scc = r != 0; }, 1);
  reg("s_ff1_i32_b32", [](WorkGroup&, Wave& w, const Inst& in) { const std::uint32_t v = s0(w, in); write_scalar32(w, in.dst[0], v ? __builtin_ctz(v) : ~0u); }, 1);
  reg("s_ff1_i32_b64", [](WorkGroup&, Wave& w, const Inst& in) { const std::uint64_t v = s0_64(w, in); write_scalar32(w, in.dst[0], v ? __builtin_ctzll(v) : ~0u); }, 1, b64);
  reg("s_ff0_i32_b32", [](WorkGroup&, Wave& w, const Inst& in) { const std::uint32_t v = ~s0(w, in); write_scalar32(w, in.dst[0], v ? __builtin_ctz(v) : ~0u); }, 1);
  reg("s_flbit_i32_b32", [](WorkGroup&, Wave& w, const Inst& in) { const std::uint32_t v = s0(w, in); write_scalar32(w, in.dst[0], v ? __builtin_clz(v) : ~0u); }, 1);
  reg("s_flbit_i32_b64", [](WorkGroup&, Wave& w, const Inst& in) { const std::uint64_t v = s0_64(w, in); write_scalar32(w, in.dst[0], v ? __builtin_clzll(v) : ~0u); }, 1, b64);
  reg("s_sext_i32_i8", [](WorkGroup&, Wave& w, const Inst& in) { write_scalar32(w, in.dst[0], std::uint32_t(std::int32_t(std::int8_t(s0(w, in))))); }, 1);
  reg("s_sext_i32_i16", [](WorkGroup&, Wave& w, const Inst& in) { write_scalar32(w, in.dst[0], std::uint32_t(std::int32_t(std::int16_t(s0(w, in))))); }, 1);
  reg("s_abs_i32", [](WorkGroup&, Wave& w, const Inst& in) {
    const std::int32_t v = std::int32_t(s0(w, in));
    const std::uint32_t r = std::uint32_t(v < 0 ? -std::int64_t(v) : v);
    write_scalar32(w, in.dst[0], r);
    w.scc = r != 0;
  }, 1);
  reg("s_bitset0_b32", [](WorkGroup&, Wave& w, const Inst& in) { write_scalar32(w, in.dst[0], scalar32(w, in.dst[0]) & ~(1u << (s0(w, in) & 31))); }, 1);
  reg("s_bitset1_b32", [](WorkGroup&, Wave& w, const Inst& in) { write_scalar32(w, in.dst[0], scalar32(w, in.dst[0]) | (1u << (s0(w, in) & 31))); }, 1);
  reg("s_getpc_b64", [](WorkGroup&, Wave& w, const Inst& in) { write_scalar64(w, in.dst[0], in.address + in.size); }, 0);
  reg("s_setpc_b64", [](WorkGroup& g, Wave& w, const Inst& in) { jump(g, w, in, s0_64(w, in)); }, 1, b64);
  reg("s_swappc_b64", [](WorkGroup& g, Wave& w, const Inst& in) {
    const std::uint64_t to = s0_64(w, in);
    write_scalar64(w, in.dst[0], in.address + in.size);
    jump(g, w, in, to);
  }, 1, b64);
  for (const char* suffix : {"_b32", "_b64"}) {
    const Type t = suffix[2] == '6' ? b64 : Type::b32;
    auto name = [&](const char* op) { return std::string("s_") + op + "_saveexec" + suffix; };
    static std::vector<std::string> keep;  // register_op keeps the name's characters
    auto add = [&](const char* op, H fn) {
      keep.push_back(name(op));
      reg(keep.back().c_str(), fn, 1, t);
    };
    add("and", [](WorkGroup&, Wave& w, const Inst& in) { saveexec(w, in, [](auto s, auto e) { return s & e; }); });
    add("or", [](WorkGroup&, Wave& w, const Inst& in) { saveexec(w, in, [](auto s, auto e) { return s | e; }); });
    add("xor", [](WorkGroup&, Wave& w, const Inst& in) { saveexec(w, in, [](auto s, auto e) { return s ^ e; }); });
    add("andn2", [](WorkGroup&, Wave& w, const Inst& in) { saveexec(w, in, [](auto s, auto e) { return s & ~e; }); });
    add("orn2", [](WorkGroup&, Wave& w, const Inst& in) { saveexec(w, in, [](auto s, auto e) { return s | ~e; }); });
    add("nand", [](WorkGroup&, Wave& w, const Inst& in) { saveexec(w, in, [](auto s, auto e) { return ~(s & e); }); });
    add("nor", [](WorkGroup&, Wave& w, const Inst& in) { saveexec(w, in, [](auto s, auto e) { return ~(s | e); }); });
    add("xnor", [](WorkGroup&, Wave& w, const Inst& in) { saveexec(w, in, [](auto s, auto e) { return ~(s ^ e); }); });
    add("andn1", [](WorkGroup&, Wave& w, const Inst& in) { saveexec(w, in, [](auto s, auto e) { return ~s & e; }); });
    add("orn1", [](WorkGroup&, Wave& w, const Inst& in) { saveexec(w, in, [](auto s, auto e) { return ~s | e; }); });
  }
  reg("s_movrels_b32", [](WorkGroup&, Wave& w, const Inst& in) { write_scalar32(w, in.dst[0], w.s[(in.src[0].reg + w.s[kRegM0]) & 127]); }, 1);
  reg("s_movreld_b32", [](WorkGroup&, Wave& w, const Inst& in) { w.s[(in.dst[0].reg + w.s[kRegM0]) & 127] = s0(w, in); }, 1);

  // ---- SOPC
  reg("s_cmp_eq_i32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = s0(w, in) == s1(w, in); }, 2);
  reg("s_cmp_lg_i32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = s0(w, in) != s1(w, in); }, 2);
  reg("s_cmp_gt_i32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = std::int32_t(s0(w, in)) > std::int32_t(s1(w, in)); }, 2);
  reg("s_cmp_ge_i32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = std::int32_t(s0(w, in)) >= std::int32_t(s1(w, in)); }, 2);
  reg("s_cmp_lt_i32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = std::int32_t(s0(w, in)) < std::int32_t(s1(w, in)); }, 2);
  reg("s_cmp_le_i32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = std::int32_t(s0(w, in)) <= std::int32_t(s1(w, in)); }, 2);
  reg("s_cmp_eq_u32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = s0(w, in) == s1(w, in); }, 2);
  reg("s_cmp_lg_u32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = s0(w, in) != s1(w, in); }, 2);
  reg("s_cmp_gt_u32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = s0(w, in) > s1(w, in); }, 2);
  reg("s_cmp_ge_u32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = s0(w, in) >= s1(w, in); }, 2);
  reg("s_cmp_lt_u32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = s0(w, in) < s1(w, in); }, 2);
  reg("s_cmp_le_u32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = s0(w, in) <= s1(w, in); }, 2);
  reg("s_cmp_eq_u64", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = s0_64(w, in) == s1_64(w, in); }, 2, b64, b64);
  reg("s_cmp_lg_u64", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = s0_64(w, in) != s1_64(w, in); }, 2, b64, b64);
  reg("s_bitcmp0_b32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = !((s0(w, in) >> (s1(w, in) & 31)) & 1); }, 2);
  reg("s_bitcmp1_b32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = (s0(w, in) >> (s1(w, in) & 31)) & 1; }, 2);
  reg("s_bitcmp0_b64", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = !((s0_64(w, in) >> (s1(w, in) & 63)) & 1); }, 2, b64);
  reg("s_bitcmp1_b64", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = (s0_64(w, in) >> (s1(w, in) & 63)) & 1; }, 2, b64);

  // ---- SOPK
  reg("s_movk_i32", [](WorkGroup&, Wave& w, const Inst& in) { write_scalar32(w, in.dst[0], std::uint32_t(sext16(in.simm))); }, 0);
  reg("s_cmovk_i32", [](WorkGroup&, Wave& w, const Inst& in) { if (w.scc) write_scalar32(w, in.dst[0], std::uint32_t(sext16(in.simm))); }, 0);
  reg("s_addk_i32", [](WorkGroup&, Wave& w, const Inst& in) {
    const std::int32_t a = std::int32_t(scalar32(w, in.dst[0])), b = sext16(in.simm);
    const std::int32_t r = std::int32_t(std::uint32_t(a) + std::uint32_t(b));
    write_scalar32(w, in.dst[0], std::uint32_t(r));
    w.scc = ((a >= 0) == (b >= 0)) && ((r >= 0) != (a >= 0));
  }, 0);
  reg("s_mulk_i32", [](WorkGroup&, Wave& w, const Inst& in) {
    write_scalar32(w, in.dst[0], scalar32(w, in.dst[0]) * std::uint32_t(sext16(in.simm)));
  }, 0);
  reg("s_cmpk_eq_i32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = std::int32_t(s0(w, in)) == sext16(in.simm); }, 1);
  reg("s_cmpk_lg_i32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = std::int32_t(s0(w, in)) != sext16(in.simm); }, 1);
  reg("s_cmpk_gt_i32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = std::int32_t(s0(w, in)) > sext16(in.simm); }, 1);
  reg("s_cmpk_ge_i32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = std::int32_t(s0(w, in)) >= sext16(in.simm); }, 1);
  reg("s_cmpk_lt_i32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = std::int32_t(s0(w, in)) < sext16(in.simm); }, 1);
  reg("s_cmpk_le_i32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = std::int32_t(s0(w, in)) <= sext16(in.simm); }, 1);
  reg("s_cmpk_eq_u32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = s0(w, in) == (std::uint32_t(in.simm) & 0xffff); }, 1);
  reg("s_cmpk_lg_u32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = s0(w, in) != (std::uint32_t(in.simm) & 0xffff); }, 1);
  reg("s_cmpk_gt_u32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = s0(w, in) > (std::uint32_t(in.simm) & 0xffff); }, 1);
  reg("s_cmpk_ge_u32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = s0(w, in) >= (std::uint32_t(in.simm) & 0xffff); }, 1);
  reg("s_cmpk_lt_u32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = s0(w, in) < (std::uint32_t(in.simm) & 0xffff); }, 1);
  reg("s_cmpk_le_u32", [](WorkGroup&, Wave& w, const Inst& in) { w.scc = s0(w, in) <= (std::uint32_t(in.simm) & 0xffff); }, 1);
  reg("s_getreg_b32", &s_getreg, 0);
  reg("s_setreg_b32", &s_setreg, 1);
  reg("s_setreg_imm32_b32", &s_setreg, 1);
  // gfx9 VGPR indexing: M0[7:0] holds the index, the instruction names the operands it applies to.
  reg("s_set_gpr_idx_on", [](WorkGroup&, Wave& w, const Inst& in) {
    w.s[kRegM0] = (w.s[kRegM0] & ~0xffu) | (s0(w, in) & 0xff);
    w.gpr_idx_on = true;
    w.gpr_idx_mode = in.gpr_idx_mode;
  }, 1);
  reg("s_set_gpr_idx_off", [](WorkGroup&, Wave& w, const Inst&) { w.gpr_idx_on = false; }, 0);
  reg("s_set_gpr_idx_idx", [](WorkGroup&, Wave& w, const Inst& in) { w.s[kRegM0] = (w.s[kRegM0] & ~0xffu) | (s0(w, in) & 0xff); }, 1);

  // ---- SOPP: control
  H nothing = [](WorkGroup&, Wave&, const Inst&) {};
  for (const char* n : {"s_nop", "s_waitcnt", "s_waitcnt_vscnt", "s_waitcnt_vmcnt", "s_waitcnt_lgkmcnt", "s_waitcnt_expcnt",
                        "s_clause", "s_inst_prefetch", "s_sleep", "s_setprio", "s_icache_inv", "s_dcache_inv",
                        "s_dcache_wb", "s_sendmsg", "s_ttracedata", "buffer_gl0_inv", "buffer_gl1_inv", "buffer_wbinvl1",
                        "buffer_wbinvl1_vol", "s_dcache_inv_vol", "s_round_mode",
                        // gfx11's scheduling hints: an interpreter that finishes each instruction
                        // before the next has no ALU dependency to wait for, nor a prefetch.
                        "s_delay_alu", "s_set_inst_prefetch_distance", "s_waitcnt_depctr",
                        // gfx12's split counters: each instruction is complete before the next.
                        "s_wait_loadcnt", "s_wait_storecnt", "s_wait_dscnt", "s_wait_kmcnt", "s_wait_samplecnt",
                        "s_wait_bvhcnt", "s_wait_expcnt", "s_wait_alu", "s_wait_loadcnt_dscnt", "s_wait_storecnt_dscnt",
                        "s_wait_event"}) {
    reg(n, nothing, 0);  // the caches nearer the CUs are not modelled: they hold nothing
  }
  // gfx90a's L2 controls, which a release and an acquire at system scope emit (LLVM's memory
  // model for GFX90A): what the cache model's L2 does at a packet's system-scope fences.
  // On gfx94x the scope is in the bits (LLVM's memory model for GFX942): sc1 alone is agent scope,
  // which the one modelled L2 already serves (its XCCs' several L2s are not modelled); sc0 and sc1
  // together are system scope, which reaches the L2. gfx90a's forms carry neither: system scope.
  reg("buffer_wbl2", [](WorkGroup& g, Wave&, const Inst& in) {
    if (!(in.flags & kSc1) || (in.flags & kSc0)) g.memory.write_back_l2();
  }, 0);
  reg("buffer_invl2", [](WorkGroup& g, Wave&, const Inst&) { g.memory.invalidate_l2(); }, 0);
  // gfx94x's invalidate: the L2 at system scope (sc0 sc1), the nearer caches (not modelled) below it.
  reg("buffer_inv", [](WorkGroup& g, Wave&, const Inst& in) {
    if ((in.flags & kSc0) && (in.flags & kSc1)) g.memory.invalidate_l2();
  }, 0);
  reg("s_denorm_mode", [](WorkGroup&, Wave& w, const Inst& in) { w.mode = (w.mode & ~0xf0u) | ((in.simm & 0xf) << 4); }, 0);
  reg("s_endpgm", [](WorkGroup&, Wave& w, const Inst&) { w.state = Wave::State::done; }, 0);
  reg("s_code_end", [](WorkGroup& g, Wave& w, const Inst& in) { g.fault(w, in, "execution ran past the end of the kernel"); }, 0);
  reg("s_barrier", [](WorkGroup&, Wave& w, const Inst&) { w.state = Wave::State::barrier; }, 0);
  // gfx12's barrier in two halves: the wave signals, works on, and waits. Waiting where the others
  // signalled is the same barrier, held at the wait (nothing between the halves depends on it).
  reg("s_barrier_signal", nothing, 0);
  reg("s_barrier_wait", [](WorkGroup&, Wave& w, const Inst&) { w.state = Wave::State::barrier; }, 0);
  // gfx12's cache controls (LLVM's memory model for GFX12): at system scope they reach the L2; at
  // device scope the one modelled L2 already serves every work-group.
  reg("global_inv", [](WorkGroup& g, Wave&, const Inst& in) {
    if (in.flags & kScopeSys) g.memory.invalidate_l2();
  }, 0);
  reg("global_wb", [](WorkGroup& g, Wave&, const Inst& in) {
    if (in.flags & kScopeSys) g.memory.write_back_l2();
  }, 0);
  reg("global_wbinv", [](WorkGroup& g, Wave&, const Inst& in) {
    if (in.flags & kScopeSys) g.memory.write_back_l2(), g.memory.invalidate_l2();
  }, 0);
  // gfx12's 64-bit scalar arithmetic: the low 64 bits, SCC unchanged.
  reg("s_add_nc_u64", [](WorkGroup&, Wave& w, const Inst& in) { write_scalar64(w, in.dst[0], s0_64(w, in) + s1_64(w, in)); }, 2, b64, b64);
  reg("s_sub_nc_u64", [](WorkGroup&, Wave& w, const Inst& in) { write_scalar64(w, in.dst[0], s0_64(w, in) - s1_64(w, in)); }, 2, b64, b64);
  reg("s_mul_u64", [](WorkGroup&, Wave& w, const Inst& in) { write_scalar64(w, in.dst[0], s0_64(w, in) * s1_64(w, in)); }, 2, b64, b64);
  reg("s_trap", [](WorkGroup& g, Wave& w, const Inst& in) {
    g.fault(w, in, "s_trap " + std::to_string(in.simm & 0xff) + ": the kernel trapped (__builtin_trap, an abort or assert)");
  }, 0);
  // gfx11's trap where no trap handler takes it (LLVM's sequence: s_trap 2, the queue's doorbell
  // through s_sendmsg_rtn, s_sethalt 5): s_trap has faulted already; reached any other way, the wave
  // stops for good.
  reg("s_sethalt", [](WorkGroup& g, Wave& w, const Inst& in) {
    g.fault(w, in, "s_sethalt " + std::to_string(in.simm & 0xff) + ": the wave halted itself (a trap no handler takes)");
  }, 0);
  // gfx11's messages with a return value: the realtime counter (as s_memrealtime), and 0 for the
  // others (the queue's doorbell, the trap handler's addresses) a simulated wave has no such thing for.
  for (const char* name : {"s_sendmsg_rtn_b32", "s_sendmsg_rtn_b64"}) {
    reg(name, [](WorkGroup&, Wave& w, const Inst& in) {
      constexpr std::uint64_t kGetRealtime = 131;
      const std::uint64_t v = in.src[0].bits == kGetRealtime ? now_ticks() / 10 : 0;
      if (in.dst[0].width > 1) write_scalar64(w, in.dst[0], v);
      else write_scalar32(w, in.dst[0], std::uint32_t(v));
    }, 1);
  }
  // gfx10+: the opcode that is illegal on purpose (the compiler's filler where control never
  // reaches, as in rocRAND 3's code objects): executed, an illegal-instruction exception.
  reg("v_illegal", [](WorkGroup& g, Wave& w, const Inst& in) {
    g.fault(w, in, "v_illegal: an illegal instruction reached (the hardware raises an exception)");
  }, 0);
  reg("s_branch", [](WorkGroup& g, Wave& w, const Inst& in) { branch_if(g, w, in, true); }, 0);
  reg("s_cbranch_scc0", [](WorkGroup& g, Wave& w, const Inst& in) { branch_if(g, w, in, !w.scc); }, 0);
  reg("s_cbranch_scc1", [](WorkGroup& g, Wave& w, const Inst& in) { branch_if(g, w, in, w.scc); }, 0);
  reg("s_cbranch_vccz", [](WorkGroup& g, Wave& w, const Inst& in) { branch_if(g, w, in, w.vcc() == 0); }, 0);
  reg("s_cbranch_vccnz", [](WorkGroup& g, Wave& w, const Inst& in) { branch_if(g, w, in, w.vcc() != 0); }, 0);
  reg("s_cbranch_execz", [](WorkGroup& g, Wave& w, const Inst& in) { branch_if(g, w, in, w.exec() == 0); }, 0);
  reg("s_cbranch_execnz", [](WorkGroup& g, Wave& w, const Inst& in) { branch_if(g, w, in, w.exec() != 0); }, 0);

  // ---- SMEM
  reg("s_load_dword", &s_load<1>, 0);
  reg("s_load_dwordx2", &s_load<2>, 0);
  reg("s_load_dwordx3", &s_load<3>, 0);  // gfx12's s_load_b96
  reg("s_load_u8", &s_load_sub<1, false>, 0);
  reg("s_load_i8", &s_load_sub<1, true>, 0);
  reg("s_load_u16", &s_load_sub<2, false>, 0);
  reg("s_load_i16", &s_load_sub<2, true>, 0);
  reg("s_load_dwordx4", &s_load<4>, 0);
  reg("s_load_dwordx8", &s_load<8>, 0);
  reg("s_load_dwordx16", &s_load<16>, 0);
  reg("s_buffer_load_dword", &s_buffer_load<1>, 0);
  reg("s_buffer_load_dwordx2", &s_buffer_load<2>, 0);
  reg("s_buffer_load_dwordx3", &s_buffer_load<3>, 0);
  reg("s_buffer_load_dwordx4", &s_buffer_load<4>, 0);
  reg("s_buffer_load_dwordx8", &s_buffer_load<8>, 0);
  reg("s_buffer_load_dwordx16", &s_buffer_load<16>, 0);
  reg("s_memtime", [](WorkGroup&, Wave& w, const Inst& in) { write_scalar64(w, in.dst[0], now_ticks()); }, 0);
  reg("s_memrealtime", [](WorkGroup&, Wave& w, const Inst& in) { write_scalar64(w, in.dst[0], now_ticks() / 10); }, 0);
}

}  // namespace hsad::isa
