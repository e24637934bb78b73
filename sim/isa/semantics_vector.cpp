// The vector ALU: integer and floating-point arithmetic (fp32, fp64), conversions, compares,
// carries, the division helpers, and moves. Written from AMD's Vega/CDNA2 and RDNA2 ISA references;
// IEEE results where the hardware gives them (fma is fused, add/mul rounded once), with v_rcp /
// v_rsq / v_sqrt correctly rounded (the hardware's are within 1 ulp of that).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>

#include "valu.hpp"

namespace hsad::isa {

int dpp_source(const Inst& in, int lane, int lanes) {
  const std::uint32_t c = in.dpp_ctrl;
  switch (in.dpp) {
    case Dpp::quad_perm: return (lane & ~3) | int((c >> (2 * (lane & 3))) & 3);
    case Dpp::row_shl: return (lane & 15) + int(c) < 16 ? lane + int(c) : -1;
    case Dpp::row_shr: return (lane & 15) >= int(c) ? lane - int(c) : -1;
    case Dpp::row_ror: return (lane & ~15) | ((lane - int(c)) & 15);
    case Dpp::wave_shl: return lane + 1 < lanes ? lane + 1 : -1;
    case Dpp::wave_rol: return (lane + 1) % lanes;
    case Dpp::wave_shr: return lane >= 1 ? lane - 1 : -1;
    case Dpp::wave_ror: return (lane + lanes - 1) % lanes;
    case Dpp::row_mirror: return (lane & ~15) | (15 - (lane & 15));
    case Dpp::row_half_mirror: return (lane & ~7) | (7 - (lane & 7));
    case Dpp::row_bcast15: return lane >= 16 ? (lane & ~15) - 1 : -1;
    case Dpp::row_bcast31: return lane >= 32 ? 31 : -1;
    case Dpp::row_share: return (lane & ~15) | int(c & 15);
    case Dpp::row_xmask: return (lane & ~15) | ((lane & 15) ^ int(c & 15));
    case Dpp::dpp8: return (lane & ~7) | int((c >> (3 * (lane & 7))) & 7);
    default: return lane;
  }
}

namespace {
std::uint64_t read_raw(const Wave& w, const Operand& o, Type t, int lane, std::uint8_t role) {
  const bool wide = is_64(t);
  if (o.kind == Operand::vgpr || o.kind == Operand::agpr) {
    const std::uint32_t* file = o.kind == Operand::vgpr ? w.v : w.a;
    const std::uint32_t reg = o.kind == Operand::vgpr ? vreg_of(w, o, role) : o.reg;
    const std::uint64_t lo = file[reg * w.lanes + lane];
    return wide ? lo | (std::uint64_t(file[(reg + 1) * w.lanes + lane]) << 32) : lo;
  }
  return wide ? scalar64(w, o) : scalar32(w, o);
}

std::uint32_t select(std::uint32_t v, SdwaSel sel, bool sext) {
  switch (sel) {
    case SdwaSel::byte0: return sext ? std::uint32_t(std::int32_t(std::int8_t(v))) : v & 0xff;
    case SdwaSel::byte1: return sext ? std::uint32_t(std::int32_t(std::int8_t(v >> 8))) : (v >> 8) & 0xff;
    case SdwaSel::byte2: return sext ? std::uint32_t(std::int32_t(std::int8_t(v >> 16))) : (v >> 16) & 0xff;
    case SdwaSel::byte3: return sext ? std::uint32_t(std::int32_t(std::int8_t(v >> 24))) : v >> 24;
    case SdwaSel::word0: return sext ? std::uint32_t(std::int32_t(std::int16_t(v))) : v & 0xffff;
    case SdwaSel::word1: return sext ? std::uint32_t(std::int32_t(std::int16_t(v >> 16))) : v >> 16;
    default: return v;
  }
}

std::uint64_t modify(std::uint64_t v, const Operand& o, Type t) {
  if (!o.abs && !o.neg) return v;
  std::uint64_t sign = 0;
  if (t == Type::f32) sign = 1ull << 31;
  else if (t == Type::f64) sign = 1ull << 63;
  else if (t == Type::f16) sign = 1ull << 15;
  else return v;
  if (o.abs) v &= ~sign;
  if (o.neg) v ^= sign;
  return v;
}
}  // namespace

void gather(const Wave& w, const Inst& in, int i, LaneValues& out, std::uint64_t& writable) {
  const Operand& o = in.src[i];
  const Type t = in.type[i];
  const std::uint8_t role = std::uint8_t(1u << i);
  const bool dpp = i == 0 && in.dpp != Dpp::none;
  const bool scalar = o.kind != Operand::vgpr && o.kind != Operand::agpr;
  const bool half = t == Type::b16 || t == Type::f16;
  const bool plain = !dpp && !(in.sdwa && i < 2) && !half && !o.abs && !o.neg;
  const std::uint32_t lanes = w.lanes;
  if (plain) {
    // The common case: every lane's register (or the one scalar), read whole. Reading lanes EXEC
    // leaves out is harmless and lets the loops run straight.
    if (scalar) {
      const std::uint64_t v = is_64(t) ? scalar64(w, o) : scalar32(w, o);
      for (std::uint32_t l = 0; l < lanes; ++l) out.v[l] = v;
      return;
    }
    const std::uint32_t* file = o.kind == Operand::vgpr ? w.v : w.a;
    const std::uint32_t reg = o.kind == Operand::vgpr ? vreg_of(w, o, role) : o.reg;
    const std::uint32_t* lo = file + std::size_t(reg) * lanes;
    if (is_64(t)) {
      const std::uint32_t* hi = lo + lanes;
      for (std::uint32_t l = 0; l < lanes; ++l) out.v[l] = lo[l] | (std::uint64_t(hi[l]) << 32);
    } else {
      for (std::uint32_t l = 0; l < lanes; ++l) out.v[l] = lo[l];
    }
    return;
  }
  const std::uint64_t exec = w.exec();
  std::uint64_t e = exec;
  const std::uint64_t broadcast = scalar ? read_raw(w, o, t, 0, role) : 0;
  while (e) {
    const int lane = __builtin_ctzll(e);
    e &= e - 1;
    int from = lane;
    if (dpp) {
      from = dpp_source(in, lane, int(lanes));
      if (from < 0 || (!((exec >> from) & 1) && !(in.flags & kFetchInactive))) {
        if (in.flags & kBoundCtrl) {
          out.v[lane] = 0;
        } else {
          writable &= ~(1ull << lane);
        }
        continue;
      }
    }
    std::uint64_t v = scalar ? broadcast : read_raw(w, o, t, from, role);
    if (in.sdwa && i < 2) v = select(std::uint32_t(v), in.src_sel[i], o.sext);
    if (half) v = ((in.op_sel >> i) & 1 ? v >> 16 : v) & 0xffff;
    out.v[lane] = modify(v, o, t);
  }
  if (dpp) {
    // Rows and banks the masks leave out keep their old values.
    for (int lane = 0; lane < int(lanes); ++lane) {
      if (!((in.row_mask >> (lane >> 4)) & 1) || !((in.bank_mask >> ((lane >> 2) & 3)) & 1)) writable &= ~(1ull << lane);
    }
  }
}

namespace {
std::uint64_t output_modifiers(const Inst& in, std::uint64_t v, Type r) {
  if (r == Type::f32) {
    float f = f32(v);
    if (in.omod == 1) f *= 2.0f;
    else if (in.omod == 2) f *= 4.0f;
    else if (in.omod == 3) f *= 0.5f;
    if (in.flags & kClamp) f = std::isnan(f) ? 0.0f : std::min(1.0f, std::max(0.0f, f));
    return of32(f);
  }
  if (r == Type::f64) {
    double d = f64(v);
    if (in.omod == 1) d *= 2.0;
    else if (in.omod == 2) d *= 4.0;
    else if (in.omod == 3) d *= 0.5;
    if (in.flags & kClamp) d = std::isnan(d) ? 0.0 : std::min(1.0, std::max(0.0, d));
    return of64(d);
  }
  return v;
}
}  // namespace

void scatter(Wave& w, const Inst& in, const LaneValues& values, std::uint64_t writable, Type r) {
  const Operand& dst = in.dst[0];
  if (dst.kind != Operand::vgpr && dst.kind != Operand::agpr) {
    if (dst.kind == Operand::null || dst.kind == Operand::none) return;
  }
  const bool plain = !in.omod && !(in.flags & kClamp) && !(in.sdwa && in.dst_sel != SdwaSel::dword) && r != Type::b16 &&
                     r != Type::f16;
  if (plain && writable == w.lane_mask()) {
    // The common case: every lane written, no modifier.
    std::uint32_t* lo = dst32(w, dst, 0);
    const std::uint32_t lanes = w.lanes;  // a local: the stores could alias w.lanes
    if (is_64(r)) {
      std::uint32_t* hi = dst32(w, dst, 1);
      for (std::uint32_t l = 0; l < lanes; ++l) lo[l] = std::uint32_t(values.v[l]), hi[l] = std::uint32_t(values.v[l] >> 32);
    } else {
      for (std::uint32_t l = 0; l < lanes; ++l) lo[l] = std::uint32_t(values.v[l]);
    }
    return;
  }
  const Operand& d = in.dst[0];
  if (d.kind == Operand::null || d.kind == Operand::none) return;
  const bool modifiers = in.omod || (in.flags & kClamp);
  const bool half = r == Type::b16 || r == Type::f16;
  std::uint32_t* lo = dst32(w, d, 0);
  std::uint32_t* hi = is_64(r) ? dst32(w, d, 1) : nullptr;
  std::uint64_t e = writable;
  while (e) {
    const int lane = __builtin_ctzll(e);
    e &= e - 1;
    std::uint64_t v = values.v[lane];
    if (modifiers) v = output_modifiers(in, v, r);
    if (in.sdwa && in.dst_sel != SdwaSel::dword) {
      const std::uint32_t old = lo[lane];
      std::uint32_t x = std::uint32_t(v), mask = 0, shift = 0;
      switch (in.dst_sel) {
        case SdwaSel::byte0: mask = 0xff, shift = 0; break;
        case SdwaSel::byte1: mask = 0xff, shift = 8; break;
        case SdwaSel::byte2: mask = 0xff, shift = 16; break;
        case SdwaSel::byte3: mask = 0xff, shift = 24; break;
        case SdwaSel::word0: mask = 0xffff, shift = 0; break;
        default: mask = 0xffff, shift = 16; break;
      }
      x = (x & mask) << shift;
      if (in.dst_unused == 2) x |= old & ~(mask << shift);
      else if (in.dst_unused == 1 && ((x >> (shift + (mask == 0xff ? 7 : 15))) & 1)) x |= ~((mask << shift) | ((1u << shift) - 1));
      v = x;
    } else if (half) {
      // gfx9 zeroes the high half; gfx10 keeps it, and op_sel[3] writes the high half instead.
      const std::uint32_t h = std::uint32_t(v) & 0xffff;
      if (in.op_sel & 8) v = (lo[lane] & 0xffffu) | (h << 16);
      else v = w.preserve_hi16 ? (lo[lane] & 0xffff0000u) | h : h;
    }
    lo[lane] = std::uint32_t(v);
    if (hi) hi[lane] = std::uint32_t(v >> 32);
  }
}

void write_mask(Wave& w, const Operand& dst, std::uint64_t mask) {
  mask &= w.exec();
  if (dst.kind == Operand::null || dst.kind == Operand::none) return;
  if (w.lanes == 32 || dst.width == 1) write_scalar32(w, dst, std::uint32_t(mask));
  else write_scalar64(w, dst, mask);
}

std::uint64_t read_mask(const Wave& w, const Operand& src) {
  if (w.lanes == 32 || src.width == 1) return scalar32(w, src);
  return scalar64(w, src);
}

namespace {

using U = std::uint64_t;
constexpr Type b32 = Type::b32, i32 = Type::i32, f32t = Type::f32, b64 = Type::b64, i64 = Type::i64, f64t = Type::f64;

void reg(const char* name, Handler fn, std::uint8_t nsrc, Type t0 = b32, Type t1 = b32, Type t2 = b32,
         bool int_clamp = false) {
  OpInfo info;
  info.fn = fn;
  info.nsrc = nsrc;
  info.type[0] = t0, info.type[1] = t1, info.type[2] = t2;
  info.int_clamp = int_clamp;
  register_op(name, info);
}

// Unsigned adds and subtracts of `bits` bits; under clamp they saturate at 0 and the maximum, as
// VOP3's clamp bit makes them (rocPRIM's merge path computes max(0, diag - n) as one clamped sub).
template <int Bits>
U add_sat(U a, U b, bool sat) {
  constexpr U max = (U(1) << Bits) - 1;
  const U r = (a & max) + (b & max);
  return sat && r > max ? max : r & max;
}
template <int Bits>
U sub_sat(U a, U b, bool sat) {
  constexpr U max = (U(1) << Bits) - 1;
  return sat && (b & max) > (a & max) ? 0 : ((a & max) - (b & max)) & max;
}

// An IEEE half's bits (the low 16 of v) and back. Sums and products of two halves are exact in
// double, so f16 arithmetic done in double and rounded once to half is the hardware's (an fma's
// double result is rounded twice, which can differ in the last bit, rarely).
double f16(U v) {
  const std::uint16_t bits = std::uint16_t(v);
  _Float16 h;
  std::memcpy(&h, &bits, 2);
  return double(h);
}
U of16(double f) {
  const _Float16 h = static_cast<_Float16>(f);
  std::uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}
std::int32_t s32(U v) { return std::int32_t(std::uint32_t(v)); }
std::uint32_t u32(U v) { return std::uint32_t(v); }
std::uint32_t sext24(U v) { return std::uint32_t(std::int32_t(std::uint32_t(v) << 8) >> 8); }


// v_cmp_class: the operand's class against the mask in src1 (bit 0 signaling NaN ... bit 9 +inf).
template <class T>
bool fp_class(T x, std::uint32_t mask, bool signaling) {
  int bit;
  if (std::isnan(x)) bit = signaling ? 0 : 1;
  else if (std::isinf(x)) bit = x < 0 ? 2 : 9;
  else if (x == 0) bit = std::signbit(x) ? 5 : 6;
  else if (std::fpclassify(x) == FP_SUBNORMAL) bit = x < 0 ? 4 : 7;
  else bit = x < 0 ? 3 : 8;
  return (mask >> bit) & 1;
}

// The same for a half, from its bits: a half's subnormals are normal numbers once widened.
bool fp_class16(std::uint64_t v, std::uint32_t mask) {
  const std::uint32_t h = std::uint32_t(v) & 0xffff, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  const bool negative = (h >> 15) != 0;
  int bit;
  if (exponent == 31 && mantissa) bit = (mantissa & 0x200) ? 1 : 0;
  else if (exponent == 31) bit = negative ? 2 : 9;
  else if (exponent == 0 && mantissa == 0) bit = negative ? 5 : 6;
  else if (exponent == 0) bit = negative ? 4 : 7;
  else bit = negative ? 3 : 8;
  return (mask >> bit) & 1;
}

int exponent32(float f) { return int((bits32(f) >> 23) & 0xff); }
int exponent64(double d) { return int((bits64(d) >> 52) & 0x7ff); }

// The division helpers, as the ISA reference gives them: scale numerator or denominator away
// from the exponents where the reciprocal iteration would lose bits, then undo it. One rule for
// both widths; the thresholds and the scale are each width's (DivScale).
template <class F>
struct DivScale;
template <>
struct DivScale<float> {
  static constexpr int gap = 96, scale = 64, mantissa = 23;
  static int exponent(float f) { return exponent32(f); }
  static float of(std::uint64_t v) { return f32(v); }
  static std::uint64_t bits(float f) { return of32(f); }
};
template <>
struct DivScale<double> {
  static constexpr int gap = 768, scale = 128, mantissa = 53;
  static int exponent(double d) { return exponent64(d); }
  static double of(std::uint64_t v) { return f64(v); }
  static std::uint64_t bits(double d) { return of64(d); }
};

template <class F>
void div_scale(Wave& w, const Inst& in, Type type) {
  using T = DivScale<F>;
  LaneValues s[3], out;
  std::uint64_t writable = w.exec();
  for (int i = 0; i < 3; ++i) gather(w, in, i, s[i], writable);
  std::uint64_t vcc = 0, e = writable;
  while (e) {
    const int l = __builtin_ctzll(e);
    e &= e - 1;
    const F s0 = T::of(s[0].v[l]), den = T::of(s[1].v[l]), num = T::of(s[2].v[l]);
    F d = s0;
    if (num == 0 || den == 0) {
      d = std::numeric_limits<F>::quiet_NaN();
    } else if (T::exponent(num) - T::exponent(den) >= T::gap) {
      vcc |= 1ull << l;
      if (s0 == den) d = std::ldexp(s0, T::scale);
    } else if (std::fpclassify(den) == FP_SUBNORMAL) {
      d = std::ldexp(s0, T::scale);
    } else if (std::fpclassify(F(1) / den) == FP_SUBNORMAL && std::fpclassify(num / den) == FP_SUBNORMAL) {
      vcc |= 1ull << l;
      if (s0 == den) d = std::ldexp(s0, T::scale);
    } else if (std::fpclassify(F(1) / den) == FP_SUBNORMAL) {
      d = std::ldexp(s0, -T::scale);
    } else if (std::fpclassify(num / den) == FP_SUBNORMAL) {
      vcc |= 1ull << l;
      if (s0 == num) d = std::ldexp(s0, T::scale);
    } else if (T::exponent(num) <= T::mantissa) {
      d = std::ldexp(s0, T::scale);
    }
    out.v[l] = T::bits(d);
  }
  scatter(w, in, out, writable, type);
  write_mask(w, in.dst[1], vcc);
}

void div_scale_f32(WorkGroup&, Wave& w, const Inst& in) { div_scale<float>(w, in, f32t); }
void div_scale_f64(WorkGroup&, Wave& w, const Inst& in) { div_scale<double>(w, in, f64t); }

template <class T>
T div_fixup(T quotient, T den, T num) {
  const bool negative = std::signbit(den) != std::signbit(num);
  const T inf = std::numeric_limits<T>::infinity();
  if (std::isnan(num)) return num;
  if (std::isnan(den)) return den;
  if (den == 0 && num == 0) return std::numeric_limits<T>::quiet_NaN();
  if (std::isinf(den) && std::isinf(num)) return std::numeric_limits<T>::quiet_NaN();
  if (den == 0 || std::isinf(num)) return negative ? -inf : inf;
  if (std::isinf(den) || num == 0) return negative ? -T(0) : T(0);
  if (std::isnan(quotient)) return quotient;
  return negative ? -std::fabs(quotient) : std::fabs(quotient);
}

// v_trig_preop_f64: 53 bits of 2/pi for the Payne-Hanek reduction of `x` (the device library's
// sin and cos of large arguments). The bits start `segment` * 53 places after the binary point,
// and further along by as much as x's exponent exceeds 1077, so that x times the three segments
// the library takes holds the bits that matter; the value is those bits scaled to their place
// (2^-53 below the first), with 2^128 more for exponents of 1968 and above (the product would be
// subnormal otherwise). Past the table's end, 0; a NaN, quieted. As LLVM folds the instruction.
double trig_preop(double x, std::uint32_t segment) {
  // 2/pi's first 1184 bits after the point (37 words; its bits are the constant's, as any libm has them).
  static constexpr std::uint32_t kTwoOverPi[] = {
      0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561,
      0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484,
      0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
      0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b,
      0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08, 0x56033046};
  if (std::isnan(x)) return std::numeric_limits<double>::quiet_NaN();
  std::uint64_t bits = 0;
  std::memcpy(&bits, &x, 8);
  const std::uint32_t exponent = std::uint32_t(bits >> 52) & 0x7ff;
  std::uint32_t shift = (segment & 31) * 53;
  if (exponent > 1077) shift += exponent - 1077;
  const std::uint32_t word = shift / 32, bit = shift % 32;
  if (word + 2 >= std::size(kTwoOverPi)) return 0.0;
  std::uint64_t hi = (std::uint64_t(kTwoOverPi[word]) << 32) | kTwoOverPi[word + 1];
  const std::uint64_t lo = std::uint64_t(kTwoOverPi[word + 2]) << 32;
  if (bit) hi = (hi << bit) | (lo >> (64 - bit));
  int scale = -53 - int(shift);
  if (exponent >= 1968) scale += 128;
  return std::ldexp(double(hi >> 11), scale);
}

// Packed f32 (gfx90a, gfx940): one half of source `src` as the low (hi = false) or high half of
// the result takes it: op_sel picks for the low half, op_sel_hi for the high; neg_lo and neg_hi
// negate the pick.
// A source half of a packed f16 operation (VOP3P): op_sel picks the half for the result's low
// half, op_sel_hi for its high half; neg_lo and neg_hi negate the pick.
double pk_f16(const Inst& in, U v, int src, bool hi) {
  const bool upper = (((hi ? in.op_sel_hi : in.op_sel) >> src) & 1) != 0;
  const double d = f16(upper ? v >> 16 : v);
  return (((hi ? in.neg_hi : in.neg_lo) >> src) & 1) ? -d : d;
}
U pk16(double lo, double hi) { return of16(lo) | (of16(hi) << 16); }
// A source half of a packed 16-bit integer operation (VOP3P): op_sel picks for the result's low
// half, op_sel_hi for its high half (integers take no negation).
std::uint16_t pk_u16(const Inst& in, U v, int src, bool hi) {
  const bool upper = (((hi ? in.op_sel_hi : in.op_sel) >> src) & 1) != 0;
  return std::uint16_t(upper ? v >> 16 : v);
}

// A source of v_fma_mix*: f32, or (op_sel_hi) the f16 half op_sel names; neg_lo negates it,
// neg_hi takes its absolute value first (the mix instructions' own use of the two fields).
double mix_source(const Inst& in, U v, int src) {
  const std::uint8_t f16_sources = in.op_sel_hi_given ? in.op_sel_hi : 0;
  double d = (f16_sources >> src) & 1 ? f16(((in.op_sel >> src) & 1) ? v >> 16 : v) : double(f32(v));
  if ((in.neg_hi >> src) & 1) d = std::fabs(d);
  return (in.neg_lo >> src) & 1 ? -d : d;
}

float pk_f32(const Inst& in, U v, int src, bool hi) {
  const bool upper = (((hi ? in.op_sel_hi : in.op_sel) >> src) & 1) != 0;
  const float f = f32(upper ? v >> 32 : v);
  return (((hi ? in.neg_hi : in.neg_lo) >> src) & 1) ? -f : f;
}

}  // namespace

// ---- registration

#define L(...) [](WorkGroup&, Wave& w, const Inst& in) { __VA_ARGS__; }
#define F1(expr) [](U a, U, U, int) -> U { return expr; }
#define F2(expr) [](U a, U b, U, int) -> U { return expr; }
#define F3(expr) [](U a, U b, U c, int) -> U { return expr; }

namespace {
// A carry operation on plain 32-bit rows, in one straight loop over the lanes. Op 0: add, 1: sub
// (borrow), 2: subrev. The formulas are the generic path's (the carry lambda below), written with
// the operation fixed at compile time: a shared helper taking the operation cost 2-7% here.
template <int Op, bool WithIn>
void carry32(Wave& w, const Inst& in) {
  alignas(64) std::uint32_t bx[64], by[64];
  const std::uint32_t* x = lanes32(w, in, 0, bx);
  const std::uint32_t* y = lanes32(w, in, 1, by);
  const std::uint64_t cin = WithIn ? read_mask(w, in.src[2]) : 0;
  const std::uint64_t exec = w.exec();
  const std::uint32_t lanes = w.lanes;
  std::uint32_t* d = dst32(w, in.dst[0], 0);
  // Lane l reads only lane l of the sources before writing lane l of the destination, so the
  // destination may be a source (no temporary row). Carries in and out go through a byte per lane
  // and 32-bit arithmetic, so the loop vectorizes.
  alignas(16) std::uint8_t carry_in[64], carry_out[64];
  if constexpr (WithIn) unpack_lanes(cin, carry_in, lanes);
  const auto lane = [&](std::uint32_t l) {
    const std::uint32_t a = x[l], b = y[l], ci = WithIn ? carry_in[l] : 0;
    std::uint32_t v;
    bool c;
    if constexpr (Op == 0) {
      const std::uint32_t t = a + b;
      v = t + ci, c = (t < a) | (v < t);
    } else if constexpr (Op == 1) {
      v = a - b - ci, c = (b > a) | ((b == a) & (ci != 0));  // a borrow: b + ci > a
    } else {
      v = b - a - ci, c = (a > b) | ((a == b) & (ci != 0));
    }
    carry_out[l] = c;
    return v;
  };
  if (exec == w.lane_mask()) {
    for (std::uint32_t l = 0; l < lanes; ++l) d[l] = lane(l);
  } else {
    for (std::uint32_t l = 0; l < lanes; ++l) {
      const std::uint32_t v = lane(l);
      if ((exec >> l) & 1) d[l] = v;
    }
  }
  write_mask(w, in.dst[1], pack_lanes(carry_out, lanes) & exec);
}

// v_mad_u64_u32 / v_mad_i64_i32 from the rows: two plain 32-bit sources, a 64-bit addend (a VGPR
// pair or a scalar), the 64-bit result to a VGPR pair and the carry-out as a mask. Every lane is
// computed in a straight loop (lane l reads only lane l first, so the result may overwrite the
// addend, as compiled code's address arithmetic does: v_mad_u64_u32 v[0:1], null, s4, s8, v[0:1]).
template <bool Signed>
void mad64(Wave& w, const Inst& in) {
  alignas(64) std::uint32_t bx[64], by[64];
  const std::uint32_t* x = lanes32(w, in, 0, bx);
  const std::uint32_t* y = lanes32(w, in, 1, by);
  const std::uint32_t lanes = w.lanes;
  const Operand& o = in.src[2];
  const std::uint32_t* clo = nullptr;
  if (o.kind == Operand::vgpr) clo = w.v + std::size_t(vreg_of(w, o, 4)) * lanes;
  else if (o.kind == Operand::agpr) clo = w.a + std::size_t(o.reg) * lanes;
  const std::uint32_t* chi = clo ? clo + lanes : nullptr;
  const std::uint64_t cs = clo ? 0 : scalar64(w, o);
  std::uint32_t* dlo = dst32(w, in.dst[0], 0);
  std::uint32_t* dhi = dst32(w, in.dst[0], 1);
  const std::uint64_t exec = w.exec();
  const bool all = exec == w.lane_mask();
  alignas(16) std::uint8_t carry[64];
  for (std::uint32_t l = 0; l < lanes; ++l) {
    const std::uint64_t c = clo ? (clo[l] | (std::uint64_t(chi[l]) << 32)) : cs;
    std::uint64_t r;
    if constexpr (Signed) {
      std::int64_t sr;
      carry[l] = __builtin_add_overflow(std::int64_t(std::int32_t(x[l])) * std::int32_t(y[l]), std::int64_t(c), &sr);
      r = std::uint64_t(sr);
    } else {
      const std::uint64_t p = std::uint64_t(x[l]) * y[l];
      r = p + c;
      carry[l] = r < p;
    }
    if (all || ((exec >> l) & 1)) dlo[l] = std::uint32_t(r), dhi[l] = std::uint32_t(r >> 32);
  }
  write_mask(w, in.dst[1], pack_lanes(carry, lanes) & exec);
}

}  // namespace

void register_vector_ops() {
  // ---- moves and selects
  reg("v_mov_b32", L(valu<1, b32>(w, in, F1(a))), 1);
  reg("v_mov_b64", L(valu<1, b64>(w, in, F1(a))), 1, b64);
  reg("v_nop", L((void)w; (void)in), 0);
  reg("v_pk_mov_b32", L(valu<2, b64>(w, in, [&](U a, U b, U, int) -> U {
        const U lo = (in.op_sel & 1) ? a >> 32 : a & 0xffffffffu;
        const U hi = (in.op_sel & 2) ? b >> 32 : b & 0xffffffffu;
        return lo | (hi << 32);
      })), 2, b64, b64);
  reg("v_accvgpr_read_b32", L(valu<1, b32>(w, in, F1(a))), 1);
  reg("v_accvgpr_write_b32", L(valu<1, b32>(w, in, F1(a))), 1);
  reg("v_accvgpr_mov_b32", L(valu<1, b32>(w, in, F1(a))), 1);
  // Its VOP3 form takes float modifiers on both sources (-v, |v|): fp32 sign bits, as the
  // compiler folds a negation into the select (rocRAND's erfinv: `v_cndmask_b32_e64 v3, v3, -v3`).
  reg("v_cndmask_b32", L(const std::uint64_t m = read_mask(w, in.src[2]);
                         valu<2, b32>(w, in, [m](U a, U b, U, int lane) -> U { return (m >> lane) & 1 ? b : a; })),
      3, f32t, f32t);

  // ---- 32-bit integer
#define SAT2(expr) [sat = (in.flags & kClamp) != 0](U a, U b, U, int) -> U { return expr; }
  for (const char* name : {"v_add_u32", "v_add_nc_u32"}) {
    reg(name, L(valu<2, b32>(w, in, SAT2(add_sat<32>(a, b, sat)))), 2, b32, b32, b32, true);
  }
  for (const char* name : {"v_sub_u32", "v_sub_nc_u32"}) {
    reg(name, L(valu<2, b32>(w, in, SAT2(sub_sat<32>(a, b, sat)))), 2, b32, b32, b32, true);
  }
  for (const char* name : {"v_subrev_u32", "v_subrev_nc_u32"}) {
    reg(name, L(valu<2, b32>(w, in, SAT2(sub_sat<32>(b, a, sat)))), 2, b32, b32, b32, true);
  }
  reg("v_add3_u32", L(valu<3, b32>(w, in, F3(u32(a + b + c)))), 3);
  reg("v_add_lshl_u32", L(valu<3, b32>(w, in, F3(u32(u32(a + b) << (c & 31))))), 3);
  reg("v_lshl_add_u32", L(valu<3, b32>(w, in, F3(u32((u32(a) << (b & 31)) + c)))), 3);
  reg("v_lshl_or_b32", L(valu<3, b32>(w, in, F3(u32((u32(a) << (b & 31)) | c)))), 3);
  reg("v_and_or_b32", L(valu<3, b32>(w, in, F3(u32((a & b) | c)))), 3);
  reg("v_or3_b32", L(valu<3, b32>(w, in, F3(u32(a | b | c)))), 3);
  reg("v_xor3_b32", L(valu<3, b32>(w, in, F3(u32(a ^ b ^ c)))), 3);
  reg("v_xad_u32", L(valu<3, b32>(w, in, F3(u32((a ^ b) + c)))), 3);
  // gfx950: any function of three bits, bit by bit, from its truth table (as x86's vpternlog).
  reg("v_bitop3_b32", L(const std::uint8_t table = in.bitop3;
                        valu<3, b32>(w, in, [table](U a, U b, U c, int) -> U {
                          U r = 0;
                          for (unsigned m = 0; m < 8; ++m) {
                            if ((table >> m) & 1) r |= ((m & 4) ? a : ~a) & ((m & 2) ? b : ~b) & ((m & 1) ? c : ~c);
                          }
                          return u32(r);
                        })), 3);
  reg("v_mul_lo_u32", L(valu<2, b32>(w, in, F2(u32(a * b)))), 2);
  reg("v_mul_hi_u32", L(valu<2, b32>(w, in, F2(u32((U(u32(a)) * u32(b)) >> 32)))), 2);
  reg("v_mul_hi_i32", L(valu<2, b32>(w, in, F2(u32(std::uint64_t(std::int64_t(s32(a)) * s32(b)) >> 32)))), 2);
  reg("v_mul_u32_u24", L(valu<2, b32>(w, in, F2(u32((a & 0xffffff) * (b & 0xffffff))))), 2);
  reg("v_mul_hi_u32_u24", L(valu<2, b32>(w, in, F2(u32(((a & 0xffffff) * (b & 0xffffff)) >> 32)))), 2);
  reg("v_mul_i32_i24", L(valu<2, b32>(w, in, F2(u32(std::int64_t(std::int32_t(sext24(a))) * std::int32_t(sext24(b)))))), 2);
  reg("v_mad_u32_u24", L(valu<3, b32>(w, in, F3(u32((a & 0xffffff) * (b & 0xffffff) + c)))), 3);
  reg("v_mad_i32_i24", L(valu<3, b32>(w, in, F3(u32(std::int64_t(std::int32_t(sext24(a))) * std::int32_t(sext24(b)) + s32(c))))), 3);
  reg("v_mad_u32_u16", L(valu<3, b32>(w, in, F3(u32((a & 0xffff) * (b & 0xffff) + c)))), 3);
  reg("v_lshlrev_b32", L(valu<2, b32>(w, in, F2(u32(u32(b) << (a & 31))))), 2);
  reg("v_lshrrev_b32", L(valu<2, b32>(w, in, F2(u32(b) >> (a & 31)))), 2);
  reg("v_ashrrev_i32", L(valu<2, b32>(w, in, F2(u32(s32(b) >> (a & 31))))), 2);
  reg("v_lshl_b32", L(valu<2, b32>(w, in, F2(u32(u32(a) << (b & 31))))), 2);
  reg("v_lshr_b32", L(valu<2, b32>(w, in, F2(u32(a) >> (b & 31)))), 2);
  reg("v_ashr_i32", L(valu<2, b32>(w, in, F2(u32(s32(a) >> (b & 31))))), 2);
  reg("v_and_b32", L(valu<2, b32>(w, in, F2(u32(a & b)))), 2);
  reg("v_or_b32", L(valu<2, b32>(w, in, F2(u32(a | b)))), 2);
  reg("v_xor_b32", L(valu<2, b32>(w, in, F2(u32(a ^ b)))), 2);
  reg("v_xnor_b32", L(valu<2, b32>(w, in, F2(u32(~(a ^ b))))), 2);
  reg("v_not_b32", L(valu<1, b32>(w, in, F1(u32(~a)))), 1);
  reg("v_bfrev_b32", L(valu<1, b32>(w, in, [](U a, U, U, int) -> U {
        std::uint32_t r = 0;
        for (int i = 0; i < 32; ++i) r |= ((u32(a) >> i) & 1u) << (31 - i);
        return r;
      })), 1);
  reg("v_bfe_u32", L(valu<3, b32>(w, in, [](U a, U b, U c, int) -> U {
        const std::uint32_t off = u32(b) & 31, width = u32(c) & 31;
        return width == 0 ? 0 : (u32(a) >> off) & ((1u << width) - 1);
      })), 3);
  reg("v_bfe_i32", L(valu<3, b32>(w, in, [](U a, U b, U c, int) -> U {
        const std::uint32_t off = u32(b) & 31, width = u32(c) & 31;
        if (width == 0) return 0;
        return u32(std::int32_t(u32(a) << (32 - off - width)) >> (32 - width));
      })), 3);
  reg("v_bfi_b32", L(valu<3, b32>(w, in, F3(u32((a & b) | (~a & c))))), 3);
  reg("v_bfm_b32", L(valu<2, b32>(w, in, F2(u32(((1ull << (a & 31)) - 1) << (b & 31))))), 2);
  reg("v_alignbit_b32", L(valu<3, b32>(w, in, F3(u32(((U(u32(a)) << 32) | u32(b)) >> (c & 31))))), 3);
  reg("v_alignbyte_b32", L(valu<3, b32>(w, in, F3(u32(((U(u32(a)) << 32) | u32(b)) >> (8 * (c & 3)))))), 3);
  reg("v_perm_b32", L(valu<3, b32>(w, in, [](U a, U b, U c, int) -> U {
        const U both = (U(u32(a)) << 32) | u32(b);
        std::uint32_t r = 0;
        for (int i = 0; i < 4; ++i) {
          const std::uint32_t sel = (u32(c) >> (8 * i)) & 0xff;
          std::uint32_t byte;
          if (sel < 8) byte = std::uint32_t(both >> (8 * sel)) & 0xff;
          else if (sel == 8) byte = (u32(b) & 0x8000) ? 0xff : 0;
          else if (sel == 9) byte = (u32(b) & 0x80000000u) ? 0xff : 0;
          else if (sel == 10) byte = (u32(a) & 0x8000) ? 0xff : 0;
          else if (sel == 11) byte = (u32(a) & 0x80000000u) ? 0xff : 0;
          else if (sel == 12) byte = 0;
          else byte = 0xff;
          r |= byte << (8 * i);
        }
        return r;
      })), 3);
  reg("v_bcnt_u32_b32", L(valu<2, b32>(w, in, F2(u32(__builtin_popcount(u32(a)) + b)))), 2);
  reg("v_ffbh_u32", L(valu<1, b32>(w, in, F1(u32(a) ? U(__builtin_clz(u32(a))) : U(0xffffffffu)))), 1);
  reg("v_ffbl_b32", L(valu<1, b32>(w, in, F1(u32(a) ? U(__builtin_ctz(u32(a))) : U(0xffffffffu)))), 1);
  reg("v_ffbh_i32", L(valu<1, b32>(w, in, [](U a, U, U, int) -> U {
        const std::uint32_t v = s32(a) < 0 ? ~u32(a) : u32(a);
        return v ? U(__builtin_clz(v) - 1) : U(0xffffffffu);
      })), 1);
  reg("v_min_u32", L(valu<2, b32>(w, in, F2(std::min(u32(a), u32(b))))), 2);
  reg("v_max_u32", L(valu<2, b32>(w, in, F2(std::max(u32(a), u32(b))))), 2);
  reg("v_min_i32", L(valu<2, b32>(w, in, F2(u32(std::min(s32(a), s32(b)))))), 2);
  reg("v_max_i32", L(valu<2, b32>(w, in, F2(u32(std::max(s32(a), s32(b)))))), 2);
  reg("v_min3_u32", L(valu<3, b32>(w, in, F3(std::min({u32(a), u32(b), u32(c)})))), 3);
  reg("v_max3_u32", L(valu<3, b32>(w, in, F3(std::max({u32(a), u32(b), u32(c)})))), 3);
  reg("v_min3_i32", L(valu<3, b32>(w, in, F3(u32(std::min({s32(a), s32(b), s32(c)}))))), 3);
  reg("v_max3_i32", L(valu<3, b32>(w, in, F3(u32(std::max({s32(a), s32(b), s32(c)}))))), 3);
  reg("v_med3_u32", L(valu<3, b32>(w, in, F3(std::max(std::min(u32(a), u32(b)), std::min(std::max(u32(a), u32(b)), u32(c)))))), 3);
  reg("v_med3_i32", L(valu<3, b32>(w, in, F3(u32(std::max(std::min(s32(a), s32(b)), std::min(std::max(s32(a), s32(b)), s32(c))))))), 3);
  reg("v_sad_u32", L(valu<3, b32>(w, in, F3(u32((u32(a) > u32(b) ? u32(a) - u32(b) : u32(b) - u32(a)) + c)))), 3);
  reg("v_cvt_f32_ubyte0", L(valu<1, f32t>(w, in, F1(of32(float(a & 0xff))))), 1);
  reg("v_cvt_f32_ubyte1", L(valu<1, f32t>(w, in, F1(of32(float((a >> 8) & 0xff))))), 1);
  reg("v_cvt_f32_ubyte2", L(valu<1, f32t>(w, in, F1(of32(float((a >> 16) & 0xff))))), 1);
  reg("v_cvt_f32_ubyte3", L(valu<1, f32t>(w, in, F1(of32(float((a >> 24) & 0xff))))), 1);

  // ---- fp16 (the low half of each source, or the half op_sel names), through the host's
  // IEEE half (_Float16): conversions round to nearest even, as the hardware's default mode.
  constexpr Type f16t = Type::f16;
  reg("v_cvt_f16_f32", L(valu<1, f16t>(w, in, F1(of16(f32(a))))), 1, f32t);
  reg("v_cvt_f32_f16", L(valu<1, f32t>(w, in, F1(of32(f16(a))))), 1, f16t);
  reg("v_add_f16", L(valu<2, f16t>(w, in, F2(of16(f16(a) + f16(b))))), 2, f16t, f16t);
  reg("v_sub_f16", L(valu<2, f16t>(w, in, F2(of16(f16(a) - f16(b))))), 2, f16t, f16t);
  reg("v_mul_f16", L(valu<2, f16t>(w, in, F2(of16(f16(a) * f16(b))))), 2, f16t, f16t);
  reg("v_fma_f16", L(valu<3, f16t>(w, in, F3(of16(std::fma(f16(a), f16(b), f16(c)))))), 3, f16t, f16t, f16t);
  // The destination is the addend (its low half; gfx10 keeps the high half, as for every f16 op).
  reg("v_fmac_f16", L(const Operand acc = in.dst[0];
                      valu<2, f16t>(w, in, [&w, acc](U a, U b, U, int lane) -> U {
                        return of16(std::fma(f16(a), f16(b), f16(w.v[acc.reg * w.lanes + lane])));
                      })), 2, f16t, f16t);
  reg("v_mac_f16", L(const Operand acc = in.dst[0];
                     valu<2, f16t>(w, in, [&w, acc](U a, U b, U, int lane) -> U {
                       return of16(f16(of16(f16(a) * f16(b))) + f16(w.v[acc.reg * w.lanes + lane]));
                     })), 2, f16t, f16t);
  reg("v_mad_f16", L(valu<3, f16t>(w, in, F3(of16(f16(of16(f16(a) * f16(b))) + f16(c))))), 3, f16t, f16t, f16t);
  reg("v_fmaak_f16", L(valu<3, f16t>(w, in, F3(of16(std::fma(f16(a), f16(b), f16(c)))))), 3, f16t, f16t, f16t);
  reg("v_fmamk_f16", L(valu<3, f16t>(w, in, F3(of16(std::fma(f16(a), f16(b), f16(c)))))), 3, f16t, f16t, f16t);
  reg("v_madak_f16", L(valu<3, f16t>(w, in, F3(of16(f16(of16(f16(a) * f16(b))) + f16(c))))), 3, f16t, f16t, f16t);
  reg("v_madmk_f16", L(valu<3, f16t>(w, in, F3(of16(f16(of16(f16(a) * f16(b))) + f16(c))))), 3, f16t, f16t, f16t);
  reg("v_max_f16", L(valu<2, f16t>(w, in, F2(of16(std::fmax(f16(a), f16(b)))))), 2, f16t, f16t);
  // Mixed precision: each source f32 or f16 (mix_source); the result f32, or f16 into the low or
  // high half of the destination, the other half kept.
  reg("v_fma_mix_f32", L(valu<3, b32>(w, in, [&in](U a, U b, U c, int) -> U {
        return of32(std::fma(float(mix_source(in, a, 0)), float(mix_source(in, b, 1)), float(mix_source(in, c, 2))));
      })), 3);
  reg("v_fma_mixlo_f16", L(const Operand d = in.dst[0];
                           valu<3, b32>(w, in, [&w, &in, d](U a, U b, U c, int lane) -> U {
                             const U r = of16(std::fma(mix_source(in, a, 0), mix_source(in, b, 1), mix_source(in, c, 2)));
                             return (w.v[d.reg * w.lanes + lane] & 0xffff0000u) | r;
                           })), 3);
  reg("v_fma_mixhi_f16", L(const Operand d = in.dst[0];
                           valu<3, b32>(w, in, [&w, &in, d](U a, U b, U c, int lane) -> U {
                             const U r = of16(std::fma(mix_source(in, a, 0), mix_source(in, b, 1), mix_source(in, c, 2)));
                             return (w.v[d.reg * w.lanes + lane] & 0xffffu) | (r << 16);
                           })), 3);
  // Unary fp16: computed in double from the half, rounded once to half (the hardware's results
  // for sqrt and rcp are within 1 ulp of that; log, exp, sin and cos are approximations there too).
  reg("v_sqrt_f16", L(valu<1, f16t>(w, in, F1(of16(std::sqrt(f16(a)))))), 1, f16t);
  reg("v_rcp_f16", L(valu<1, f16t>(w, in, F1(of16(1.0 / f16(a))))), 1, f16t);
  reg("v_rsq_f16", L(valu<1, f16t>(w, in, F1(of16(1.0 / std::sqrt(f16(a)))))), 1, f16t);
  reg("v_log_f16", L(valu<1, f16t>(w, in, F1(of16(std::log2(f16(a)))))), 1, f16t);
  reg("v_exp_f16", L(valu<1, f16t>(w, in, F1(of16(std::exp2(f16(a)))))), 1, f16t);
  reg("v_sin_f16", L(valu<1, f16t>(w, in, F1(of16(std::sin(f16(a) * 6.283185307179586))))), 1, f16t);
  reg("v_cos_f16", L(valu<1, f16t>(w, in, F1(of16(std::cos(f16(a) * 6.283185307179586))))), 1, f16t);
  reg("v_floor_f16", L(valu<1, f16t>(w, in, F1(of16(std::floor(f16(a)))))), 1, f16t);
  reg("v_ceil_f16", L(valu<1, f16t>(w, in, F1(of16(std::ceil(f16(a)))))), 1, f16t);
  reg("v_trunc_f16", L(valu<1, f16t>(w, in, F1(of16(std::trunc(f16(a)))))), 1, f16t);
  reg("v_rndne_f16", L(valu<1, f16t>(w, in, F1(of16(std::nearbyint(f16(a)))))), 1, f16t);
  reg("v_ldexp_f16", L(valu<2, f16t>(w, in, F2(of16(std::ldexp(f16(a), std::int16_t(b)))))), 2, f16t, Type::b16);
  reg("v_cvt_f16_u16", L(valu<1, f16t>(w, in, F1(of16(double(std::uint16_t(a)))))), 1, Type::b16);
  reg("v_cvt_f16_i16", L(valu<1, f16t>(w, in, F1(of16(double(std::int16_t(a)))))), 1, Type::b16);
  reg("v_cvt_u16_f16", L(valu<1, Type::b16>(w, in, F1(U(std::uint16_t(std::min(65535.0, std::max(0.0, std::trunc(f16(a))))))))), 1, f16t);
  reg("v_cvt_i16_f16", L(valu<1, Type::b16>(w, in, F1(U(std::uint16_t(std::int16_t(std::min(32767.0, std::max(-32768.0, std::trunc(f16(a)))))))))), 1, f16t);
  // Packed fp16: both halves at once, each computed as its scalar twin.
  reg("v_pk_add_f16", L(valu<2, b32>(w, in, [&in](U a, U b, U, int) -> U {
        return pk16(pk_f16(in, a, 0, false) + pk_f16(in, b, 1, false), pk_f16(in, a, 0, true) + pk_f16(in, b, 1, true));
      })), 2);
  reg("v_pk_mul_f16", L(valu<2, b32>(w, in, [&in](U a, U b, U, int) -> U {
        return pk16(pk_f16(in, a, 0, false) * pk_f16(in, b, 1, false), pk_f16(in, a, 0, true) * pk_f16(in, b, 1, true));
      })), 2);
  reg("v_pk_fma_f16", L(valu<3, b32>(w, in, [&in](U a, U b, U c, int) -> U {
        return pk16(std::fma(pk_f16(in, a, 0, false), pk_f16(in, b, 1, false), pk_f16(in, c, 2, false)),
                    std::fma(pk_f16(in, a, 0, true), pk_f16(in, b, 1, true), pk_f16(in, c, 2, true)));
      })), 3);
  reg("v_pk_max_f16", L(valu<2, b32>(w, in, [&in](U a, U b, U, int) -> U {
        return pk16(std::fmax(pk_f16(in, a, 0, false), pk_f16(in, b, 1, false)),
                    std::fmax(pk_f16(in, a, 0, true), pk_f16(in, b, 1, true)));
      })), 2);
  reg("v_pk_min_f16", L(valu<2, b32>(w, in, [&in](U a, U b, U, int) -> U {
        return pk16(std::fmin(pk_f16(in, a, 0, false), pk_f16(in, b, 1, false)),
                    std::fmin(pk_f16(in, a, 0, true), pk_f16(in, b, 1, true)));
      })), 2);
  // Two halves into one register: S0 low, S1 high (each the half op_sel names, with its modifiers).
  reg("v_pack_b32_f16", L(valu<2, b32>(w, in, F2((a & 0xffff) | ((b & 0xffff) << 16)))), 2, f16t, f16t);
  reg("v_min_f16", L(valu<2, f16t>(w, in, F2(of16(std::fmin(f16(a), f16(b)))))), 2, f16t, f16t);

  // ---- 16-bit integer (the low half of each source, or the half op_sel names)
  constexpr Type b16 = Type::b16;
  for (const char* name : {"v_add_u16", "v_add_nc_u16"}) {
    reg(name, L(valu<2, b16>(w, in, SAT2(add_sat<16>(a, b, sat)))), 2, b16, b16, b32, true);
  }
  for (const char* name : {"v_sub_u16", "v_sub_nc_u16"}) {
    reg(name, L(valu<2, b16>(w, in, SAT2(sub_sat<16>(a, b, sat)))), 2, b16, b16, b32, true);
  }
  reg("v_subrev_u16", L(valu<2, b16>(w, in, SAT2(sub_sat<16>(b, a, sat)))), 2, b16, b16, b32, true);
  reg("v_mul_lo_u16", L(valu<2, b16>(w, in, F2(a * b))), 2, b16, b16);
  // Packed: both halves at once (rocSPARSE 3's gfx9 code).
  reg("v_pk_mul_lo_u16", L(valu<2, b32>(w, in, [&in](U a, U b, U, int) -> U {
        const U lo = std::uint16_t(pk_u16(in, a, 0, false) * pk_u16(in, b, 1, false));
        const U hi = std::uint16_t(pk_u16(in, a, 0, true) * pk_u16(in, b, 1, true));
        return lo | (hi << 16);
      })), 2);
  // The dot product of four signed bytes, added to the destination (gfx908, gfx90a: VOP2, "c"
  // for the accumulating form), wrapping at 32 bits.
  reg("v_dot4c_i32_i8", L(const Operand acc = in.dst[0];
                          valu<2, b32>(w, in, [&w, acc](U a, U b, U, int lane) -> U {
                            std::uint32_t sum = std::uint32_t(w.v[acc.reg * w.lanes + lane]);
                            for (int k = 0; k < 4; ++k) {
                              sum += std::uint32_t(std::int32_t(std::int8_t(a >> (8 * k))) * std::int8_t(b >> (8 * k)));
                            }
                            return sum;
                          })), 2);
  // gfx11's mixed-sign dot products (VOP3P): neg_lo[0] and neg_lo[1] say whether A's and B's
  // bytes (or nibbles) are signed; C is added; clamp saturates the sum at 32 bits.
  reg("v_dot4_i32_iu8", L(valu<3, b32>(w, in, [&in](U a, U b, U c, int) -> U {
        std::int64_t sum = std::int32_t(std::uint32_t(c));
        for (int k = 0; k < 4; ++k) {
          const std::uint32_t x = (a >> (8 * k)) & 0xff, y = (b >> (8 * k)) & 0xff;
          sum += std::int64_t(in.neg_lo & 1 ? std::int8_t(x) : std::int32_t(x)) * (in.neg_lo & 2 ? std::int8_t(y) : std::int32_t(y));
        }
        if (in.flags & kClamp) sum = std::clamp<std::int64_t>(sum, INT32_MIN, INT32_MAX);
        return std::uint32_t(sum);
      })), 3, b32, b32, b32, true);
  reg("v_dot8_i32_iu4", L(valu<3, b32>(w, in, [&in](U a, U b, U c, int) -> U {
        std::int64_t sum = std::int32_t(std::uint32_t(c));
        for (int k = 0; k < 8; ++k) {
          const std::int32_t x = std::int32_t((a >> (4 * k)) & 0xf), y = std::int32_t((b >> (4 * k)) & 0xf);
          sum += std::int64_t(in.neg_lo & 1 && x > 7 ? x - 16 : x) * (in.neg_lo & 2 && y > 7 ? y - 16 : y);
        }
        if (in.flags & kClamp) sum = std::clamp<std::int64_t>(sum, INT32_MIN, INT32_MAX);
        return std::uint32_t(sum);
      })), 3, b32, b32, b32, true);
  // gfx11's 16-bit move (true16: either half of a VGPR to either half of another).
  reg("v_mov_b16", L(valu<1, b16>(w, in, F1(a))), 1, b16);
  // gfx11's 16-bit logic and select (true16 halves, or op_sel's in VOP3).
  reg("v_and_b16", L(valu<2, b16>(w, in, F2(a & b))), 2, b16, b16);
  reg("v_or_b16", L(valu<2, b16>(w, in, F2(a | b))), 2, b16, b16);
  reg("v_xor_b16", L(valu<2, b16>(w, in, F2(a ^ b))), 2, b16, b16);
  reg("v_not_b16", L(valu<1, b16>(w, in, F1(~a))), 1, b16);
  reg("v_cndmask_b16", L(const std::uint64_t m = read_mask(w, in.src[2]);
                         valu<2, b16>(w, in, [m](U a, U b, U, int lane) -> U { return (m >> lane) & 1 ? b : a; })),
      3, b16, b16);
  reg("v_mad_u16", L(valu<3, b16>(w, in, F3(a * b + c))), 3, b16, b16, b16);
  reg("v_lshlrev_b16", L(valu<2, b16>(w, in, F2(b << (a & 15)))), 2, b16, b16);
  reg("v_lshrrev_b16", L(valu<2, b16>(w, in, F2(b >> (a & 15)))), 2, b16, b16);
  reg("v_ashrrev_i16", L(valu<2, b16>(w, in, F2(U(std::int16_t(std::uint16_t(b)) >> (a & 15))))), 2, b16, b16);
  reg("v_max_u16", L(valu<2, b16>(w, in, F2(std::max(a, b)))), 2, b16, b16);
  reg("v_min_u16", L(valu<2, b16>(w, in, F2(std::min(a, b)))), 2, b16, b16);
  reg("v_max_i16", L(valu<2, b16>(w, in, F2(U(std::max(std::int16_t(a), std::int16_t(b)))))), 2, b16, b16);
  reg("v_min_i16", L(valu<2, b16>(w, in, F2(U(std::min(std::int16_t(a), std::int16_t(b)))))), 2, b16, b16);

  // ---- carries: the carry-out (and borrow) is a lane mask in the second destination
  auto carry = [](Wave& w, const Inst& in, bool with_in, int op) {
    if (plain32(in, 2, b32)) {  // 32-bit rows, no modifier (the 64-bit address arithmetic of most kernels)
      if (op == 0) return with_in ? carry32<0, true>(w, in) : carry32<0, false>(w, in);
      if (op == 1) return with_in ? carry32<1, true>(w, in) : carry32<1, false>(w, in);
      return with_in ? carry32<2, true>(w, in) : carry32<2, false>(w, in);
    }
    LaneValues a, b, out;
    std::uint64_t writable = w.exec();
    gather(w, in, 0, a, writable);
    gather(w, in, 1, b, writable);
    const std::uint64_t cin = with_in ? read_mask(w, in.src[2]) : 0;
    std::uint64_t cout = 0, e = writable;
    while (e) {
      const int l = __builtin_ctzll(e);
      e &= e - 1;
      const U x = u32(a.v[l]), y = u32(b.v[l]), ci = (cin >> l) & 1;
      U r;
      bool c;
      if (op == 0) r = x + y + ci, c = r >> 32;              // add
      else if (op == 1) r = x - y - ci, c = y + ci > x;      // sub: borrow
      else r = y - x - ci, c = x + ci > y;                   // subrev
      if ((in.flags & kClamp) && c) r = op == 0 ? 0xffffffffu : 0;  // clamp: saturated, the carry still out
      out.v[l] = u32(r);
      if (c) cout |= 1ull << l;
    }
    scatter(w, in, out, writable, b32);
    write_mask(w, in.dst[1], cout);
  };
  static decltype(carry) carry_fn = carry;
  reg("v_add_co_u32", L(carry_fn(w, in, false, 0)), 2, b32, b32, b32, true);
  reg("v_sub_co_u32", L(carry_fn(w, in, false, 1)), 2, b32, b32, b32, true);
  reg("v_subrev_co_u32", L(carry_fn(w, in, false, 2)), 2, b32, b32, b32, true);
  reg("v_addc_co_u32", L(carry_fn(w, in, true, 0)), 3, b32, b32, b32, true);
  reg("v_subb_co_u32", L(carry_fn(w, in, true, 1)), 3, b32, b32, b32, true);
  reg("v_subbrev_co_u32", L(carry_fn(w, in, true, 2)), 3, b32, b32, b32, true);
  reg("v_add_co_ci_u32", L(carry_fn(w, in, true, 0)), 3, b32, b32, b32, true);
  reg("v_sub_co_ci_u32", L(carry_fn(w, in, true, 1)), 3, b32, b32, b32, true);
  reg("v_subrev_co_ci_u32", L(carry_fn(w, in, true, 2)), 3, b32, b32, b32, true);
  // v_mad_u64_u32 / v_mad_i64_i32: 64-bit result, carry-out in the second destination.
  reg("v_mad_u64_u32", L(if (in.plain_sources >= 2 && in.plain_result && !in.src[2].abs && !in.src[2].neg) return mad64<false>(w, in);
                         LaneValues a; LaneValues b; LaneValues c; LaneValues out; std::uint64_t wr = w.exec();
                         gather(w, in, 0, a, wr); gather(w, in, 1, b, wr); gather(w, in, 2, c, wr);
                         std::uint64_t cout = 0; std::uint64_t e = wr;
                         while (e) {
                           const int l = __builtin_ctzll(e);
                           e &= e - 1;
                           const unsigned __int128 r = (unsigned __int128)(U(u32(a.v[l])) * u32(b.v[l])) + c.v[l];
                           out.v[l] = U(r);
                           if (r >> 64) cout |= 1ull << l;
                         }
                         scatter(w, in, out, wr, b64); write_mask(w, in.dst[1], cout)), 3, b32, b32, b64);
  reg("v_mad_i64_i32", L(if (in.plain_sources >= 2 && in.plain_result && !in.src[2].abs && !in.src[2].neg) return mad64<true>(w, in);
                         LaneValues a; LaneValues b; LaneValues c; LaneValues out; std::uint64_t wr = w.exec();
                         gather(w, in, 0, a, wr); gather(w, in, 1, b, wr); gather(w, in, 2, c, wr);
                         std::uint64_t cout = 0; std::uint64_t e = wr;
                         while (e) {
                           const int l = __builtin_ctzll(e);
                           e &= e - 1;
                           const __int128 r = (__int128)(std::int64_t(s32(a.v[l])) * s32(b.v[l])) + std::int64_t(c.v[l]);
                           out.v[l] = U(r);
                           if (r != __int128(std::int64_t(r))) cout |= 1ull << l;
                         }
                         scatter(w, in, out, wr, i64); write_mask(w, in.dst[1], cout)), 3, i32, i32, i64);

  // ---- 64-bit integer
  reg("v_lshlrev_b64", L(valu<2, b64>(w, in, F2(b << (a & 63)))), 2, b32, b64);
  reg("v_lshrrev_b64", L(valu<2, b64>(w, in, F2(b >> (a & 63)))), 2, b32, b64);
  reg("v_ashrrev_i64", L(valu<2, b64>(w, in, F2(U(std::int64_t(b) >> (a & 63))))), 2, b32, i64);
  reg("v_lshl_b64", L(valu<2, b64>(w, in, F2(a << (b & 63)))), 2, b64, b32);
  reg("v_lshr_b64", L(valu<2, b64>(w, in, F2(a >> (b & 63)))), 2, b64, b32);
  reg("v_lshl_add_u64", L(valu<3, b64>(w, in, F3((a << (b & 7)) + c))), 3, b64, b32, b64);

  // ---- fp32
  reg("v_add_f32", L(valu<2, f32t>(w, in, F2(of32(f32(a) + f32(b))))), 2, f32t, f32t);
  reg("v_sub_f32", L(valu<2, f32t>(w, in, F2(of32(f32(a) - f32(b))))), 2, f32t, f32t);
  reg("v_subrev_f32", L(valu<2, f32t>(w, in, F2(of32(f32(b) - f32(a))))), 2, f32t, f32t);
  reg("v_mul_f32", L(valu<2, f32t>(w, in, F2(of32(f32(a) * f32(b))))), 2, f32t, f32t);
  // Packed f32 (gfx90a, gfx940): each half of the result from the halves pk_f32 picks.
  reg("v_pk_add_f32", L(valu<2, b64>(w, in, [&](U a, U b, U, int) -> U {
        return of32(pk_f32(in, a, 0, false) + pk_f32(in, b, 1, false)) |
               (of32(pk_f32(in, a, 0, true) + pk_f32(in, b, 1, true)) << 32);
      })), 2, b64, b64);
  reg("v_pk_mul_f32", L(valu<2, b64>(w, in, [&](U a, U b, U, int) -> U {
        return of32(pk_f32(in, a, 0, false) * pk_f32(in, b, 1, false)) |
               (of32(pk_f32(in, a, 0, true) * pk_f32(in, b, 1, true)) << 32);
      })), 2, b64, b64);
  reg("v_pk_fma_f32", L(valu<3, b64>(w, in, [&](U a, U b, U c, int) -> U {
        return of32(std::fma(pk_f32(in, a, 0, false), pk_f32(in, b, 1, false), pk_f32(in, c, 2, false))) |
               (of32(std::fma(pk_f32(in, a, 0, true), pk_f32(in, b, 1, true), pk_f32(in, c, 2, true))) << 32);
      })), 3, b64, b64, b64);
  reg("v_mul_legacy_f32", L(valu<2, f32t>(w, in, F2(of32(f32(a) == 0 || f32(b) == 0 ? 0.0f : f32(a) * f32(b))))), 2, f32t, f32t);
  reg("v_fma_f32", L(valu<3, f32t>(w, in, F3(of32(std::fma(f32(a), f32(b), f32(c)))))), 3, f32t, f32t, f32t);
  reg("v_mad_f32", L(valu<3, f32t>(w, in, F3(of32(float(f32(a) * f32(b)) + f32(c))))), 3, f32t, f32t, f32t);
  // The forms with a literal K (VOP2 with a 32-bit constant after the instruction): the
  // disassembler prints the operands in the order they are used, so each is fma (or mad) of its
  // three sources as printed: v_fmaak_f32 D = S0 * S1 + K, v_fmamk_f32 D = S0 * K + S1 (gfx10 and
  // later, where hipcc folds a constant into an fma); v_madak_f32 and v_madmk_f32 the same,
  // unfused (gfx9).
  reg("v_fmaak_f32", L(valu<3, f32t>(w, in, F3(of32(std::fma(f32(a), f32(b), f32(c)))))), 3, f32t, f32t, f32t);
  reg("v_fmamk_f32", L(valu<3, f32t>(w, in, F3(of32(std::fma(f32(a), f32(b), f32(c)))))), 3, f32t, f32t, f32t);
  reg("v_madak_f32", L(valu<3, f32t>(w, in, F3(of32(float(f32(a) * f32(b)) + f32(c))))), 3, f32t, f32t, f32t);
  reg("v_madmk_f32", L(valu<3, f32t>(w, in, F3(of32(float(f32(a) * f32(b)) + f32(c))))), 3, f32t, f32t, f32t);
  // v_fmac / v_mac: the destination is the addend.
  reg("v_fmac_f32", L(const Operand acc = in.dst[0];
                      valu<2, f32t>(w, in, [&w, acc](U a, U b, U, int lane) -> U {
                        return of32(std::fma(f32(a), f32(b), as_f32(w.v[acc.reg * w.lanes + lane])));
                      })), 2, f32t, f32t);
  reg("v_mac_f32", L(const Operand acc = in.dst[0];
                     valu<2, f32t>(w, in, [&w, acc](U a, U b, U, int lane) -> U {
                       return of32(float(f32(a) * f32(b)) + as_f32(w.v[acc.reg * w.lanes + lane]));
                     })), 2, f32t, f32t);
  reg("v_min_f32", L(valu<2, f32t>(w, in, F2(of32(std::fmin(f32(a), f32(b)))))), 2, f32t, f32t);
  reg("v_max_f32", L(valu<2, f32t>(w, in, F2(of32(std::fmax(f32(a), f32(b)))))), 2, f32t, f32t);
  reg("v_min3_f32", L(valu<3, f32t>(w, in, F3(of32(std::fmin(std::fmin(f32(a), f32(b)), f32(c)))))), 3, f32t, f32t, f32t);
  reg("v_max3_f32", L(valu<3, f32t>(w, in, F3(of32(std::fmax(std::fmax(f32(a), f32(b)), f32(c)))))), 3, f32t, f32t, f32t);
  reg("v_med3_f32", L(valu<3, f32t>(w, in, F3(of32(std::fmax(std::fmin(f32(a), f32(b)), std::fmin(std::fmax(f32(a), f32(b)), f32(c))))))), 3, f32t, f32t, f32t);
  reg("v_rcp_f32", L(valu<1, f32t>(w, in, F1(of32(1.0f / f32(a))))), 1, f32t);
  reg("v_rcp_iflag_f32", L(valu<1, f32t>(w, in, F1(of32(1.0f / f32(a))))), 1, f32t);
  reg("v_rsq_f32", L(valu<1, f32t>(w, in, F1(of32(1.0f / std::sqrt(f32(a)))))), 1, f32t);
  reg("v_sqrt_f32", L(valu<1, f32t>(w, in, F1(of32(std::sqrt(f32(a)))))), 1, f32t);
  reg("v_exp_f32", L(valu<1, f32t>(w, in, F1(of32(std::exp2(f32(a)))))), 1, f32t);
  reg("v_log_f32", L(valu<1, f32t>(w, in, F1(of32(std::log2(f32(a)))))), 1, f32t);
  reg("v_sin_f32", L(valu<1, f32t>(w, in, F1(of32(std::sin(f32(a) * 6.2831853071795864769f))))), 1, f32t);
  reg("v_cos_f32", L(valu<1, f32t>(w, in, F1(of32(std::cos(f32(a) * 6.2831853071795864769f))))), 1, f32t);
  reg("v_floor_f32", L(valu<1, f32t>(w, in, F1(of32(std::floor(f32(a)))))), 1, f32t);
  reg("v_ceil_f32", L(valu<1, f32t>(w, in, F1(of32(std::ceil(f32(a)))))), 1, f32t);
  reg("v_trunc_f32", L(valu<1, f32t>(w, in, F1(of32(std::trunc(f32(a)))))), 1, f32t);
  reg("v_rndne_f32", L(valu<1, f32t>(w, in, F1(of32(std::nearbyint(f32(a)))))), 1, f32t);
  reg("v_fract_f32", L(valu<1, f32t>(w, in, F1(of32(std::fmin(f32(a) - std::floor(f32(a)), 0x1.fffffep-1f))))), 1, f32t);
  reg("v_ldexp_f32", L(valu<2, f32t>(w, in, F2(of32(std::ldexp(f32(a), s32(b)))))), 2, f32t, i32);
  reg("v_frexp_mant_f32", L(valu<1, f32t>(w, in, [](U a, U, U, int) -> U { int e; return of32(std::frexp(f32(a), &e)); })), 1, f32t);
  reg("v_frexp_exp_i32_f32", L(valu<1, b32>(w, in, [](U a, U, U, int) -> U { int e = 0; std::frexp(f32(a), &e); return u32(e); })), 1, f32t);
  reg("v_div_fixup_f32", L(valu<3, f32t>(w, in, F3(of32(div_fixup(f32(a), f32(b), f32(c)))))), 3, f32t, f32t, f32t);
  reg("v_div_fmas_f32", L(const std::uint64_t vcc = w.vcc();
                          valu<3, f32t>(w, in, [vcc](U a, U b, U c, int lane) -> U {
                            const float r = std::fma(f32(a), f32(b), f32(c));
                            return of32((vcc >> lane) & 1 ? std::ldexp(r, 64) : r);
                          })), 3, f32t, f32t, f32t);
  reg("v_div_scale_f32", &div_scale_f32, 3, f32t, f32t, f32t);
  reg("v_cvt_f32_u32", L(valu<1, f32t>(w, in, F1(of32(float(u32(a)))))), 1);
  reg("v_cvt_f32_i32", L(valu<1, f32t>(w, in, F1(of32(float(s32(a)))))), 1, i32);
  reg("v_cvt_u32_f32", L(valu<1, b32>(w, in, F1(to_u32(f32(a))))), 1, f32t);
  reg("v_cvt_i32_f32", L(valu<1, b32>(w, in, F1(to_i32(f32(a))))), 1, f32t);
  reg("v_cvt_rpi_i32_f32", L(valu<1, b32>(w, in, F1(to_i32(std::floor(f32(a) + 0.5f))))), 1, f32t);
  reg("v_cvt_flr_i32_f32", L(valu<1, b32>(w, in, F1(to_i32(std::floor(f32(a)))))), 1, f32t);
  reg("v_cvt_f64_f32", L(valu<1, f64t>(w, in, F1(of64(double(f32(a)))))), 1, f32t);
  reg("v_cvt_f32_f64", L(valu<1, f32t>(w, in, F1(of32(float(f64(a)))))), 1, f64t);

  // ---- fp64
  reg("v_add_f64", L(valu<2, f64t>(w, in, F2(of64(f64(a) + f64(b))))), 2, f64t, f64t);
  reg("v_mul_f64", L(valu<2, f64t>(w, in, F2(of64(f64(a) * f64(b))))), 2, f64t, f64t);
  reg("v_fma_f64", L(valu<3, f64t>(w, in, F3(of64(std::fma(f64(a), f64(b), f64(c)))))), 3, f64t, f64t, f64t);
  reg("v_fmac_f64", L(const Operand acc = in.dst[0];
                      valu<2, f64t>(w, in, [&w, acc](U a, U b, U, int lane) -> U {
                        const U old = U(w.v[acc.reg * w.lanes + lane]) | (U(w.v[(acc.reg + 1) * w.lanes + lane]) << 32);
                        return of64(std::fma(f64(a), f64(b), f64(old)));
                      })), 2, f64t, f64t);
  reg("v_min_f64", L(valu<2, f64t>(w, in, F2(of64(std::fmin(f64(a), f64(b)))))), 2, f64t, f64t);
  reg("v_max_f64", L(valu<2, f64t>(w, in, F2(of64(std::fmax(f64(a), f64(b)))))), 2, f64t, f64t);
  reg("v_rcp_f64", L(valu<1, f64t>(w, in, F1(of64(1.0 / f64(a))))), 1, f64t);
  reg("v_rsq_f64", L(valu<1, f64t>(w, in, F1(of64(1.0 / std::sqrt(f64(a)))))), 1, f64t);
  reg("v_sqrt_f64", L(valu<1, f64t>(w, in, F1(of64(std::sqrt(f64(a)))))), 1, f64t);
  reg("v_floor_f64", L(valu<1, f64t>(w, in, F1(of64(std::floor(f64(a)))))), 1, f64t);
  reg("v_ceil_f64", L(valu<1, f64t>(w, in, F1(of64(std::ceil(f64(a)))))), 1, f64t);
  reg("v_trunc_f64", L(valu<1, f64t>(w, in, F1(of64(std::trunc(f64(a)))))), 1, f64t);
  reg("v_rndne_f64", L(valu<1, f64t>(w, in, F1(of64(std::nearbyint(f64(a)))))), 1, f64t);
  reg("v_fract_f64", L(valu<1, f64t>(w, in, F1(of64(std::fmin(f64(a) - std::floor(f64(a)), 0x1.fffffffffffffp-1))))), 1, f64t);
  reg("v_ldexp_f64", L(valu<2, f64t>(w, in, F2(of64(std::ldexp(f64(a), s32(b)))))), 2, f64t, i32);
  reg("v_frexp_mant_f64", L(valu<1, f64t>(w, in, [](U a, U, U, int) -> U { int e; return of64(std::frexp(f64(a), &e)); })), 1, f64t);
  reg("v_frexp_exp_i32_f64", L(valu<1, b32>(w, in, [](U a, U, U, int) -> U { int e = 0; std::frexp(f64(a), &e); return u32(e); })), 1, f64t);
  reg("v_trig_preop_f64", L(valu<2, f64t>(w, in, F2(of64(trig_preop(f64(a), u32(b)))))), 2, f64t, b32);
  reg("v_div_fixup_f64", L(valu<3, f64t>(w, in, F3(of64(div_fixup(f64(a), f64(b), f64(c)))))), 3, f64t, f64t, f64t);
  reg("v_div_fmas_f64", L(const std::uint64_t vcc = w.vcc();
                          valu<3, f64t>(w, in, [vcc](U a, U b, U c, int lane) -> U {
                            const double r = std::fma(f64(a), f64(b), f64(c));
                            return of64((vcc >> lane) & 1 ? std::ldexp(r, 128) : r);
                          })), 3, f64t, f64t, f64t);
  reg("v_div_scale_f64", &div_scale_f64, 3, f64t, f64t, f64t);
  reg("v_cvt_f64_u32", L(valu<1, f64t>(w, in, F1(of64(double(u32(a)))))), 1);
  reg("v_cvt_f64_i32", L(valu<1, f64t>(w, in, F1(of64(double(s32(a)))))), 1, i32);
  reg("v_cvt_u32_f64", L(valu<1, b32>(w, in, F1(to_u32(f64(a))))), 1, f64t);
  reg("v_cvt_i32_f64", L(valu<1, b32>(w, in, F1(to_i32(f64(a))))), 1, f64t);

  // ---- compares: v_cmp_<op>_<type> writes a mask; v_cmpx_ also to EXEC.
  struct Cond {
    const char* name;
    int code;  // 0 f, 1 lt, 2 eq, 3 le, 4 gt, 5 lg/ne, 6 ge, 7 o, 8 u, 9 nge, 10 nlg, 11 ngt, 12 nle, 13 neq, 14 nlt, 15 tru
  };
  static const Cond float_conds[] = {{"f", 0}, {"lt", 1}, {"eq", 2}, {"le", 3}, {"gt", 4}, {"lg", 5}, {"ge", 6},
                                     {"o", 7}, {"u", 8}, {"nge", 9}, {"nlg", 10}, {"ngt", 11}, {"nle", 12},
                                     {"neq", 13}, {"nlt", 14}, {"tru", 15}};
  static const Cond int_conds[] = {{"f", 0}, {"lt", 1}, {"eq", 2}, {"le", 3}, {"gt", 4}, {"ne", 5}, {"ge", 6}, {"t", 15}};
  static std::vector<std::string> names;  // kept for the table's lifetime
  auto fcmp = [](int code, double x, double y) {
    const bool un = std::isnan(x) || std::isnan(y);
    switch (code) {
      case 0: return false;
      case 1: return x < y;
      case 2: return x == y;
      case 3: return x <= y;
      case 4: return x > y;
      case 5: return !un && x != y;
      case 6: return x >= y;
      case 7: return !un;
      case 8: return un;
      case 9: return !(x >= y);
      case 10: return !(un || x != y) || un;
      case 11: return !(x > y);
      case 12: return !(x <= y);
      case 13: return !(x == y);
      case 14: return !(x < y);
      default: return true;
    }
  };
  static decltype(fcmp) fcmp_fn = fcmp;
  auto icmp = [](int code, auto x, auto y) {
    switch (code) {
      case 0: return false;
      case 1: return x < y;
      case 2: return x == y;
      case 3: return x <= y;
      case 4: return x > y;
      case 5: return x != y;
      case 6: return x >= y;
      default: return true;
    }
  };
  static decltype(icmp) icmp_fn = icmp;
  // One handler per (condition, type, x): the condition rides in Inst::simm, set at decode time
  // from the mnemonic by a small per-condition trampoline below.
  for (const Cond& c : float_conds) {
    for (int x = 0; x < 2; ++x) {
      for (const char* t : {"_f32", "_f64", "_f16"}) names.push_back(std::string(x ? "v_cmpx_" : "v_cmp_") + c.name + t);
    }
  }
  for (const Cond& c : int_conds) {
    for (int x = 0; x < 2; ++x) {
      for (const char* t : {"_i32", "_u32", "_i64", "_u64", "_i16", "_u16"}) names.push_back(std::string(x ? "v_cmpx_" : "v_cmp_") + c.name + t);
    }
  }
#define CMP_F(CODE, X, T, TY)                                                                                          \
  [](WorkGroup&, Wave& w, const Inst& in) {                                                                            \
    vcmp<2>(w, in, X, [](U a, U b) { return fcmp_fn(CODE, double(T(a)), double(T(b))); });                            \
  }
#define CMP_I(CODE, X, CONV)                                                                                           \
  [](WorkGroup&, Wave& w, const Inst& in) { vcmp<2>(w, in, X, [](U a, U b) { return icmp_fn(CODE, CONV(a), CONV(b)); }); }
  static const Handler f32_cmp[2][16] = {
      {CMP_F(0, false, f32, f32t), CMP_F(1, false, f32, f32t), CMP_F(2, false, f32, f32t), CMP_F(3, false, f32, f32t),
       CMP_F(4, false, f32, f32t), CMP_F(5, false, f32, f32t), CMP_F(6, false, f32, f32t), CMP_F(7, false, f32, f32t),
       CMP_F(8, false, f32, f32t), CMP_F(9, false, f32, f32t), CMP_F(10, false, f32, f32t), CMP_F(11, false, f32, f32t),
       CMP_F(12, false, f32, f32t), CMP_F(13, false, f32, f32t), CMP_F(14, false, f32, f32t), CMP_F(15, false, f32, f32t)},
      {CMP_F(0, true, f32, f32t), CMP_F(1, true, f32, f32t), CMP_F(2, true, f32, f32t), CMP_F(3, true, f32, f32t),
       CMP_F(4, true, f32, f32t), CMP_F(5, true, f32, f32t), CMP_F(6, true, f32, f32t), CMP_F(7, true, f32, f32t),
       CMP_F(8, true, f32, f32t), CMP_F(9, true, f32, f32t), CMP_F(10, true, f32, f32t), CMP_F(11, true, f32, f32t),
       CMP_F(12, true, f32, f32t), CMP_F(13, true, f32, f32t), CMP_F(14, true, f32, f32t), CMP_F(15, true, f32, f32t)}};
  static const Handler f64_cmp[2][16] = {
      {CMP_F(0, false, f64, f64t), CMP_F(1, false, f64, f64t), CMP_F(2, false, f64, f64t), CMP_F(3, false, f64, f64t),
       CMP_F(4, false, f64, f64t), CMP_F(5, false, f64, f64t), CMP_F(6, false, f64, f64t), CMP_F(7, false, f64, f64t),
       CMP_F(8, false, f64, f64t), CMP_F(9, false, f64, f64t), CMP_F(10, false, f64, f64t), CMP_F(11, false, f64, f64t),
       CMP_F(12, false, f64, f64t), CMP_F(13, false, f64, f64t), CMP_F(14, false, f64, f64t), CMP_F(15, false, f64, f64t)},
      {CMP_F(0, true, f64, f64t), CMP_F(1, true, f64, f64t), CMP_F(2, true, f64, f64t), CMP_F(3, true, f64, f64t),
       CMP_F(4, true, f64, f64t), CMP_F(5, true, f64, f64t), CMP_F(6, true, f64, f64t), CMP_F(7, true, f64, f64t),
       CMP_F(8, true, f64, f64t), CMP_F(9, true, f64, f64t), CMP_F(10, true, f64, f64t), CMP_F(11, true, f64, f64t),
       CMP_F(12, true, f64, f64t), CMP_F(13, true, f64, f64t), CMP_F(14, true, f64, f64t), CMP_F(15, true, f64, f64t)}};
  static const Handler f16_cmp[2][16] = {
      {CMP_F(0, false, f16, f16t), CMP_F(1, false, f16, f16t), CMP_F(2, false, f16, f16t), CMP_F(3, false, f16, f16t),
       CMP_F(4, false, f16, f16t), CMP_F(5, false, f16, f16t), CMP_F(6, false, f16, f16t), CMP_F(7, false, f16, f16t),
       CMP_F(8, false, f16, f16t), CMP_F(9, false, f16, f16t), CMP_F(10, false, f16, f16t), CMP_F(11, false, f16, f16t),
       CMP_F(12, false, f16, f16t), CMP_F(13, false, f16, f16t), CMP_F(14, false, f16, f16t), CMP_F(15, false, f16, f16t)},
      {CMP_F(0, true, f16, f16t), CMP_F(1, true, f16, f16t), CMP_F(2, true, f16, f16t), CMP_F(3, true, f16, f16t),
       CMP_F(4, true, f16, f16t), CMP_F(5, true, f16, f16t), CMP_F(6, true, f16, f16t), CMP_F(7, true, f16, f16t),
       CMP_F(8, true, f16, f16t), CMP_F(9, true, f16, f16t), CMP_F(10, true, f16, f16t), CMP_F(11, true, f16, f16t),
       CMP_F(12, true, f16, f16t), CMP_F(13, true, f16, f16t), CMP_F(14, true, f16, f16t), CMP_F(15, true, f16, f16t)}};
#define I32S(v) std::int32_t(std::uint32_t(v))
#define U32S(v) std::uint32_t(v)
#define I64S(v) std::int64_t(v)
#define U64S(v) std::uint64_t(v)
#define I16S(v) std::int16_t(std::uint16_t(v))
#define U16S(v) std::uint16_t(v)
#define INT_ROW(X, CONV) {CMP_I(0, X, CONV), CMP_I(1, X, CONV), CMP_I(2, X, CONV), CMP_I(3, X, CONV), CMP_I(4, X, CONV), CMP_I(5, X, CONV), CMP_I(6, X, CONV), CMP_I(15, X, CONV)}
  static const Handler int_cmp[2][6][8] = {
      {INT_ROW(false, I32S), INT_ROW(false, U32S), INT_ROW(false, I64S), INT_ROW(false, U64S), INT_ROW(false, I16S),
       INT_ROW(false, U16S)},
      {INT_ROW(true, I32S), INT_ROW(true, U32S), INT_ROW(true, I64S), INT_ROW(true, U64S), INT_ROW(true, I16S),
       INT_ROW(true, U16S)}};
  std::size_t k = 0;
  for (const Cond& c : float_conds) {
    for (int x = 0; x < 2; ++x) {
      reg(names[k++].c_str(), f32_cmp[x][c.code], 2, f32t, f32t);
      reg(names[k++].c_str(), f64_cmp[x][c.code], 2, f64t, f64t);
      reg(names[k++].c_str(), f16_cmp[x][c.code], 2, Type::f16, Type::f16);
    }
  }
  for (std::size_t ci = 0; ci < sizeof int_conds / sizeof int_conds[0]; ++ci) {
    for (int x = 0; x < 2; ++x) {
      static const Type types[6] = {i32, b32, i64, b64, Type::b16, Type::b16};
      for (int t = 0; t < 6; ++t) reg(names[k++].c_str(), int_cmp[x][t][ci], 2, types[t], types[t]);
    }
  }
  reg("v_cmp_class_f32", L(vcmp<2>(w, in, false, [](U a, U b) { return fp_class(f32(a), u32(b), !(u32(a) & 0x400000)); })), 2, f32t, b32);
  reg("v_cmpx_class_f32", L(vcmp<2>(w, in, true, [](U a, U b) { return fp_class(f32(a), u32(b), !(u32(a) & 0x400000)); })), 2, f32t, b32);
  reg("v_cmp_class_f16", L(vcmp<2>(w, in, false, [](U a, U b) { return fp_class16(a, u32(b)); })), 2, Type::f16, b32);
  reg("v_cmpx_class_f16", L(vcmp<2>(w, in, true, [](U a, U b) { return fp_class16(a, u32(b)); })), 2, Type::f16, b32);
  reg("v_cmp_class_f64", L(vcmp<2>(w, in, false, [](U a, U b) { return fp_class(f64(a), u32(b), !(a & (1ull << 51))); })), 2, f64t, b32);
  reg("v_cmpx_class_f64", L(vcmp<2>(w, in, true, [](U a, U b) { return fp_class(f64(a), u32(b), !(a & (1ull << 51))); })), 2, f64t, b32);
}

}  // namespace hsad::isa
