// The matrix instructions of CDNA1, CDNA2, CDNA3 and CDNA4 (gfx908, gfx90a, gfx94x, gfx950): v_mfma_*,
// D = A x B + C for each of a wave's B blocks of M x N results, K products each; in their integer,
// 16/32/64-bit float, xf32 (CDNA3), 8-bit float and (CDNA4) 8/6/4-bit float forms, scaled or not. Where each element lives (which
// lane, which register, which bits) follows AMD's matrix instruction tables (the Matrix
// Instruction Calculator's layouts; sim/README.md, "Matrix instructions"):
//   A[i][k] of block b:  lane i + M*b + M*B*(k / kpl), element k % kpl of the source's registers,
//                        kpl = K*M*B/64 elements per lane (B[k][j] the same with j for i);
//   C, D (32-bit):       32x32: register 16b + 4(i/8) + i%4, lane 32((i/4)%2) + j;
//                        16x16: register 4b + i%4, lane 16(i/4) + j;  4x4: register i, lane 4b + j;
//   C, D (f64):          16x16x4: register pair i/4, lane 16(i%4) + j; 4x4x4: pair 0, lane 16i + 4b + j.
// cbsz/abid: block b multiplies the A of block (b >> cbsz << cbsz) + abid; blgp: lane L's B
// comes from another lane (eight patterns). AMD documents neither the order of the sums nor
// their intermediate precision; this model forms each product exactly, sums in k order in double
// precision, adds C and rounds once (f64: fused multiply-adds in k order), flushes f16 and bf16
// inputs and results that are subnormal (as MI200's are documented to), and wraps i32 sums. Every
// input lane is read whatever EXEC says; results are written to the lanes EXEC enables.
// The 8-bit floats (fp8 E4M3, bf8 E5M2) are CDNA3's FNUZ encodings on gfx94x (bias 8 and 16, one
// NaN at 0x80, no infinity, no negative zero) and the OCP ones on gfx950 (bias 7 and 15; E4M3's
// NaN at S.1111.111 and no infinity, E5M2 IEEE-like); each is exact in double precision and none
// is flushed. CDNA3's xf32 forms read each f32 input with its low 13 mantissa bits dropped (1
// sign, 8 exponent, 10 mantissa bits: truncation, as hipBLASLt reports the hardware does and as
// AMD's host references model it; a NaN whose payload is only in those bits becomes an infinity).
// CDNA4's f8f6f4 forms take each source's format from cbsz (A) and blgp (B): 0 fp8, 1
// bf8, 2 fp6 (E2M3), 3 bf6 (E3M2), 4 fp4 (E2M1), OCP's, 32 elements a lane packed low bits first
// (a 6-bit one may span two registers), so A and B are 8, 6 or 4 registers. The scaled ones
// (v_mfma_scale_*) multiply each A element by 2^(e - 127), e the E8M0 byte of the lane's A-scale
// register (its fourth source) that op_sel[0] + 2 op_sel_hi[0] picks (0xff: NaN), and each B
// element likewise (the fifth source, op_sel[1], op_sel_hi[1]): the lane that holds a 32-element
// block of K holds its scale (LLVM's lowering of the scale builtins; AMD's CDNA4 matrix-core notes).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <utility>

#include "semantics.hpp"

