// Cross-lane operations: what the compiler emits for __shfl, __shfl_xor, ballot and wave
// reductions besides DPP (which valu.hpp applies to any VALU source): v_readlane /
// v_writelane / v_readfirstlane, v_mbcnt, ds_bpermute / ds_permute / ds_swizzle (through the
// LDS crossbar, no LDS memory touched), gfx10's v_permlane16 / v_permlanex16, and register
// indexing through M0 (v_movrels / v_movreld). Written from the Vega/CDNA2 and RDNA2 ISA references.
#include "valu.hpp"

namespace hsad::isa {
namespace {

std::uint32_t lane_of(const Wave& w, std::uint32_t select) { return select & (w.lanes - 1); }

void v_readlane(WorkGroup&, Wave& w, const Inst& in) {
  // EXEC does not apply: the named lane is read whatever its state.
  const std::uint32_t lane = lane_of(w, scalar32(w, in.src[1]));
  write_scalar32(w, in.dst[0], src32(w, in.src[0], 0, 1)[lane]);
}

void v_readfirstlane(WorkGroup&, Wave& w, const Inst& in) {
  const std::uint64_t e = w.exec();
  const std::uint32_t lane = e ? std::uint32_t(__builtin_ctzll(e)) : 0;
  write_scalar32(w, in.dst[0], src32(w, in.src[0], 0, 1)[lane]);
}

void v_writelane(WorkGroup&, Wave& w, const Inst& in) {
  const std::uint32_t lane = lane_of(w, scalar32(w, in.src[1]));
  dst32(w, in.dst[0], 0)[lane] = scalar32(w, in.src[0]);
}

// v_mbcnt_lo / _hi: the set bits of the mask below this lane (in the low or the high half of the
// 64-lane mask), plus src1. Together they give a lane its index among the active lanes.
template <bool Hi>
void v_mbcnt(WorkGroup&, Wave& w, const Inst& in) {
  valu<2, Type::b32>(w, in, [](std::uint64_t mask, std::uint64_t add, std::uint64_t, int lane) -> std::uint64_t {
    const std::uint64_t below = lane == 0 ? 0 : (~0ull >> (64 - lane));
    const std::uint32_t half = Hi ? std::uint32_t(below >> 32) : std::uint32_t(below);
    return std::uint32_t(__builtin_popcount(std::uint32_t(mask) & half) + std::uint32_t(add));
  });
}

// ds_bpermute_b32 dst, addr, data: each lane reads data from lane (addr + offset) / 4. A lane
// EXEC disables gives 0.
void ds_bpermute(WorkGroup&, Wave& w, const Inst& in) {
  const Src32 addr = src32(w, in.src[0], 0, 1), data = src32(w, in.src[1], 0, 2);
  const std::uint64_t exec = w.exec();
  std::uint32_t out[64];
  for_lanes(w, [&](std::uint32_t lane) {
    const std::uint32_t from = lane_of(w, (addr[lane] + std::uint32_t(in.offset)) >> 2);
    out[lane] = (exec >> from) & 1 ? data[from] : 0;
  });
  std::uint32_t* d = dst32(w, in.dst[0], 0);
  for_lanes(w, [&](std::uint32_t lane) { d[lane] = out[lane]; });
}

// ds_permute_b32 dst, addr, data: each active lane writes its data to lane (addr + offset) / 4;
// lanes nobody writes get 0; the highest writing lane wins a collision.
void ds_permute(WorkGroup&, Wave& w, const Inst& in) {
  const Src32 addr = src32(w, in.src[0], 0, 1), data = src32(w, in.src[1], 0, 2);
  std::uint32_t out[64] = {};
  for_lanes(w, [&](std::uint32_t lane) { out[lane_of(w, (addr[lane] + std::uint32_t(in.offset)) >> 2)] = data[lane]; });
  std::uint32_t* d = dst32(w, in.dst[0], 0);
  for_lanes(w, [&](std::uint32_t lane) { d[lane] = out[lane]; });
}

// ds_swizzle_b32 dst, data offset:N. Bit 15 set: a permutation within each group of four lanes
// (2 bits per lane); clear: within each group of 32, source = ((lane & and) | or) ^ xor with the
// masks in bits 4:0, 9:5 and 14:10.
void ds_swizzle(WorkGroup&, Wave& w, const Inst& in) {
  const Src32 data = src32(w, in.src[1], 0, 2);
  const std::uint32_t offset = std::uint32_t(in.offset) & 0xffff;
  const std::uint64_t exec = w.exec();
  std::uint32_t out[64];
  for_lanes(w, [&](std::uint32_t lane) {
    std::uint32_t from;
    if (offset & 0x8000) {
      from = (lane & ~3u) | ((offset >> (2 * (lane & 3))) & 3);
    } else {
      const std::uint32_t and_mask = offset & 31, or_mask = (offset >> 5) & 31, xor_mask = (offset >> 10) & 31;
      from = (lane & ~31u) | ((((lane & 31) & and_mask) | or_mask) ^ xor_mask);
    }
    out[lane] = (exec >> from) & 1 ? data[from] : 0;
  });
  std::uint32_t* d = dst32(w, in.dst[0], 0);
  for_lanes(w, [&](std::uint32_t lane) { d[lane] = out[lane]; });
}

// gfx10 v_permlane16_b32 dst, src0, s1, s2: within each row of 16 lanes, lane i reads the lane
// the 4-bit select i of {s2:s1} names; v_permlanex16 reads it from the other row of the pair.
// op_sel[0] is FETCH_INACTIVE, op_sel[1] BOUND_CTRL: inactive sources read 0 (bound_ctrl) or
// leave the destination lane as it was.
template <bool Cross>
void v_permlane16(WorkGroup&, Wave& w, const Inst& in) {
  const Src32 src = src32(w, in.src[0], 0, 1);
  const std::uint64_t selects = std::uint64_t(scalar32(w, in.src[1])) | (std::uint64_t(scalar32(w, in.src[2])) << 32);
  const bool fetch_inactive = in.op_sel & 1, bound_ctrl = in.op_sel & 2;
  const std::uint64_t exec = w.exec();
  std::uint32_t* d = dst32(w, in.dst[0], 0);
  std::uint32_t out[64];
  std::uint64_t written = 0;
  for_lanes(w, [&](std::uint32_t lane) {
    const std::uint32_t row = Cross ? ((lane & ~15u) ^ 16u) : (lane & ~15u);
    const std::uint32_t from = row | std::uint32_t((selects >> (4 * (lane & 15))) & 15);
    if (((exec >> from) & 1) || fetch_inactive) out[lane] = src[from], written |= 1ull << lane;
    else if (bound_ctrl) out[lane] = 0, written |= 1ull << lane;
  });
  for_lanes(w, [&](std::uint32_t lane) {
    if ((written >> lane) & 1) d[lane] = out[lane];
  });
}

// Register indexing through M0 (gfx10, and gfx9 where the compiler chooses it).
void v_movrels(WorkGroup&, Wave& w, const Inst& in) {
  const std::uint32_t from = in.src[0].reg + w.s[kRegM0];
  std::uint32_t* d = dst32(w, in.dst[0], 0);
  for_lanes(w, [&](std::uint32_t lane) { d[lane] = w.vreg(from, lane); });
}
void v_movreld(WorkGroup& g, Wave& w, const Inst& in) {
  const std::uint32_t to = in.dst[0].reg + w.s[kRegM0];
  if (to >= w.num_v) g.fault(w, in, "v_movreld beyond the wave's VGPRs (M0 = " + std::to_string(w.s[kRegM0]) + ")");
  const Src32 s = src32(w, in.src[0], 0, 1);
  for_lanes(w, [&](std::uint32_t lane) { w.vreg(to, lane) = s[lane]; });
}
void v_movrelsd(WorkGroup& g, Wave& w, const Inst& in) {
  const std::uint32_t from = in.src[0].reg + w.s[kRegM0], to = in.dst[0].reg + w.s[kRegM0];
  if (to >= w.num_v || from >= w.num_v) g.fault(w, in, "v_movrelsd beyond the wave's VGPRs");
  for_lanes(w, [&](std::uint32_t lane) { w.vreg(to, lane) = w.vreg(from, lane); });
}

void reg(const char* name, Handler fn, std::uint8_t nsrc) {
  OpInfo info;
  info.fn = fn;
  info.nsrc = nsrc;
  register_op(name, info);
}

}  // namespace

void register_lane_ops() {
  reg("v_readlane_b32", &v_readlane, 2);
  reg("v_readfirstlane_b32", &v_readfirstlane, 1);
  reg("v_writelane_b32", &v_writelane, 2);
  reg("v_mbcnt_lo_u32_b32", &v_mbcnt<false>, 2);
  reg("v_mbcnt_hi_u32_b32", &v_mbcnt<true>, 2);
  reg("ds_bpermute_b32", &ds_bpermute, 2);
  reg("ds_permute_b32", &ds_permute, 2);
  reg("ds_swizzle_b32", &ds_swizzle, 2);
  reg("v_permlane16_b32", &v_permlane16<false>, 3);
  reg("v_permlanex16_b32", &v_permlane16<true>, 3);
  reg("v_movrels_b32", &v_movrels, 1);
  reg("v_movreld_b32", &v_movreld, 1);
  reg("v_movrelsd_b32", &v_movrelsd, 1);
}

}  // namespace hsad::isa
