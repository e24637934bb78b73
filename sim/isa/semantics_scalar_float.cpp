// The scalar unit's float instructions (RDNA3.5: gfx1150 and gfx1151, and RDNA4): f32 arithmetic,
// conversions, rounding and compares on SGPRs, which the compiler uses for uniform float values
// (a grid's size scaled, a reciprocal's estimate) instead of a VALU op and v_readfirstlane.
// IEEE single precision as the host computes it (fma fused, each op rounded once), as the VALU's.
// The f16 forms are not here: they decode as unknown.
#include <cmath>

#include "valu.hpp"

namespace hsad::isa {
namespace {

float sf(const Wave& w, const Inst& in, int i) { return as_f32(scalar32(w, in.src[i])); }

void put(Wave& w, const Inst& in, float f) { write_scalar32(w, in.dst[0], bits32(f)); }

// A v_s_* source: the scalar with VOP3's abs and neg applied; clamp and omod are not modelled.
float vs_source(WorkGroup& g, Wave& w, const Inst& in) {
  if (in.omod || (in.flags & kClamp)) g.fault(w, in, "a scalar transcendental with an output modifier (not modelled)");
  std::uint32_t b = scalar32(w, in.src[0]);
  if (in.src[0].abs) b &= 0x7fffffffu;
  if (in.src[0].neg) b ^= 0x80000000u;
  return as_f32(b);
}

void reg(const char* name, Handler fn, std::uint8_t nsrc, Type t0 = Type::f32, Type t1 = Type::f32, Type t2 = Type::f32) {
  OpInfo info;
  info.fn = fn;
  info.nsrc = nsrc;
  info.type[0] = t0, info.type[1] = t1, info.type[2] = t2;
  register_op(name, info);
}

// The ordered and unordered compares: SCC = the relation, NaN as IEEE says (`o`: neither is NaN).
template <class F>
Handler compare(F) {
  return [](WorkGroup&, Wave& w, const Inst& in) { w.scc = F{}(sf(w, in, 0), sf(w, in, 1)); };
}

}  // namespace

void register_scalar_float_ops() {
  using W = WorkGroup;
  reg("s_add_f32", [](W&, Wave& w, const Inst& in) { put(w, in, sf(w, in, 0) + sf(w, in, 1)); }, 2);
  reg("s_sub_f32", [](W&, Wave& w, const Inst& in) { put(w, in, sf(w, in, 0) - sf(w, in, 1)); }, 2);
  reg("s_mul_f32", [](W&, Wave& w, const Inst& in) { put(w, in, sf(w, in, 0) * sf(w, in, 1)); }, 2);
  reg("s_min_f32", [](W&, Wave& w, const Inst& in) { put(w, in, std::fmin(sf(w, in, 0), sf(w, in, 1))); }, 2);
  reg("s_max_f32", [](W&, Wave& w, const Inst& in) { put(w, in, std::fmax(sf(w, in, 0), sf(w, in, 1))); }, 2);
  reg("s_min_num_f32", [](W&, Wave& w, const Inst& in) { put(w, in, std::fmin(sf(w, in, 0), sf(w, in, 1))); }, 2);
  reg("s_max_num_f32", [](W&, Wave& w, const Inst& in) { put(w, in, std::fmax(sf(w, in, 0), sf(w, in, 1))); }, 2);
  // With a literal K, the operands printed in the order they are used (as v_fmaak/v_fmamk):
  // s_fmaak_f32 D = S0 * S1 + K, s_fmamk_f32 D = S0 * K + S1: fma of the three as printed.
  reg("s_fmaak_f32", [](W&, Wave& w, const Inst& in) { put(w, in, std::fma(sf(w, in, 0), sf(w, in, 1), sf(w, in, 2))); }, 3);
  reg("s_fmamk_f32", [](W&, Wave& w, const Inst& in) { put(w, in, std::fma(sf(w, in, 0), sf(w, in, 1), sf(w, in, 2))); }, 3);
  // The destination is the addend.
  reg("s_fmac_f32", [](W&, Wave& w, const Inst& in) {
    put(w, in, std::fma(sf(w, in, 0), sf(w, in, 1), as_f32(scalar32(w, in.dst[0]))));
  }, 2);
  reg("s_cvt_f32_i32", [](W&, Wave& w, const Inst& in) { put(w, in, float(std::int32_t(scalar32(w, in.src[0])))); }, 1, Type::i32);
  reg("s_cvt_f32_u32", [](W&, Wave& w, const Inst& in) { put(w, in, float(scalar32(w, in.src[0]))); }, 1, Type::b32);
  reg("s_cvt_u32_f32", [](W&, Wave& w, const Inst& in) { write_scalar32(w, in.dst[0], to_u32(sf(w, in, 0))); }, 1);
  reg("s_cvt_i32_f32", [](W&, Wave& w, const Inst& in) { write_scalar32(w, in.dst[0], to_i32(sf(w, in, 0))); }, 1);
  reg("s_ceil_f32", [](W&, Wave& w, const Inst& in) { put(w, in, std::ceil(sf(w, in, 0))); }, 1);
  reg("s_floor_f32", [](W&, Wave& w, const Inst& in) { put(w, in, std::floor(sf(w, in, 0))); }, 1);
  reg("s_trunc_f32", [](W&, Wave& w, const Inst& in) { put(w, in, std::trunc(sf(w, in, 0))); }, 1);
  reg("s_rndne_f32", [](W&, Wave& w, const Inst& in) { put(w, in, std::nearbyint(sf(w, in, 0))); }, 1);
  // gfx12's transcendentals with a scalar result (VOP3 encodings that write an SGPR), computed as
  // the VALU's are; source modifiers applied, output modifiers refused.
  reg("v_s_rcp_f32", [](W& g, Wave& w, const Inst& in) { put(w, in, 1.0f / vs_source(g, w, in)); }, 1);
  reg("v_s_rsq_f32", [](W& g, Wave& w, const Inst& in) { put(w, in, 1.0f / std::sqrt(vs_source(g, w, in))); }, 1);
  reg("v_s_sqrt_f32", [](W& g, Wave& w, const Inst& in) { put(w, in, std::sqrt(vs_source(g, w, in))); }, 1);
  reg("v_s_exp_f32", [](W& g, Wave& w, const Inst& in) { put(w, in, std::exp2(vs_source(g, w, in))); }, 1);
  reg("v_s_log_f32", [](W& g, Wave& w, const Inst& in) { put(w, in, std::log2(vs_source(g, w, in))); }, 1);
  struct Lt { bool operator()(float a, float b) const { return a < b; } };
  struct Eq { bool operator()(float a, float b) const { return a == b; } };
  struct Le { bool operator()(float a, float b) const { return a <= b; } };
  struct Gt { bool operator()(float a, float b) const { return a > b; } };
  struct Lg { bool operator()(float a, float b) const { return a < b || a > b; } };
  struct Ge { bool operator()(float a, float b) const { return a >= b; } };
  struct O { bool operator()(float a, float b) const { return !std::isnan(a) && !std::isnan(b); } };
  struct U { bool operator()(float a, float b) const { return std::isnan(a) || std::isnan(b); } };
  struct Nge { bool operator()(float a, float b) const { return !(a >= b); } };
  struct Nlg { bool operator()(float a, float b) const { return !(a < b || a > b); } };
  struct Ngt { bool operator()(float a, float b) const { return !(a > b); } };
  struct Nle { bool operator()(float a, float b) const { return !(a <= b); } };
  struct Neq { bool operator()(float a, float b) const { return !(a == b); } };
  struct Nlt { bool operator()(float a, float b) const { return !(a < b); } };
  reg("s_cmp_lt_f32", compare(Lt{}), 2);
  reg("s_cmp_eq_f32", compare(Eq{}), 2);
  reg("s_cmp_le_f32", compare(Le{}), 2);
  reg("s_cmp_gt_f32", compare(Gt{}), 2);
  reg("s_cmp_lg_f32", compare(Lg{}), 2);
  reg("s_cmp_ge_f32", compare(Ge{}), 2);
  reg("s_cmp_o_f32", compare(O{}), 2);
  reg("s_cmp_u_f32", compare(U{}), 2);
  reg("s_cmp_nge_f32", compare(Nge{}), 2);
  reg("s_cmp_nlg_f32", compare(Nlg{}), 2);
  reg("s_cmp_ngt_f32", compare(Ngt{}), 2);
  reg("s_cmp_nle_f32", compare(Nle{}), 2);
  reg("s_cmp_neq_f32", compare(Neq{}), 2);
  reg("s_cmp_nlt_f32", compare(Nlt{}), 2);
}

}  // namespace hsad::isa