namespace hsad::isa {
namespace {

enum class In : std::uint8_t { f32, f16, bf16, i8, f64, fp8, bf8, fp6, bf6, fp4, f8f6f4, xf32 };

// An f8f6f4 form's source format, by its cbsz or blgp value.
constexpr In kMixedFormats[5] = {In::fp8, In::bf8, In::fp6, In::bf6, In::fp4};

struct Shape {
  const char* name;
  std::uint8_t m, k, blocks;  // N = M for every form here
  In in;
  // CDNA3's name for the same instruction (gfx940 renamed every form it kept: the blocks and the
  // type spelled out, "_2b_f32"), or nullptr where CDNA3 dropped the form.
  const char* cdna3_name = nullptr;
  In in_b = In::f32;  // B's type where it differs from A's (the 8-bit float forms); f32: A's
  bool scaled = false;  // CDNA4's v_mfma_scale_*: two more sources, the scale registers
  In b_type() const { return in_b == In::f32 ? in : in_b; }
};

// Every form gfx908 and gfx90a have (the _1k and f64 ones gfx90a only), by the names CDNA3 (gfx940,
// gfx942, gfx950) gives those it kept; and CDNA3's integer forms of twice the K.
constexpr Shape kShapes[] = {
    {"v_mfma_f32_32x32x1f32", 32, 1, 2, In::f32, "v_mfma_f32_32x32x1_2b_f32"},
    {"v_mfma_f32_16x16x1f32", 16, 1, 4, In::f32, "v_mfma_f32_16x16x1_4b_f32"},
    {"v_mfma_f32_4x4x1f32", 4, 1, 16, In::f32, "v_mfma_f32_4x4x1_16b_f32"},
    {"v_mfma_f32_32x32x2f32", 32, 2, 1, In::f32, "v_mfma_f32_32x32x2_f32"},
    {"v_mfma_f32_16x16x4f32", 16, 4, 1, In::f32, "v_mfma_f32_16x16x4_f32"},
    {"v_mfma_f32_32x32x4f16", 32, 4, 2, In::f16, "v_mfma_f32_32x32x4_2b_f16"},
    {"v_mfma_f32_16x16x4f16", 16, 4, 4, In::f16, "v_mfma_f32_16x16x4_4b_f16"},
    {"v_mfma_f32_4x4x4f16", 4, 4, 16, In::f16, "v_mfma_f32_4x4x4_16b_f16"},
    {"v_mfma_f32_32x32x8f16", 32, 8, 1, In::f16, "v_mfma_f32_32x32x8_f16"},
    {"v_mfma_f32_16x16x16f16", 16, 16, 1, In::f16, "v_mfma_f32_16x16x16_f16"},
    {"v_mfma_i32_32x32x4i8", 32, 4, 2, In::i8, "v_mfma_i32_32x32x4_2b_i8"},
    {"v_mfma_i32_16x16x4i8", 16, 4, 4, In::i8, "v_mfma_i32_16x16x4_4b_i8"},
    {"v_mfma_i32_4x4x4i8", 4, 4, 16, In::i8, "v_mfma_i32_4x4x4_16b_i8"},
    {"v_mfma_i32_32x32x8i8", 32, 8, 1, In::i8},
    {"v_mfma_i32_16x16x16i8", 16, 16, 1, In::i8},
    {"v_mfma_f32_32x32x2bf16", 32, 2, 2, In::bf16},
    {"v_mfma_f32_16x16x2bf16", 16, 2, 4, In::bf16},
    {"v_mfma_f32_4x4x2bf16", 4, 2, 16, In::bf16},
    {"v_mfma_f32_32x32x4bf16", 32, 4, 1, In::bf16},
    {"v_mfma_f32_16x16x8bf16", 16, 8, 1, In::bf16},
    {"v_mfma_f32_32x32x4bf16_1k", 32, 4, 2, In::bf16, "v_mfma_f32_32x32x4_2b_bf16"},
    {"v_mfma_f32_16x16x4bf16_1k", 16, 4, 4, In::bf16, "v_mfma_f32_16x16x4_4b_bf16"},
    {"v_mfma_f32_4x4x4bf16_1k", 4, 4, 16, In::bf16, "v_mfma_f32_4x4x4_16b_bf16"},
    {"v_mfma_f32_32x32x8bf16_1k", 32, 8, 1, In::bf16, "v_mfma_f32_32x32x8_bf16"},
    {"v_mfma_f32_16x16x16bf16_1k", 16, 16, 1, In::bf16, "v_mfma_f32_16x16x16_bf16"},
    {"v_mfma_f64_16x16x4f64", 16, 4, 1, In::f64, "v_mfma_f64_16x16x4_f64"},
    {"v_mfma_f64_4x4x4f64", 4, 4, 4, In::f64, "v_mfma_f64_4x4x4_4b_f64"},
    {"v_mfma_i32_32x32x16_i8", 32, 16, 1, In::i8},  // CDNA3
    {"v_mfma_i32_16x16x32_i8", 16, 32, 1, In::i8},  // CDNA3
    {"v_mfma_f32_16x16x8_xf32", 16, 8, 1, In::xf32},  // CDNA3 (gfx94x; gfx950 dropped them)
    {"v_mfma_f32_32x32x4_xf32", 32, 4, 1, In::xf32},
    // CDNA3's 8-bit float forms (A's type, then B's), FNUZ on gfx94x and OCP on gfx950.
    {"v_mfma_f32_16x16x32_fp8_fp8", 16, 32, 1, In::fp8, nullptr, In::fp8},
    {"v_mfma_f32_16x16x32_fp8_bf8", 16, 32, 1, In::fp8, nullptr, In::bf8},
    {"v_mfma_f32_16x16x32_bf8_fp8", 16, 32, 1, In::bf8, nullptr, In::fp8},
    {"v_mfma_f32_16x16x32_bf8_bf8", 16, 32, 1, In::bf8, nullptr, In::bf8},
    {"v_mfma_f32_32x32x16_fp8_fp8", 32, 16, 1, In::fp8, nullptr, In::fp8},
    {"v_mfma_f32_32x32x16_fp8_bf8", 32, 16, 1, In::fp8, nullptr, In::bf8},
    {"v_mfma_f32_32x32x16_bf8_fp8", 32, 16, 1, In::bf8, nullptr, In::fp8},
    {"v_mfma_f32_32x32x16_bf8_bf8", 32, 16, 1, In::bf8, nullptr, In::bf8},
    // CDNA4's (gfx950) 16-bit float and integer forms of twice CDNA3's K.
    {"v_mfma_f32_16x16x32_f16", 16, 32, 1, In::f16},
    {"v_mfma_f32_32x32x16_f16", 32, 16, 1, In::f16},
    {"v_mfma_f32_16x16x32_bf16", 16, 32, 1, In::bf16},
    {"v_mfma_f32_32x32x16_bf16", 32, 16, 1, In::bf16},
    {"v_mfma_i32_16x16x64_i8", 16, 64, 1, In::i8},
    {"v_mfma_i32_32x32x32_i8", 32, 32, 1, In::i8},
    // CDNA4's 8/6/4-bit float forms, each source's format from cbsz (A) and blgp (B).
    {"v_mfma_f32_16x16x128_f8f6f4", 16, 128, 1, In::f8f6f4},
    {"v_mfma_f32_32x32x64_f8f6f4", 32, 64, 1, In::f8f6f4},
    {"v_mfma_scale_f32_16x16x128_f8f6f4", 16, 128, 1, In::f8f6f4, nullptr, In::f32, true},
    {"v_mfma_scale_f32_32x32x64_f8f6f4", 32, 64, 1, In::f8f6f4, nullptr, In::f32, true},
};
constexpr std::size_t kForms = sizeof kShapes / sizeof kShapes[0];

std::uint32_t bits_of_element(In t) {
  switch (t) {
    case In::f16:
    case In::bf16: return 16;
    case In::i8:
    case In::fp8:
    case In::bf8: return 8;
    case In::fp6:
    case In::bf6: return 6;
    case In::fp4: return 4;
    case In::f64: return 64;
    default: return 32;
  }
}

// A subnormal f32 flushed to a zero of its sign.
float flush(float f) { return std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(0.0f, f) : f; }

// An IEEE half's bits as a number, as the VALU reads them (semantics_vector.cpp's f16).
double half_of(std::uint32_t h) {
  const auto bits = std::uint16_t(h);
  _Float16 x;
  std::memcpy(&x, &bits, 2);
  return double(x);
}

// A matrix input half: subnormals flushed to a zero of their sign (MI200's f16 matrix inputs).
float f16_value(std::uint32_t h) { return (h & 0x7c00) == 0 ? std::copysign(0.0f, (h & 0x8000) ? -1.0f : 1.0f) : float(half_of(h)); }

float bf16_value(std::uint32_t b) { return flush(as_f32(b << 16)); }

// An 8-bit float: `exp_bits` of exponent, the rest mantissa, below a sign bit. FNUZ (gfx94x):
// bias 2^(exp_bits-1), 0x80 the one NaN, no infinity. OCP (gfx950): bias 2^(exp_bits-1) - 1; E4M3
// has NaN at exponent and mantissa all ones and no infinity, E5M2 IEEE's infinities and NaNs.
double f8_value(std::uint32_t x, int exp_bits, bool ocp) {
  const int man_bits = 7 - exp_bits, max_exp = (1 << exp_bits) - 1;
  const int bias = (1 << (exp_bits - 1)) - (ocp ? 1 : 0);
  const bool negative = (x & 0x80) != 0;
  const int exp = int(x >> man_bits) & max_exp, man = int(x) & ((1 << man_bits) - 1);
  if (!ocp && x == 0x80) return std::nan("");
  if (ocp && exp == max_exp) {
    if (exp_bits == 5) return man ? std::nan("") : (negative ? -INFINITY : INFINITY);
    if (man == (1 << man_bits) - 1) return std::nan("");
  }
  const double v = exp == 0 ? std::ldexp(double(man), 1 - bias - man_bits)
                            : std::ldexp(double(man + (1 << man_bits)), exp - bias - man_bits);
  return negative ? -v : v;
}

// OCP's 6- and 4-bit floats (E2M3, E3M2, E2M1): a sign, `exp_bits` of exponent (bias 2^(exp_bits-1)
// - 1), `man_bits` of mantissa; every encoding a finite number.
double small_float(std::uint32_t x, int exp_bits, int man_bits) {
  const int bias = (1 << (exp_bits - 1)) - 1;
  const int exp = int(x >> man_bits) & ((1 << exp_bits) - 1), man = int(x) & ((1 << man_bits) - 1);
  const double v = exp == 0 ? std::ldexp(double(man), 1 - bias - man_bits)
                            : std::ldexp(double(man + (1 << man_bits)), exp - bias - man_bits);
  return (x >> (exp_bits + man_bits)) & 1 ? -v : v;
}

// An E8M0 scale (its low byte): 2^(e - 127), 0xff a NaN.
double e8m0_value(std::uint32_t e) {
  e &= 0xff;
  return e == 0xff ? std::nan("") : std::ldexp(1.0, int(e) - 127);
}

// A float input element's value (bits as read from its register).
double input_value(In t, std::uint64_t x, bool ocp) {
  switch (t) {
    case In::f32: return as_f32(std::uint32_t(x));
    case In::xf32: return as_f32(std::uint32_t(x) & 0xffffe000u);
    case In::f16: return f16_value(std::uint32_t(x));
    case In::bf16: return bf16_value(std::uint32_t(x));
    case In::f64: return as_f64(x);
    case In::fp8: return f8_value(std::uint32_t(x), 4, ocp);
    case In::bf8: return f8_value(std::uint32_t(x), 5, ocp);
    case In::fp6: return small_float(std::uint32_t(x), 2, 3);
    case In::bf6: return small_float(std::uint32_t(x), 3, 2);
    case In::fp4: return small_float(std::uint32_t(x), 2, 1);
    case In::i8:
    case In::f8f6f4: break;
  }
  return 0;
}

// Dword `part` of operand `o` at `lane`: a register's lane, or a scalar's (an inline constant).
std::uint32_t dword(const Wave& w, const Operand& o, std::uint32_t part, std::uint32_t lane, std::uint8_t role) {
  if (o.kind == Operand::vgpr) return w.v[(vreg_of(w, o, role) + part) * w.lanes + lane];
  if (o.kind == Operand::agpr) return w.a[(o.reg + part) * w.lanes + lane];
  return scalar32(w, o, part);
}

// Element `e` (of `bits` bits) of the register tuple `o` at `lane`, as raw bits.
std::uint64_t element(const Wave& w, const Operand& o, std::uint32_t bits, std::uint32_t e, std::uint32_t lane,
                      std::uint8_t role) {
  const std::uint32_t first_bit = e * bits;
  const std::uint32_t lo = dword(w, o, first_bit / 32, lane, role);
  if (bits == 64) return lo | (std::uint64_t(dword(w, o, first_bit / 32 + 1, lane, role)) << 32);
  if (bits == 32) return lo;
  const std::uint32_t shift = first_bit % 32;
  std::uint64_t v = lo >> shift;
  if (shift + bits > 32) v |= std::uint64_t(dword(w, o, first_bit / 32 + 1, lane, role)) << (32 - shift);  // 6-bit
  return v & ((1u << bits) - 1);
}

// Where D[i][j] of block b (and C's) lives: the first of its registers (two for f64) and its lane.
std::pair<std::uint32_t, std::uint32_t> result_place(const Shape& s, std::uint32_t b, std::uint32_t i, std::uint32_t j) {
  if (s.in == In::f64) {
    if (s.m == 16) return {2 * (i / 4), 16 * (i % 4) + j};
    return {0, 16 * i + 4 * b + j};
  }
  if (s.m == 32) return {16 * b + 4 * (i / 8) + i % 4, 32 * ((i / 4) % 2) + j};
  if (s.m == 16) return {4 * b + i % 4, 16 * (i / 4) + j};
  return {i, 4 * b + j};
}

// B's lane-group pattern: the lane lane `l` reads its B operand from.
std::uint32_t blgp_lane(std::uint32_t blgp, std::uint32_t l) {
  switch (blgp) {
    case 1: return l % 32;
    case 2: return 32 + l % 32;
    case 3: return (l + 16) % 64;
    case 4: return l % 16;
    case 5: return 16 + l % 16;
    case 6: return 32 + l % 16;
    case 7: return 48 + l % 16;
    default: return l;
  }
}

template <std::size_t Form>
void mfma(WorkGroup& g, Wave& w, const Inst& in) {
  constexpr Shape s = kShapes[Form];
  constexpr std::uint32_t M = s.m, K = s.k, B = s.blocks;
  constexpr std::uint32_t kpl = K * M * B / 64;  // elements of A (and of B) per lane
  constexpr bool mixed = s.in == In::f8f6f4;     // cbsz and blgp are the sources' formats
  const bool wide = s.in == In::f64;
  const std::uint32_t result_dwords = M * M * B / 64 * (wide ? 2 : 1);
  if (w.lanes != 64) g.fault(w, in, "a matrix instruction in a wave of " + std::to_string(w.lanes) + " lanes (it needs 64)");
  if (mixed && (in.cbsz > 4 || in.blgp > 4 || in.abid)) {
    g.fault(w, in, "cbsz:" + std::to_string(in.cbsz) + " blgp:" + std::to_string(in.blgp) + " abid:" + std::to_string(in.abid) +
                       " names no format (0 fp8, 1 bf8, 2 fp6, 3 bf6, 4 fp4; abid 0)");
  }
  const In type_a = mixed ? kMixedFormats[in.cbsz] : s.in, type_b = mixed ? kMixedFormats[in.blgp] : s.b_type();
  const std::uint32_t bits_a = bits_of_element(type_a), bits_b = bits_of_element(type_b);
  for (int x = 0; x < 2; ++x) {
    const Operand& o = in.src[x];
    const std::uint32_t input_dwords = (kpl * (x ? bits_b : bits_a) + 31) / 32;
    if ((o.kind == Operand::vgpr || o.kind == Operand::agpr) && o.width != input_dwords) {
      g.fault(w, in, "source " + std::to_string(x) + " is " + std::to_string(o.width) + " registers, the form reads " +
                         std::to_string(input_dwords));
    }
  }
  const Operand& c = in.src[2];
  const Operand& d = in.dst[0];
  const bool c_regs = c.kind == Operand::vgpr || c.kind == Operand::agpr;
  if (d.width != result_dwords || (c_regs && c.width != result_dwords)) {
    g.fault(w, in, "the result is " + std::to_string(d.width) + " registers and C " + std::to_string(c.width) +
                       ", the form has " + std::to_string(result_dwords));
  }
  const bool broadcast = !mixed && (in.cbsz || in.abid);
  if (broadcast && (in.cbsz > 4 || (1u << in.cbsz) > B || in.abid >= (1u << in.cbsz))) {
    g.fault(w, in, "cbsz:" + std::to_string(in.cbsz) + " abid:" + std::to_string(in.abid) + " names no block of " +
                       std::to_string(B));
  }

  // A and B as numbers, block by block (A[b][i][k] at (b*M + i)*K + k, B[b][k][j] at (b*K + k)*M + j),
  // B read through the lane-group pattern. At most 2048 of each (K*M*B = 64*kpl, kpl up to 32).
  double a[2048], bm[2048];
  std::int64_t ai[1024], bi[1024];
  const bool ocp = g.program.target().ocp_fp8;
  // The scaled forms: the bytes op_sel and op_sel_hi pick (LLVM prints op_sel_hi for them always).
  const std::uint32_t hi = in.op_sel_hi_given ? in.op_sel_hi : 0;
  const std::uint32_t byte_a = (in.op_sel & 1) + 2 * (hi & 1), byte_b = ((in.op_sel >> 1) & 1) + 2 * ((hi >> 1) & 1);
  if (s.scaled) {
    for (int x = 3; x < 5; ++x) {
      if (in.src[x].kind != Operand::vgpr) g.fault(w, in, "a scale that is not a VGPR (the hardware reads such a one wrongly)");
    }
  }
  for (std::uint32_t lane = 0; lane < 64; ++lane) {
    const std::uint32_t b = (lane / M) % B, row = lane % M, k0 = kpl * (lane / (M * B));
    const std::uint32_t from = mixed ? lane : blgp_lane(in.blgp, lane);
    const double scale_a = s.scaled ? e8m0_value(dword(w, in.src[3], 0, lane, 0) >> (8 * byte_a)) : 1.0;
    const double scale_b = s.scaled ? e8m0_value(dword(w, in.src[4], 0, from, 0) >> (8 * byte_b)) : 1.0;
    for (std::uint32_t e = 0; e < kpl; ++e) {
      const std::uint64_t x = element(w, in.src[0], bits_a, e, lane, 1), y = element(w, in.src[1], bits_b, e, from, 2);
      const std::uint32_t at_a = (b * M + row) * K + k0 + e, at_b = (b * K + k0 + e) * M + row;
      if (s.in == In::i8) ai[at_a] = std::int8_t(x), bi[at_b] = std::int8_t(y);
      else a[at_a] = input_value(type_a, x, mixed || ocp) * scale_a, bm[at_b] = input_value(type_b, y, mixed || ocp) * scale_b;
    }
  }

  // Every result, from C as it was (D and C are often the same registers), then written.
  std::uint64_t out[2048];  // D[b][i][j] at (b*M + i)*M + j: at most 32*32*2
  const std::uint32_t group = 1u << in.cbsz;
  for (std::uint32_t b = 0; b < B; ++b) {
    const std::uint32_t ab = broadcast ? b / group * group + in.abid : b;
    for (std::uint32_t i = 0; i < M; ++i) {
      for (std::uint32_t j = 0; j < M; ++j) {
        const auto [reg, lane] = result_place(s, b, i, j);
        std::uint64_t cv;
        if (!c_regs) cv = wide ? scalar64(w, c) : scalar32(w, c);
        else if (wide) cv = dword(w, c, reg, lane, 4) | (std::uint64_t(dword(w, c, reg + 1, lane, 4)) << 32);
        else cv = dword(w, c, reg, lane, 4);
        const std::uint32_t row = (ab * M + i) * K, at = (b * M + i) * M + j;
        if (s.in == In::i8) {
          std::uint32_t sum = std::uint32_t(cv);
          for (std::uint32_t k = 0; k < K; ++k) sum += std::uint32_t(ai[row + k] * bi[(b * K + k) * M + j]);
          out[at] = sum;
        } else if (wide) {
          double acc = as_f64(cv);
          for (std::uint32_t k = 0; k < K; ++k) acc = std::fma(a[row + k], bm[(b * K + k) * M + j], acc);
          out[at] = bits64(acc);
        } else {
          double acc = 0;
          for (std::uint32_t k = 0; k < K; ++k) acc += a[row + k] * bm[(b * K + k) * M + j];
          float r = float(acc + double(as_f32(std::uint32_t(cv))));
          if (s.in == In::f16 || s.in == In::bf16) r = flush(r);
          out[at] = bits32(r);
        }
      }
    }
  }
  const std::uint64_t exec = w.exec();
  for (std::uint32_t b = 0; b < B; ++b) {
    for (std::uint32_t i = 0; i < M; ++i) {
      for (std::uint32_t j = 0; j < M; ++j) {
        const auto [reg, lane] = result_place(s, b, i, j);
        if (!((exec >> lane) & 1)) continue;
        const std::uint64_t r = out[(b * M + i) * M + j];
        dst32(w, d, reg)[lane] = std::uint32_t(r);
        if (wide) dst32(w, d, reg + 1)[lane] = std::uint32_t(r >> 32);
      }
    }
  }
}

template <std::size_t... I>
void register_forms(std::index_sequence<I...>) {
  (
      [] {
        OpInfo info;
        info.fn = &mfma<I>;
        info.nsrc = kShapes[I].scaled ? 5 : 3;
        // An inline-constant C is read as the result's type.
        info.type[2] = kShapes[I].in == In::f64 ? Type::f64 : kShapes[I].in == In::i8 ? Type::i32 : Type::f32;
        register_op(kShapes[I].name, info);
        if (kShapes[I].cdna3_name) register_op(kShapes[I].cdna3_name, info);
      }(),
      ...);
}

// CDNA3's and CDNA4's sparse forms (v_smfmac_*): D += A x B of one M x M block, A 2:4 sparse along
// K (of each four consecutive k, two are stored), C read from D's own registers. The operands
// (LLVM's VOPProfileSMFMAC; AMD's Matrix Instruction Calculator, rocm-libraries' CK layouts):
//   A (src0), compressed: lane M*g + i holds row i's dense k in [g*KL, (g+1)*KL), KL = K*M/64, as
//     KL/4 groups of four, each two stored values (slots 2q and 2q+1, packed low bits first: a
//     16-bit slot per half register, an 8-bit one per byte);
//   the index (src2, one VGPR, read at A's lane): slot 2q+s's position in its group (0-3) in bits
//     set + 4q + 2s, 2 bits each; the lane uses KL bits of the 32, the set `set` picked by abid
//     (set = KL * abid) where cbsz is 0, else set 0 (the calculator's CDNA3 rule, fixed in its
//     v1.3.1). CDNA4's own 8-bit forms use all 32 bits and ignore both fields.
//   B (src1), dense: lane M*g + j holds column j's k in [g*KL, (g+1)*KL), in order; CDNA4's own
//     forms split K in halves instead, registers 0-3 holding the first K/2 so laid out, 4-7 the second.
//   D and C: the dense forms' one-block layout.
// The arithmetic is the dense forms' (exact products summed in double precision, C added, one
// rounding; f16 and bf16 flushed; i32 wraps), the sum in the order of the stored values: lane
// group by lane group, slot by slot (k order where each group's positions ascend, as
// applications write them). Two slots naming one position both count.
struct SparseForm {
  const char* name;
  std::uint8_t m, k;  // the dense K
  In in, in_b;
  bool cdna4 = false;  // CDNA4's own forms: B's K split in halves, the index's sets as above
};

constexpr SparseForm kSparse[] = {
    {"v_smfmac_f32_16x16x32_f16", 16, 32, In::f16, In::f16},
    {"v_smfmac_f32_32x32x16_f16", 32, 16, In::f16, In::f16},
    {"v_smfmac_f32_16x16x32_bf16", 16, 32, In::bf16, In::bf16},
    {"v_smfmac_f32_32x32x16_bf16", 32, 16, In::bf16, In::bf16},
    {"v_smfmac_i32_16x16x64_i8", 16, 64, In::i8, In::i8},
    {"v_smfmac_i32_32x32x32_i8", 32, 32, In::i8, In::i8},
    {"v_smfmac_f32_16x16x64_bf8_bf8", 16, 64, In::bf8, In::bf8},
    {"v_smfmac_f32_16x16x64_bf8_fp8", 16, 64, In::bf8, In::fp8},
    {"v_smfmac_f32_16x16x64_fp8_bf8", 16, 64, In::fp8, In::bf8},
    {"v_smfmac_f32_16x16x64_fp8_fp8", 16, 64, In::fp8, In::fp8},
    {"v_smfmac_f32_32x32x32_bf8_bf8", 32, 32, In::bf8, In::bf8},
    {"v_smfmac_f32_32x32x32_bf8_fp8", 32, 32, In::bf8, In::fp8},
    {"v_smfmac_f32_32x32x32_fp8_bf8", 32, 32, In::fp8, In::bf8},
    {"v_smfmac_f32_32x32x32_fp8_fp8", 32, 32, In::fp8, In::fp8},
    // CDNA4's (gfx950), twice the K.
    {"v_smfmac_f32_16x16x64_f16", 16, 64, In::f16, In::f16, true},
    {"v_smfmac_f32_32x32x32_f16", 32, 32, In::f16, In::f16, true},
    {"v_smfmac_f32_16x16x64_bf16", 16, 64, In::bf16, In::bf16, true},
    {"v_smfmac_f32_32x32x32_bf16", 32, 32, In::bf16, In::bf16, true},
    {"v_smfmac_i32_16x16x128_i8", 16, 128, In::i8, In::i8, true},
    {"v_smfmac_i32_32x32x64_i8", 32, 64, In::i8, In::i8, true},
    {"v_smfmac_f32_16x16x128_bf8_bf8", 16, 128, In::bf8, In::bf8, true},
    {"v_smfmac_f32_16x16x128_bf8_fp8", 16, 128, In::bf8, In::fp8, true},
    {"v_smfmac_f32_16x16x128_fp8_bf8", 16, 128, In::fp8, In::bf8, true},
    {"v_smfmac_f32_16x16x128_fp8_fp8", 16, 128, In::fp8, In::fp8, true},
    {"v_smfmac_f32_32x32x64_bf8_bf8", 32, 64, In::bf8, In::bf8, true},
    {"v_smfmac_f32_32x32x64_bf8_fp8", 32, 64, In::bf8, In::fp8, true},
    {"v_smfmac_f32_32x32x64_fp8_bf8", 32, 64, In::fp8, In::bf8, true},
    {"v_smfmac_f32_32x32x64_fp8_fp8", 32, 64, In::fp8, In::fp8, true},
};
constexpr std::size_t kSparseForms = sizeof kSparse / sizeof kSparse[0];

template <std::size_t Form>
void smfmac(WorkGroup& g, Wave& w, const Inst& in) {
  constexpr SparseForm s = kSparse[Form];
  constexpr std::uint32_t M = s.m, K = s.k, KL = K * M / 64, KH = KL / 2;
  constexpr Shape block{s.name, s.m, s.k, 1, In::f32};  // where D's elements live
  const std::uint32_t bits_a = bits_of_element(s.in), bits_b = bits_of_element(s.in_b);
  if (w.lanes != 64) g.fault(w, in, "a matrix instruction in a wave of " + std::to_string(w.lanes) + " lanes (it needs 64)");
  const std::uint32_t widths[2] = {KH * bits_a / 32, KL * bits_b / 32};
  for (int x = 0; x < 2; ++x) {
    const Operand& o = in.src[x];
    if ((o.kind != Operand::vgpr && o.kind != Operand::agpr) || o.width != widths[x]) {
      g.fault(w, in, std::string(x ? "B" : "A") + " (source " + std::to_string(x) + ") is not " + std::to_string(widths[x]) +
                         " VGPRs or AGPRs");
    }
  }
  if (in.src[2].kind != Operand::vgpr || in.src[2].width != 1) g.fault(w, in, "the sparse index is not one VGPR");
  const Operand& d = in.dst[0];
  if ((d.kind != Operand::vgpr && d.kind != Operand::agpr) || d.width != M * M / 64) {
    g.fault(w, in, "the result (and C) is not " + std::to_string(M * M / 64) + " VGPRs or AGPRs");
  }
  const bool whole_word = s.cdna4 && bits_a == 8;  // CDNA4's 8-bit forms: the index's 32 bits, cbsz and abid unused
  const std::uint32_t set = whole_word || in.cbsz ? 0 : KL * in.abid;
  if (set + KL > 32) {
    g.fault(w, in, "abid:" + std::to_string(in.abid) + " names no set of the index (" + std::to_string(32 / KL) + " sets of " +
                       std::to_string(KL) + " bits)");
  }
  const bool ocp = g.program.target().ocp_fp8, integer = s.in == In::i8;

  // B as numbers, B[k][j] at k*M + j; then each row's stored A values and the k each multiplies.
  double bm[2048], av[1024];
  std::int64_t bi[2048], ai[1024];
  std::uint32_t ak[1024];  // row i's t-th stored value at i*K/2 + t, in k order where the index is sorted
  for (std::uint32_t lane = 0; lane < 64; ++lane) {
    const std::uint32_t group = lane / M, col = lane % M;
    for (std::uint32_t e = 0; e < KL; ++e) {
      const std::uint32_t k = s.cdna4 ? (e / KH) * (K / 2) + group * KH + e % KH : group * KL + e;
      const std::uint64_t y = element(w, in.src[1], bits_b, e, lane, 2);
      if (integer) bi[k * M + col] = std::int8_t(y);
      else bm[k * M + col] = input_value(s.in_b, y, ocp);
    }
    const std::uint32_t index = dword(w, in.src[2], 0, lane, 4);
    for (std::uint32_t c = 0; c < KH; ++c) {
      const std::uint32_t position = (index >> (set + 2 * c)) & 3;  // slot c = 2q + s: bits 4q + 2s
      const std::uint32_t at = col * (K / 2) + group * KH + c;
      const std::uint64_t x = element(w, in.src[0], bits_a, c, lane, 1);
      ak[at] = group * KL + 4 * (c / 2) + position;
      if (integer) ai[at] = std::int8_t(x);
      else av[at] = input_value(s.in, x, ocp);
    }
  }

  std::uint32_t out[M * M];  // D[i][j] at i*M + j
  for (std::uint32_t i = 0; i < M; ++i) {
    for (std::uint32_t j = 0; j < M; ++j) {
      const auto [reg, lane] = result_place(block, 0, i, j);
      const std::uint32_t cv = dword(w, d, reg, lane, 8);
      if (integer) {
        std::uint32_t sum = cv;
        for (std::uint32_t t = 0; t < K / 2; ++t) sum += std::uint32_t(ai[i * (K / 2) + t] * bi[ak[i * (K / 2) + t] * M + j]);
        out[i * M + j] = sum;
      } else {
        double acc = 0;
        for (std::uint32_t t = 0; t < K / 2; ++t) acc += av[i * (K / 2) + t] * bm[ak[i * (K / 2) + t] * M + j];
        float r = float(acc + double(as_f32(cv)));
        if (s.in == In::f16 || s.in == In::bf16) r = flush(r);
        out[i * M + j] = bits32(r);
      }
    }
  }
  const std::uint64_t exec = w.exec();
  for (std::uint32_t i = 0; i < M; ++i) {
    for (std::uint32_t j = 0; j < M; ++j) {
      const auto [reg, lane] = result_place(block, 0, i, j);
      if ((exec >> lane) & 1) dst32(w, d, reg)[lane] = out[i * M + j];
    }
  }
}

template <std::size_t... I>
void register_sparse(std::index_sequence<I...>) {
  (
      [] {
        OpInfo info;
        info.fn = &smfmac<I>;
        info.nsrc = 3;  // A, B and the index; C is the destination's registers
        register_op(kSparse[I].name, info);
      }(),
      ...);
}

// v_dot2c_f32_f16: D += a.lo * b.lo + a.hi * b.hi (f16 halves, exact products, one rounding).
void v_dot2c_f32_f16(WorkGroup& g, Wave& w, const Inst& in) {
  if (in.dpp != Dpp::none || in.sdwa) g.fault(w, in, "v_dot2c_f32_f16 with DPP or SDWA (not implemented)");
  std::uint32_t* acc = dst32(w, in.dst[0], 0);
  for_lanes(w, [&](std::uint32_t lane) {
    const std::uint32_t x = dword(w, in.src[0], 0, lane, 1), y = dword(w, in.src[1], 0, lane, 2);
    const double sum = half_of(x & 0xffff) * half_of(y & 0xffff) + half_of(x >> 16) * half_of(y >> 16);
    acc[lane] = bits32(float(sum + double(as_f32(acc[lane]))));
  });
}

// RDNA3's and RDNA4's matrix instructions (gfx11 and gfx12, wave32): v_wmma_*, D = A x B + C of one
// 16x16 tile, K = 16 (32 for gfx12's v_wmma_i32_16x16x32_iu4).
// gfx11 (AMD's RDNA3 ISA guide, "Wave Matrix Multiply Accumulate"; GPUOpen's "How to accelerate AI
// applications on RDNA 3 using WMMA"):
//   A[i][k]: lane i % 16, element k of the source's registers; B[k][j]: lane j % 16, element k;
//     the wave's two halves hold the same A and B (the program replicates them), and each half
//     computes its rows from its own copy: here lanes 16-31's for the odd rows.
//   C, D (32-bit): register i / 2, lane j + 16 (i % 2);
//   C, D (16-bit): the same registers, the low halves, or the high ones where op_sel[2] says.
// gfx12 (AMD's Matrix Instruction Calculator, rdna4; LLVM's gfx12 WMMA tests): nothing replicated,
// the wave's halves hold different K:
//   A[i][k] (16-bit): lane i + 16((k/4) % 2), element 4(k/8) + k%4 (registers 2(k/8) + (k/2)%2);
//   A[i][k] (8- and 4-bit): lane i + 16(k / (K/2)), element k % (K/2); B[k][j] alike with j;
//   C, D (32-bit): register i % 8, lane j + 16(i/8);  C, D (16-bit): packed, element i % 8 of
//     four registers, lane j + 16(i/8).
//   f16/bf16 inputs: neg_lo[n] and neg_hi[n] negate the low and high halves of A's (n = 0) and B's
//   (n = 1) registers; C's neg_lo[2] negates it and neg_hi[2] takes its absolute value first.
//   fp8 and bf8 are OCP's E4M3 and E5M2.
// As for MFMA, AMD documents neither the order of the sums nor their precision: each product is
// exact, the sum in k order in double precision, C added and rounded once (f16 results to
// nearest even from that; bf16 through f32, so a tie can round twice); inputs are not flushed.
// iu8 and iu4: neg_lo[0] and neg_lo[1] say whether A's and B's elements are signed; the sum wraps
// at 32 bits, or saturates under clamp. Wave64 is refused by name.
enum class WmmaIn : std::uint8_t { f16, bf16, iu8, iu4, fp8, bf8 };
enum class WmmaOut : std::uint8_t { f32, f16, bf16, i32 };

struct WmmaForm {
  const char* name;
  WmmaIn in;
  WmmaOut out;
  WmmaIn in_b;
  std::uint8_t k = 16;
  bool gfx12_only = false;
};

constexpr WmmaForm kWmma[] = {
    {"v_wmma_f32_16x16x16_f16", WmmaIn::f16, WmmaOut::f32, WmmaIn::f16},
    {"v_wmma_f32_16x16x16_bf16", WmmaIn::bf16, WmmaOut::f32, WmmaIn::bf16},
    {"v_wmma_f16_16x16x16_f16", WmmaIn::f16, WmmaOut::f16, WmmaIn::f16},
    {"v_wmma_bf16_16x16x16_bf16", WmmaIn::bf16, WmmaOut::bf16, WmmaIn::bf16},
    {"v_wmma_i32_16x16x16_iu8", WmmaIn::iu8, WmmaOut::i32, WmmaIn::iu8},
    {"v_wmma_i32_16x16x16_iu4", WmmaIn::iu4, WmmaOut::i32, WmmaIn::iu4},
    {"v_wmma_f32_16x16x16_fp8_fp8", WmmaIn::fp8, WmmaOut::f32, WmmaIn::fp8, 16, true},
    {"v_wmma_f32_16x16x16_fp8_bf8", WmmaIn::fp8, WmmaOut::f32, WmmaIn::bf8, 16, true},
    {"v_wmma_f32_16x16x16_bf8_fp8", WmmaIn::bf8, WmmaOut::f32, WmmaIn::fp8, 16, true},
    {"v_wmma_f32_16x16x16_bf8_bf8", WmmaIn::bf8, WmmaOut::f32, WmmaIn::bf8, 16, true},
    {"v_wmma_i32_16x16x32_iu4", WmmaIn::iu4, WmmaOut::i32, WmmaIn::iu4, 32, true},
};
constexpr std::size_t kWmmaForms = sizeof kWmma / sizeof kWmma[0];

std::uint32_t wmma_bits(WmmaIn t) {
  return t == WmmaIn::iu4 ? 4 : (t == WmmaIn::iu8 || t == WmmaIn::fp8 || t == WmmaIn::bf8) ? 8 : 16;
}

std::uint16_t to_f16_bits(double d) {
  const _Float16 h = static_cast<_Float16>(d);
  std::uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}

// f32 to bf16, to nearest even (a NaN stays a quiet NaN).
std::uint16_t to_bf16_bits(float f) {
  const std::uint32_t b = bits32(f);
  if (std::isnan(f)) return std::uint16_t((b >> 16) | 0x40);
  return std::uint16_t((b + 0x7fff + ((b >> 16) & 1)) >> 16);
}

// A WMMA input element's value (raw bits as read from its register).
double wmma_value(WmmaIn t, std::uint64_t x, bool is_signed) {
  switch (t) {
    case WmmaIn::f16: return half_of(std::uint32_t(x));
    case WmmaIn::bf16: return as_f32(std::uint32_t(x) << 16);
    case WmmaIn::iu8: return is_signed ? std::int8_t(x) : double(x);
    case WmmaIn::iu4: return is_signed && x > 7 ? double(std::int64_t(x) - 16) : double(x);
    case WmmaIn::fp8: return f8_value(std::uint32_t(x), 4, true);
    case WmmaIn::bf8: return f8_value(std::uint32_t(x), 5, true);
  }
  return 0;
}

// The result element from the sum of products and C's element (its raw bits), as `out` rounds it.
std::uint32_t wmma_result(WmmaOut out, double sum, std::int64_t isum, std::uint32_t c, bool clamp) {
  switch (out) {
    case WmmaOut::f32: return bits32(float(sum + double(as_f32(c))));
    case WmmaOut::i32: {
      std::int64_t t = isum + std::int32_t(c);
      if (clamp) t = std::min<std::int64_t>(std::max<std::int64_t>(t, INT32_MIN), INT32_MAX);
      return std::uint32_t(t);
    }
    case WmmaOut::f16: return to_f16_bits(sum + half_of(c));
    case WmmaOut::bf16: return to_bf16_bits(float(sum + double(as_f32(c << 16))));
  }
  return 0;
}

template <std::size_t Form>
void wmma_gfx12(WorkGroup& g, Wave& w, const Inst& in);

template <std::size_t Form>
void wmma(WorkGroup& g, Wave& w, const Inst& in) {
  constexpr WmmaForm f = kWmma[Form];
  if (w.lanes != 32) g.fault(w, in, "a WMMA instruction in a wave of " + std::to_string(w.lanes) + " lanes (modelled for wave32 only)");
  if (g.program.target().gfx12) return wmma_gfx12<Form>(g, w, in);
  if (f.gfx12_only) g.fault(w, in, "an RDNA4 (gfx12) WMMA form on " + g.program.target().processor);
  const bool integer = f.in == WmmaIn::iu8 || f.in == WmmaIn::iu4;
  if (!integer && (in.neg_lo || in.neg_hi)) g.fault(w, in, "a WMMA instruction with negated inputs (not modelled)");
  const std::uint32_t bits = wmma_bits(f.in), input_dwords = 16 * bits / 32;
  for (int x = 0; x < 2; ++x) {
    if (in.src[x].kind != Operand::vgpr || in.src[x].width != input_dwords) {
      g.fault(w, in, "source " + std::to_string(x) + " is not " + std::to_string(input_dwords) + " VGPRs");
    }
  }
  const Operand& c = in.src[2];
  const Operand& d = in.dst[0];
  const bool c_regs = c.kind == Operand::vgpr;
  if (d.width != 8 || (c_regs && c.width != 8)) g.fault(w, in, "the result and C are 8 VGPRs each");
  const bool high = (in.op_sel & 4) != 0;  // 16-bit results: the registers' high halves
  const bool a_signed = in.neg_lo & 1, b_signed = in.neg_lo & 2;
  std::uint32_t out[8][32];
  for (std::uint32_t i = 0; i < 16; ++i) {
    const std::uint32_t half = i % 2, reg = i / 2;
    for (std::uint32_t j = 0; j < 16; ++j) {
      const std::uint32_t lane = j + 16 * half;
      double sum = 0;
      std::int64_t isum = 0;
      for (std::uint32_t k = 0; k < 16; ++k) {
        const double x = wmma_value(f.in, element(w, in.src[0], bits, k, i % 16 + 16 * half, 1), a_signed);
        const double y = wmma_value(f.in, element(w, in.src[1], bits, k, j + 16 * half, 2), b_signed);
        if (integer) isum += std::int64_t(x) * std::int64_t(y);
        else sum += x * y;
      }
      std::uint32_t cv = c_regs ? dword(w, c, reg, lane, 4) : scalar32(w, c);
      if (f.out == WmmaOut::f16 || f.out == WmmaOut::bf16) cv = high ? cv >> 16 : cv & 0xffff;
      out[reg][lane] = wmma_result(f.out, sum, isum, cv, in.flags & kClamp);
    }
  }
  const std::uint64_t exec = w.exec();
  const bool sixteen = f.out == WmmaOut::f16 || f.out == WmmaOut::bf16;
  for (std::uint32_t reg = 0; reg < 8; ++reg) {
    std::uint32_t* row = dst32(w, d, reg);
    for (std::uint32_t lane = 0; lane < 32; ++lane) {
      if (!((exec >> lane) & 1)) continue;
      if (!sixteen) row[lane] = out[reg][lane];
      else if (high) row[lane] = (row[lane] & 0xffffu) | (out[reg][lane] << 16);
      else row[lane] = (row[lane] & 0xffff0000u) | out[reg][lane];
    }
  }
}

// D[i][j] of a gfx12 tile into the lanes EXEC enables: 32-bit results in register i % 8, 16-bit ones
// packed two a register; lane j + 16(i/8).
void write_gfx12_tile(Wave& w, const Operand& d, const std::uint32_t (&out)[16][16], bool sixteen_out) {
  const std::uint64_t exec = w.exec();
  for (std::uint32_t i = 0; i < 16; ++i) {
    for (std::uint32_t j = 0; j < 16; ++j) {
      const std::uint32_t lane = j + 16 * (i / 8);
      if (!((exec >> lane) & 1)) continue;
      if (!sixteen_out) {
        dst32(w, d, i % 8)[lane] = out[i][j];
      } else {
        std::uint32_t& word = dst32(w, d, (i % 8) / 2)[lane];
        word = (i % 2) ? (word & 0xffffu) | (out[i][j] << 16) : (word & 0xffff0000u) | out[i][j];
      }
    }
  }
}

template <std::size_t Form>
void wmma_gfx12(WorkGroup& g, Wave& w, const Inst& in) {
  constexpr WmmaForm f = kWmma[Form];
  constexpr std::uint32_t K = f.k, kpl = K / 2;  // K elements in a lane of each half of the wave
  const bool integer = f.in == WmmaIn::iu8 || f.in == WmmaIn::iu4;
  const bool sixteen_in = f.in == WmmaIn::f16 || f.in == WmmaIn::bf16;
  const bool sixteen_out = f.out == WmmaOut::f16 || f.out == WmmaOut::bf16;
  const std::uint32_t bits = wmma_bits(f.in), input_dwords = kpl * bits / 32, result_dwords = sixteen_out ? 4 : 8;
  for (int x = 0; x < 2; ++x) {
    if (in.src[x].kind != Operand::vgpr || in.src[x].width != input_dwords) {
      g.fault(w, in, "source " + std::to_string(x) + " is not " + std::to_string(input_dwords) + " VGPRs");
    }
  }
  if (in.op_sel || (in.op_sel_hi_given && in.op_sel_hi)) g.fault(w, in, "op_sel on a gfx12 WMMA instruction");
  if (!sixteen_in && !integer && ((in.neg_lo | in.neg_hi) & 3)) g.fault(w, in, "negated 8-bit float inputs");
  const Operand& c = in.src[2];
  const Operand& d = in.dst[0];
  const bool c_regs = c.kind == Operand::vgpr;
  if (d.width != result_dwords || (c_regs && c.width != result_dwords)) {
    g.fault(w, in, "the result and C are " + std::to_string(result_dwords) + " VGPRs each");
  }
  if (!c_regs && sixteen_out) g.fault(w, in, "an inline-constant C for a 16-bit result (not modelled)");
  // Element slot e of a lane of half h holds this k.
  auto k_of = [&](std::uint32_t e, std::uint32_t h) { return sixteen_in ? 8 * (e / 4) + 4 * h + e % 4 : kpl * h + e; };
  // Row (A) or column (B) `row` of source x, by k: as numbers, or as integers.
  auto input = [&](int x, std::uint32_t row, double v[], std::int64_t iv[]) {
    const WmmaIn t = x == 0 ? f.in : f.in_b;
    const bool is_signed = integer && ((in.neg_lo >> x) & 1);
    for (std::uint32_t h = 0; h < 2; ++h) {
      for (std::uint32_t e = 0; e < kpl; ++e) {
        const std::uint32_t k = k_of(e, h);
        double value = wmma_value(t, element(w, in.src[x], bits, e, row + 16 * h, std::uint8_t(1 + x)), is_signed);
        if (sixteen_in && (((e % 2 ? in.neg_hi : in.neg_lo) >> x) & 1)) value = -value;
        if (integer) iv[k] = std::int64_t(value);
        else v[k] = value;
      }
    }
  };
  double a[16][32], b[16][32];
  std::int64_t ai[16][32], bi[16][32];
  for (std::uint32_t r = 0; r < 16; ++r) input(0, r, a[r], ai[r]), input(1, r, b[r], bi[r]);
  std::uint32_t out[16][16];  // D[i][j]
  for (std::uint32_t i = 0; i < 16; ++i) {
    for (std::uint32_t j = 0; j < 16; ++j) {
      double sum = 0;
      std::int64_t isum = 0;
      for (std::uint32_t k = 0; k < K; ++k) {
        if (integer) isum += ai[i][k] * bi[j][k];
        else sum += a[i][k] * b[j][k];
      }
      const std::uint32_t lane = j + 16 * (i / 8), reg = sixteen_out ? (i % 8) / 2 : i % 8;
      std::uint32_t cv = c_regs ? dword(w, c, reg, lane, 4) : scalar32(w, c);
      if (sixteen_out) cv = (i % 2) ? cv >> 16 : cv & 0xffff;
      if (!integer && (in.neg_lo & 4 || in.neg_hi & 4)) {  // C's modifiers: |C| first, then the sign
        const std::uint32_t sign = sixteen_out ? 0x8000u : 0x80000000u;
        if (in.neg_hi & 4) cv &= ~sign;
        if (in.neg_lo & 4) cv ^= sign;
      }
      out[i][j] = wmma_result(f.out, sum, isum, cv, in.flags & kClamp);
    }
  }
  write_gfx12_tile(w, d, out, sixteen_out);
}

// RDNA4's sparse forms (v_swmmac_*, wave32): D += A x B of one 16x16 tile, A 2:4 sparse along K (K
// = 32, or 64 for v_swmmac_i32_16x16x64_iu4), C read from D's own registers. Where each element
// lives (AMD's Matrix Instruction Calculator, rdna4; LLVM's gfx12 SWMMAC profiles):
//   A (src0), compressed: the lanes of half h (lane 16h + i) hold row i's stored values, two of each
//     four consecutive k, slot 2q + s of group q packed low bits first; 16-bit: group q (register
//     q) covers k from 16(q/2) + 8h + 4(q%2); 8- and 4-bit: k from (K/2)h + 4q;
//   the index (src2, one VGPR, read at A's lane): slot c's position in its group in bits set + 2c,
//     set = 16 * index_key (v_swmmac_i32_16x16x64_iu4 uses the whole word and has no index_key);
//   B (src1), dense: lane 16h + j holds column j's k, element e at 16(e/8) + 8h + e%8 (16-bit) or
//     (K/2)h + e (8- and 4-bit);
//   D and C: the dense gfx12 forms' layout (32-bit: register i % 8; 16-bit: packed; lane j + 16(i/8)).
// The arithmetic and the modifiers are the dense gfx12 forms' (neg_lo/neg_hi negate A's and B's low
// and high 16-bit halves; for iu8 and iu4 neg_lo says which are signed; clamp saturates i32), the
// sum in the order of the stored values: half of the wave by half, slot by slot (for 16-bit inputs
// not k order: k 0-7 and 16-23 before 8-15 and 24-31; with exact products that matters only where
// the double sum rounds).
struct SwmmacForm {
  const char* name;
  WmmaIn in;
  WmmaOut out;
  WmmaIn in_b;
  std::uint8_t k = 32;
};

constexpr SwmmacForm kSwmmac[] = {
    {"v_swmmac_f32_16x16x32_f16", WmmaIn::f16, WmmaOut::f32, WmmaIn::f16},
    {"v_swmmac_f32_16x16x32_bf16", WmmaIn::bf16, WmmaOut::f32, WmmaIn::bf16},
    {"v_swmmac_f16_16x16x32_f16", WmmaIn::f16, WmmaOut::f16, WmmaIn::f16},
    {"v_swmmac_bf16_16x16x32_bf16", WmmaIn::bf16, WmmaOut::bf16, WmmaIn::bf16},
    {"v_swmmac_i32_16x16x32_iu8", WmmaIn::iu8, WmmaOut::i32, WmmaIn::iu8},
    {"v_swmmac_i32_16x16x32_iu4", WmmaIn::iu4, WmmaOut::i32, WmmaIn::iu4},
    {"v_swmmac_i32_16x16x64_iu4", WmmaIn::iu4, WmmaOut::i32, WmmaIn::iu4, 64},
    {"v_swmmac_f32_16x16x32_fp8_fp8", WmmaIn::fp8, WmmaOut::f32, WmmaIn::fp8},
    {"v_swmmac_f32_16x16x32_fp8_bf8", WmmaIn::fp8, WmmaOut::f32, WmmaIn::bf8},
    {"v_swmmac_f32_16x16x32_bf8_fp8", WmmaIn::bf8, WmmaOut::f32, WmmaIn::fp8},
    {"v_swmmac_f32_16x16x32_bf8_bf8", WmmaIn::bf8, WmmaOut::f32, WmmaIn::bf8},
};
constexpr std::size_t kSwmmacForms = sizeof kSwmmac / sizeof kSwmmac[0];

template <std::size_t Form>
void swmmac(WorkGroup& g, Wave& w, const Inst& in) {
  constexpr SwmmacForm f = kSwmmac[Form];
  constexpr std::uint32_t K = f.k, KL = K / 2;  // dense k in a lane of each half of the wave
  const bool integer = f.in == WmmaIn::iu8 || f.in == WmmaIn::iu4;
  const bool sixteen_in = f.in == WmmaIn::f16 || f.in == WmmaIn::bf16;
  const bool sixteen_out = f.out == WmmaOut::f16 || f.out == WmmaOut::bf16;
  if (w.lanes != 32) g.fault(w, in, "a SWMMAC instruction in a wave of " + std::to_string(w.lanes) + " lanes (modelled for wave32 only)");
  if (!g.program.target().gfx12) g.fault(w, in, "an RDNA4 (gfx12) SWMMAC form on " + g.program.target().processor);
  const std::uint32_t bits = wmma_bits(f.in), widths[2] = {KL / 2 * bits / 32, KL * bits / 32};
  for (int x = 0; x < 2; ++x) {
    if (in.src[x].kind != Operand::vgpr || in.src[x].width != widths[x]) {
      g.fault(w, in, std::string(x ? "B" : "A") + " (source " + std::to_string(x) + ") is not " + std::to_string(widths[x]) + " VGPRs");
    }
  }
  if (in.src[2].kind != Operand::vgpr || in.src[2].width != 1) g.fault(w, in, "the sparse index is not one VGPR");
  const Operand& d = in.dst[0];
  const std::uint32_t result_dwords = sixteen_out ? 4 : 8;
  if (d.kind != Operand::vgpr || d.width != result_dwords) g.fault(w, in, "the result is not " + std::to_string(result_dwords) + " VGPRs");
  if (!sixteen_in && !integer && ((in.neg_lo | in.neg_hi) & 3)) g.fault(w, in, "negated 8-bit float inputs");
  if ((in.neg_lo | in.neg_hi) & 4) g.fault(w, in, "a modifier on C (D's own registers)");
  if (integer && (in.neg_hi & 3)) g.fault(w, in, "neg_hi on integer inputs (neg_lo says which are signed)");
  if (in.op_sel || (in.op_sel_hi_given && in.op_sel_hi != 7)) g.fault(w, in, "op_sel on a SWMMAC instruction");
  if (K == 64 && in.index_key) g.fault(w, in, "index_key on a form whose index is the whole word");
  const std::uint32_t set = K == 64 ? 0 : 16 * in.index_key;
  if (set + KL > 32) g.fault(w, in, "index_key:" + std::to_string(in.index_key) + " names no set of the index (2 sets of 16 bits)");

  // B[k][j] at k*16 + j; row i's stored A values and the k each multiplies at i*KL + t.
  double bm[64 * 16], av[16 * 32];
  std::int64_t bi[64 * 16], ai[16 * 32];
  std::uint32_t ak[16 * 32];
  const bool a_signed = in.neg_lo & 1, b_signed = in.neg_lo & 2;
  for (std::uint32_t lane = 0; lane < 32; ++lane) {
    const std::uint32_t h = lane / 16, row = lane % 16;
    for (std::uint32_t e = 0; e < KL; ++e) {
      const std::uint32_t k = sixteen_in ? 16 * (e / 8) + 8 * h + e % 8 : KL * h + e;
      double y = wmma_value(f.in_b, element(w, in.src[1], bits, e, lane, 2), b_signed);
      if (sixteen_in && (((e % 2 ? in.neg_hi : in.neg_lo) >> 1) & 1)) y = -y;
      if (integer) bi[k * 16 + row] = std::int64_t(y);
      else bm[k * 16 + row] = y;
    }
    const std::uint32_t index = dword(w, in.src[2], 0, lane, 4);
    for (std::uint32_t c = 0; c < KL / 2; ++c) {
      const std::uint32_t q = c / 2, position = (index >> (set + 2 * c)) & 3;
      const std::uint32_t start = sixteen_in ? 16 * (q / 2) + 8 * h + 4 * (q % 2) : KL * h + 4 * q;
      double x = wmma_value(f.in, element(w, in.src[0], bits, c, lane, 1), a_signed);
      if (sixteen_in && (((c % 2 ? in.neg_hi : in.neg_lo) >> 0) & 1)) x = -x;
      const std::uint32_t at = row * KL + h * (KL / 2) + c;
      ak[at] = start + position;
      if (integer) ai[at] = std::int64_t(x);
      else av[at] = x;
    }
  }
  std::uint32_t out[16][16];
  for (std::uint32_t i = 0; i < 16; ++i) {
    for (std::uint32_t j = 0; j < 16; ++j) {
      double sum = 0;
      std::int64_t isum = 0;
      for (std::uint32_t t = 0; t < KL; ++t) {
        if (integer) isum += ai[i * KL + t] * bi[ak[i * KL + t] * 16 + j];
        else sum += av[i * KL + t] * bm[ak[i * KL + t] * 16 + j];
      }
      const std::uint32_t lane = j + 16 * (i / 8), reg = sixteen_out ? (i % 8) / 2 : i % 8;
      std::uint32_t cv = dword(w, d, reg, lane, 8);
      if (sixteen_out) cv = (i % 2) ? cv >> 16 : cv & 0xffff;
      out[i][j] = wmma_result(f.out, sum, isum, cv, in.flags & kClamp);
    }
  }
  write_gfx12_tile(w, d, out, sixteen_out);
}

template <std::size_t... I>
void register_swmmac(std::index_sequence<I...>) {
  (
      [] {
        OpInfo info;
        info.fn = &swmmac<I>;
        info.nsrc = 3;  // A, B and the index; C is the destination's registers
        info.int_clamp = kSwmmac[I].out == WmmaOut::i32;
        register_op(kSwmmac[I].name, info);
      }(),
      ...);
}

template <std::size_t... I>
void register_wmma(std::index_sequence<I...>) {
  (
      [] {
        OpInfo info;
        info.fn = &wmma<I>;
        info.nsrc = 3;
        const WmmaOut o = kWmma[I].out;
        info.type[2] = o == WmmaOut::i32 ? Type::i32 : o == WmmaOut::f32 ? Type::f32 : Type::b32;
        info.int_clamp = o == WmmaOut::i32;
        register_op(kWmma[I].name, info);
      }(),
      ...);
}

}  // namespace

void register_matrix_ops() {
  register_forms(std::make_index_sequence<kForms>());
  register_wmma(std::make_index_sequence<kWmmaForms>());
  register_sparse(std::make_index_sequence<kSparseForms>());
  register_swmmac(std::make_index_sequence<kSwmmacForms>());
  OpInfo dot;
  dot.fn = &v_dot2c_f32_f16;
  dot.nsrc = 2;
  register_op("v_dot2c_f32_f16", dot);
}

}  // namespace hsad::isa
