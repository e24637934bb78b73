// The vector ALU's machinery: every VALU instruction gathers its sources lane by lane (with DPP,
// SDWA and the float modifiers applied), computes, and scatters its result (DPP write masks,
// output modifiers, clamp, SDWA destination selects). Handlers are one lambda each.
#pragma once

#include <cmath>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "semantics.hpp"

namespace hsad::isa {

struct LaneValues {
  std::uint64_t v[64];
};

// The source lane DPP gives lane `lane`, or -1 where there is none.
int dpp_source(const Inst& in, int lane, int lanes);

// Gathers source `i` of every active lane into `out`. `writable` starts as EXEC and loses the
// lanes DPP leaves unwritten.
void gather(const Wave& w, const Inst& in, int i, LaneValues& out, std::uint64_t& writable);

// Writes `values` (type of the result: 32 or 64 bits, float or not) to the destination.
void scatter(Wave& w, const Inst& in, const LaneValues& values, std::uint64_t writable, Type result);

// Writes a lane mask (a compare's result, a carry-out) to a scalar destination (VCC or an SGPR
// pair; one SGPR in wave32). Lanes outside EXEC read as 0.
void write_mask(Wave& w, const Operand& dst, std::uint64_t mask);
// A lane mask source (VCC, an SGPR pair, a constant).
std::uint64_t read_mask(const Wave& w, const Operand& src);

inline float f32(std::uint64_t b) { return as_f32(std::uint32_t(b)); }
inline double f64(std::uint64_t b) { return as_f64(b); }
inline std::uint64_t of32(float f) { return bits32(f); }
inline std::uint64_t of64(double d) { return bits64(d); }

// Float to integer as the hardware converts (VALU and gfx11.5's scalar float unit alike):
// truncate, saturate, NaN to 0.
inline std::uint32_t to_u32(double d) {
  if (std::isnan(d) || d <= 0) return 0;
  if (d >= 4294967295.0) return 0xffffffffu;
  return std::uint32_t(d);
}
inline std::uint32_t to_i32(double d) {
  if (std::isnan(d)) return 0;
  if (d <= -2147483648.0) return 0x80000000u;
  if (d >= 2147483647.0) return 0x7fffffffu;
  return std::uint32_t(std::int32_t(d));
}

// Whether the first `n` sources of an instruction can be read as 32-bit rows: no DPP or SDWA,
// each 32 bits wide and unmodified (a VGPR, an AGPR or one scalar). Most VALU instructions can.
// Worked out at decode time (Inst::plain_sources, program.cpp's plan_fast_paths).
inline bool plain_sources32(const Inst& in, int n) { return in.plain_sources >= n; }

// ... and its result `r` written as one: 32 bits to a VGPR or AGPR, without an output modifier.
inline bool plain32(const Inst& in, int n, Type r) {
  if (is_64(r) || r == Type::b16 || r == Type::f16) return false;
  return in.plain_result && plain_sources32(in, n);
}

// The lanes of source `i` as 32-bit words: its register's row, or `broadcast` filled with the scalar.
[[gnu::always_inline]] inline const std::uint32_t* lanes32(const Wave& w, const Inst& in, int i, std::uint32_t* broadcast) {
  const Operand& o = in.src[i];
  if (o.kind == Operand::vgpr) return w.v + std::size_t(vreg_of(w, o, std::uint8_t(1u << i))) * w.lanes;
  if (o.kind == Operand::agpr) return w.a + std::size_t(o.reg) * w.lanes;
  const std::uint32_t v = scalar32(w, o);
  // The count in a local: the stores could alias w.lanes, which would be reloaded every lane and
  // keep the loop from vectorizing (here and in the row loops below).
  const std::uint32_t lanes = w.lanes;
  for (std::uint32_t l = 0; l < lanes; ++l) broadcast[l] = v;
  return broadcast;
}

// A lane mask from one byte per lane (0 or 1; `lanes` a multiple of 16, the array 16-byte aligned).
// Lanes' booleans go through bytes so that the loops computing them run straight and vectorize;
// OR-ing `bit << lane` into a mask lane by lane does neither.
inline std::uint64_t pack_lanes(const std::uint8_t* bits, std::uint32_t lanes) {
  std::uint64_t mask = 0;
#if defined(__SSE2__)
  for (std::uint32_t i = 0; i < lanes; i += 16) {
    // Bit 0 of each byte to bit 7 (a byte holds 0 or 1: nothing crosses into its neighbour).
    const __m128i v = _mm_slli_epi16(_mm_load_si128(reinterpret_cast<const __m128i*>(bits + i)), 7);
    mask |= std::uint64_t(std::uint32_t(_mm_movemask_epi8(v))) << i;
  }
#else
  for (std::uint32_t l = 0; l < lanes; ++l) mask |= std::uint64_t(bits[l] & 1) << l;
#endif
  return mask;
}
// ... and back: lane l's bit of `mask` as byte l.
inline void unpack_lanes(std::uint64_t mask, std::uint8_t* bits, std::uint32_t lanes) {
  for (std::uint32_t l = 0; l < lanes; ++l) bits[l] = std::uint8_t((mask >> l) & 1);
}

// One VALU instruction: N sources of the OpInfo's types, result of type R, f(a, b, c, lane).
template <int N, Type R, class F>
void valu(Wave& w, const Inst& in, F f) {
  if constexpr (R == Type::b32 || R == Type::i32 || R == Type::f32) {
    if (plain32(in, N, R)) {
      // Straight from the register rows to the destination's, 32 bits a lane: no widening copies.
      // A destination that is also a source is read and written lane by lane, so it stays right.
      alignas(64) std::uint32_t broadcast[N > 0 ? N : 1][64];
      const std::uint32_t* s[3] = {nullptr, nullptr, nullptr};
      for (int i = 0; i < N; ++i) s[i] = lanes32(w, in, i, broadcast[i]);
      std::uint32_t* d = dst32(w, in.dst[0], 0);
      const auto at = [&](int i, std::uint32_t l) -> std::uint64_t { return i < N ? s[i][l] : 0; };
      const std::uint64_t exec = w.exec();
      if (exec == w.lane_mask()) {
        const std::uint32_t lanes = w.lanes;
        for (std::uint32_t l = 0; l < lanes; ++l) d[l] = std::uint32_t(f(at(0, l), at(1, l), at(2, l), int(l)));
      } else {
        std::uint64_t e = exec;
        while (e) {
          const std::uint32_t l = std::uint32_t(__builtin_ctzll(e));
          e &= e - 1;
          d[l] = std::uint32_t(f(at(0, l), at(1, l), at(2, l), int(l)));
        }
      }
      return;
    }
  }
  LaneValues src[N > 0 ? N : 1];
  LaneValues out;
  std::uint64_t writable = w.exec();
  for (int i = 0; i < N; ++i) gather(w, in, i, src[i], writable);
  if (writable == w.lane_mask()) {
    for (int lane = 0; lane < int(w.lanes); ++lane) {
      const std::uint64_t a = N > 0 ? src[0].v[lane] : 0, b = N > 1 ? src[1].v[lane] : 0, c = N > 2 ? src[2].v[lane] : 0;
      out.v[lane] = f(a, b, c, lane);
    }
  } else {
    std::uint64_t e = writable;
    while (e) {
      const int lane = __builtin_ctzll(e);
      e &= e - 1;
      const std::uint64_t a = N > 0 ? src[0].v[lane] : 0, b = N > 1 ? src[1].v[lane] : 0, c = N > 2 ? src[2].v[lane] : 0;
      out.v[lane] = f(a, b, c, lane);
    }
  }
  scatter(w, in, out, writable, R);
}

// A compare: the lanes' booleans as a mask, to dst (and, for v_cmpx, to EXEC).
template <int N, class F>
void vcmp(Wave& w, const Inst& in, bool to_exec, F f) {
  if (plain_sources32(in, N)) {
    alignas(64) std::uint32_t broadcast[N][64];
    const std::uint32_t* s[2] = {nullptr, nullptr};
    for (int i = 0; i < N; ++i) s[i] = lanes32(w, in, i, broadcast[i]);
    // Every lane compared in a straight loop (the ones EXEC leaves out are masked off after).
    alignas(16) std::uint8_t bits[64];
    const std::uint32_t lanes = w.lanes;
    for (std::uint32_t l = 0; l < lanes; ++l) bits[l] = f(s[0][l], N > 1 ? s[1][l] : 0);
    const std::uint64_t mask = pack_lanes(bits, lanes) & w.exec();
    if (in.ndst > 0) write_mask(w, in.dst[0], mask);
    if (to_exec) w.set_exec(mask);
    return;
  }
  LaneValues src[N];
  std::uint64_t writable = w.exec();
  for (int i = 0; i < N; ++i) gather(w, in, i, src[i], writable);
  std::uint64_t mask = 0, e = w.exec();
  while (e) {
    const int lane = __builtin_ctzll(e);
    e &= e - 1;
    if (f(src[0].v[lane], N > 1 ? src[1].v[lane] : 0)) mask |= 1ull << lane;
  }
  if (in.ndst > 0) write_mask(w, in.dst[0], mask);
  if (to_exec) w.set_exec(mask);
}

}  // namespace hsad::isa
