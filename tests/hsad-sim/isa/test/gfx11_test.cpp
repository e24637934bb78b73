// RDNA3 (gfx11) as the interpreter decodes it: gfx11's names for the instructions it kept read as
// the older ones do, its dual issue (VOPD) runs as issued together, its scheduling hints do
// nothing, and what it cannot run is refused by name. The project's kernels run on gfx1100 in
// ProjectKernels (project_kernels_test.cpp).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "loaded_code.hpp"
#include "semantics.hpp"

namespace hsad::isa::testing {
namespace {

Inst parse(const char* processor, const char* text) { return parse_instruction(target_for(processor), text, 0x1000, 8); }

TEST(Gfx11, IsWave32WithPackedWorkItemIdsAndArchitectedFlatScratch) {
  const Target t = target_for("gfx1100");
  EXPECT_TRUE(t.gfx10 && t.gfx11);
  EXPECT_FALSE(t.wave64);
  EXPECT_TRUE(t.packed_workitem_ids);
  EXPECT_TRUE(t.architected_flat_scratch);  // the hardware sets FLAT_SCRATCH: the kernel has no prologue for it
  EXPECT_TRUE(target_for("gfx1100", true).wave64);
  EXPECT_FALSE(target_for("gfx1030").gfx11);
}

// Each gfx11 name decodes to what its gfx10 name does: the same handler, operands, widths and
// atomic operation; the text stays as printed (errors and walks name what the code says).
TEST(Gfx11, RenamedInstructionsReadAsTheirOlderNames) {
  register_all_ops();
  const std::pair<const char*, const char*> pairs[] = {
      {"global_load_b64 v[0:1], v2, s[4:5] offset:8", "global_load_dwordx2 v[0:1], v2, s[4:5] offset:8"},
      {"global_load_u16 v0, v[2:3], off", "global_load_ushort v0, v[2:3], off"},
      {"global_load_i8 v0, v[2:3], off", "global_load_sbyte v0, v[2:3], off"},
      {"global_load_d16_hi_b16 v0, v[2:3], off", "global_load_short_d16_hi v0, v[2:3], off"},
      {"global_store_b128 v4, v[0:3], s[6:7]", "global_store_dwordx4 v4, v[0:3], s[6:7]"},
      {"global_atomic_max_u32 v0, v1, v2, s[0:1] glc", "global_atomic_umax v0, v1, v2, s[0:1] glc"},
      {"global_atomic_min_i64 v[0:1], v2, v[4:5], s[0:1] glc", "global_atomic_smin_x2 v[0:1], v2, v[4:5], s[0:1] glc"},
      {"global_atomic_cmpswap_b32 v0, v1, v[2:3], s[0:1] glc", "global_atomic_cmpswap v0, v1, v[2:3], s[0:1] glc"},
      {"flat_atomic_add_u64 v[0:1], v[2:3]", "flat_atomic_add_x2 v[0:1], v[2:3]"},
      {"scratch_store_b64 off, v[0:1], s33 offset:16", "scratch_store_dwordx2 off, v[0:1], s33 offset:16"},
      {"buffer_load_b32 v1, v0, s[8:11], 0 offen", "buffer_load_dword v1, v0, s[8:11], 0 offen"},
      {"ds_load_2addr_stride64_b64 v[0:3], v4 offset0:1 offset1:3", "ds_read2st64_b64 v[0:3], v4 offset0:1 offset1:3"},
      {"ds_store_b32 v1, v2 offset:64", "ds_write_b32 v1, v2 offset:64"},
      {"ds_load_u8 v0, v1", "ds_read_u8 v0, v1"},
      {"s_load_b256 s[8:15], s[0:1], 0x10", "s_load_dwordx8 s[8:15], s[0:1], 0x10"},
      {"s_and_not1_b32 s0, s1, s2", "s_andn2_b32 s0, s1, s2"},
      {"s_and_not1_saveexec_b32 s0, s1", "s_andn2_saveexec_b32 s0, s1"},
      {"s_ctz_i32_b32 s0, s1", "s_ff1_i32_b32 s0, s1"},
      {"v_clz_i32_u32_e32 v0, v1", "v_ffbh_u32_e32 v0, v1"},
      {"v_cvt_floor_i32_f32_e32 v0, v1", "v_cvt_flr_i32_f32_e32 v0, v1"},
  };
  for (const auto& [now, was] : pairs) {
    const Inst a = parse("gfx1100", now), b = parse("gfx1030", was);
    EXPECT_NE(a.fn, &unknown_instruction) << now;
    EXPECT_EQ(a.fn, b.fn) << now;
    EXPECT_EQ(a.ndst, b.ndst) << now;
    EXPECT_EQ(a.nsrc, b.nsrc) << now;
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(a.src[i].kind, b.src[i].kind) << now << " source " << i;
      EXPECT_EQ(a.src[i].reg, b.src[i].reg) << now << " source " << i;
      EXPECT_EQ(a.src[i].width, b.src[i].width) << now << " source " << i;
    }
    EXPECT_EQ(a.dst[0].width, b.dst[0].width) << now;
    EXPECT_EQ(a.mem_bytes, b.mem_bytes) << now;
    EXPECT_EQ(a.mem_count, b.mem_count) << now;
    EXPECT_EQ(a.mem_sign, b.mem_sign) << now;
    EXPECT_EQ(a.mem_d16, b.mem_d16) << now;
    EXPECT_EQ(a.atomic_op, b.atomic_op) << now;
    EXPECT_EQ(a.offset, b.offset) << now;
    EXPECT_EQ(a.offset1, b.offset1) << now;
    EXPECT_EQ(a.flags, b.flags) << now;
    EXPECT_EQ(a.yields, b.yields) << now;
    EXPECT_EQ(a.text, now);
  }
}

TEST(Gfx11, SchedulingHintsAreKnownAndDoNothing) {
  register_all_ops();
  for (const char* text : {"s_delay_alu instid0(VALU_DEP_1) | instskip(NEXT) | instid1(SALU_CYCLE_1)",
                           "s_set_inst_prefetch_distance 0x1", "s_waitcnt_depctr 0xfffe",
                           "s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)"}) {
    const Inst in = parse("gfx1100", text);
    EXPECT_NE(in.fn, &unknown_instruction) << text;
    EXPECT_EQ(in.ndst, 0) << text;
  }
}

// VOPD: both halves read their sources before either writes. Run one after the other, the half
// that reads the other's destination goes first; where each reads the other's, no order is right.
TEST(Gfx11, DualIssueRunsAsIssuedTogether) {
  register_all_ops();
  const Target t = target_for("gfx1100");
  const auto independent = dual_issue(t, "v_dual_mul_f32 v0, v1, v2 :: v_dual_mov_b32 v3, 1.0", 0x1000, 8);
  ASSERT_EQ(independent.size(), 2u);
  EXPECT_EQ(independent[0].text, "v_dual_mul_f32 v0, v1, v2");
  EXPECT_EQ(independent[1].text, "v_dual_mov_b32 v3, 1.0");
  EXPECT_EQ(independent[0].fn, parse("gfx1100", "v_mul_f32_e32 v0, v1, v2").fn);
  EXPECT_EQ(independent[1].src[0].bits, 0x3f800000u);
  // Y reads X's destination (v1): Y first, so it reads v1 as it was.
  const auto y_first = dual_issue(t, "v_dual_mov_b32 v1, v4 :: v_dual_add_f32 v3, v1, v5", 0x1000, 8);
  ASSERT_EQ(y_first.size(), 2u);
  EXPECT_EQ(y_first[0].text, "v_dual_add_f32 v3, v1, v5");
  EXPECT_EQ(y_first[1].text, "v_dual_mov_b32 v1, v4");
  // The condition of v_dual_cndmask_b32 is VCC_LO, not printed.
  const auto cnd = dual_issue(t, "v_dual_cndmask_b32 v0, v1, v2 :: v_dual_mov_b32 v5, v6", 0x1000, 8);
  EXPECT_NE(cnd[0].fn, &unknown_instruction);
  EXPECT_EQ(cnd[0].nsrc, 3);
  EXPECT_EQ(cnd[0].src[2].reg, 106);  // vcc_lo
  // gfx11's names inside a pair: v_dual_dot2acc_f32_f16 is the older v_dot2c_f32_f16.
  const auto dot = dual_issue(t, "v_dual_dot2acc_f32_f16 v0, v1, v2 :: v_dual_mov_b32 v5, v6", 0x1000, 8);
  EXPECT_EQ(dot[0].fn, parse("gfx1030", "v_dot2c_f32_f16_e32 v0, v1, v2").fn);
  // Each reads the other's result: both halves fault, naming why.
  const auto crossed = dual_issue(t, "v_dual_mov_b32 v1, v3 :: v_dual_mov_b32 v3, v1", 0x1000, 8);
  for (const Inst& half : crossed) {
    EXPECT_EQ(half.fn, &unknown_instruction) << half.text;
    EXPECT_TRUE(half.flags & kUnorderedPair) << half.text;
  }
}

// gfx11's true16 operands (a VGPR's half, "v1.h", as LLVM 20 and later print 16-bit operations)
// read as the half op_sel names; an operand the parser cannot read makes the instruction unknown,
// never read as something else.
TEST(Gfx11, HalfRegisterOperandsReadAsTheHalfOpSelNames) {
  register_all_ops();
  const Inst add = parse("gfx1100", "v_add_f16_e32 v1.l, v2.l, v3.h");
  EXPECT_NE(add.fn, &unknown_instruction);
  EXPECT_EQ(add.op_sel, 0b0010);  // source 1 high; the destination low
  EXPECT_EQ(add.dst[0].reg, 1);
  EXPECT_EQ(add.src[1].reg, 3);
  const Inst mul = parse("gfx1100", "v_mul_lo_u16 v0.h, 0x12c, v6.l op_sel:[0,0,1]");
  EXPECT_EQ(mul.op_sel, 0b1000);  // the destination's high half, printed and implied alike
  const Inst mov = parse("gfx1100", "v_mov_b16_e32 v6.h, v0.l");
  EXPECT_NE(mov.fn, &unknown_instruction);
  EXPECT_EQ(mov.op_sel, 0b1000);
  // A 16-bit result of 32-bit sources; a half of a 32-bit source is no operand the parser knows.
  const Inst cvt = parse("gfx1100", "v_cvt_f16_f32_e32 v32.h, v0");
  EXPECT_NE(cvt.fn, &unknown_instruction);
  EXPECT_EQ(cvt.op_sel, 0b1000);
  EXPECT_EQ(parse("gfx1100", "v_add_f32_e32 v1, v2.l, v3").fn, &unknown_instruction);
  EXPECT_TRUE(parse("gfx1100", "v_add_f32_e32 v1, v2.x, v3").flags & kUnknownOperand);
}

// VOP3's op_sel names each source's half, then the destination's: with two sources the
// destination's entry is the third (on gfx10 as well), and it is the destination the semantics
// write the high half of.
TEST(Gfx11, OpSelsLastEntryIsTheDestination) {
  register_all_ops();
  EXPECT_EQ(parse("gfx1030", "v_mul_lo_u16 v0, 0x12c, v6 op_sel:[0,0,1]").op_sel, 0b1000);
  EXPECT_EQ(parse("gfx1030", "v_sub_nc_u16 v0, v0, v0 op_sel:[0,1,0]").op_sel, 0b0010);
  EXPECT_EQ(parse("gfx1030", "v_cvt_f16_f32_e64 v0, v1 op_sel:[0,1]").op_sel, 0b1000);
  EXPECT_EQ(parse("gfx1030", "v_fma_f16 v0, v1, v2, v3 op_sel:[1,0,0,1]").op_sel, 0b1001);
  EXPECT_EQ(parse("gfx90a", "v_pk_add_f16 v0, v1, v2 op_sel:[1,0]").op_sel, 0b01);  // packed: sources only
}

// ds_cmpstore takes the new value first and the compared one second (ds_cmpst the other way).
TEST(Gfx11, CompareStoreTakesItsValueBeforeTheComparedOne) {
  register_all_ops();
  const Inst now = parse("gfx1100", "ds_cmpstore_rtn_b64 v[3:4], v9, v[5:6], v[10:11]");
  const Inst was = parse("gfx1030", "ds_cmpst_rtn_b64 v[3:4], v9, v[10:11], v[5:6]");
  EXPECT_NE(now.fn, &unknown_instruction);
  EXPECT_EQ(now.fn, was.fn);
  EXPECT_EQ(now.src[1].reg, was.src[1].reg);
  EXPECT_EQ(now.src[2].reg, was.src[2].reg);
}

// gfx11's trap without a handler ends in s_sethalt, which faults where it is reached; its
// s_sendmsg_rtn decodes with the message's number.
TEST(Gfx11, TheTrapSequenceDecodes) {
  register_all_ops();
  const Inst msg = parse("gfx1100", "s_sendmsg_rtn_b32 s0, sendmsg(MSG_RTN_GET_DOORBELL)");
  EXPECT_NE(msg.fn, &unknown_instruction);
  EXPECT_EQ(msg.src[0].bits, 128u);
  EXPECT_NE(parse("gfx1100", "s_sendmsg_rtn_b64 s[0:1], sendmsg(MSG_RTN_GET_REALTIME)").fn, &unknown_instruction);
  EXPECT_EQ(parse("gfx1100", "s_sendmsg_rtn_b32 s0, sendmsg(MSG_RTN_NO_SUCH)").fn, &unknown_instruction);
  const Inst halt = parse("gfx1100", "s_sethalt 5");
  EXPECT_NE(halt.fn, &unknown_instruction);
  EXPECT_EQ(halt.simm, 5);
}

// RDNA3.5 (gfx1150, gfx1151) adds scalar float instructions gfx1100 lacks: an interpreter whose
// disassembler predates them (LLVM 16 and earlier) refuses the target by name rather than decode it
// as gfx1100 and skip those instructions as data.
TEST(Gfx11, RdnaThreePointFiveNeedsADisassemblerThatKnowsIt) {
  try {
    Program p(target_for("gfx1151"), 0x1000, std::string(8, '\0'));
    SUCCEED() << "this interpreter's LLVM decodes gfx1151";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("LLVM 17 or later"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hsad::isa::testing
