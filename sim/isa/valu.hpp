// The vector ALU's machinery: every VALU instruction gathers its sources lane by lane (with DPP,
// SDWA and the float modifiers applied), computes, and scatters its result (DPP write masks,
// output modifiers, clamp, SDWA destination selects). Handlers are one lambda each.
#pragma once

#include <cmath>

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

// One VALU instruction: N sources of the OpInfo's types, result of type R, f(a, b, c, lane).
template <int N, Type R, class F>
void valu(Wave& w, const Inst& in, F f) {
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
