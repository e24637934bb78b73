// RDNA4 (gfx12) as the interpreter decodes it: gfx11's model, with the cache policy in th: and
// scope: (an atomic that returns says so there), the cache controls at a scope, the split wait
// counters and the two-part barrier as the no-ops and the barrier they are, gfx12's renames, and
// its 64-bit and sub-dword scalar instructions. The machine code itself runs in the sid stage
// (LLVM 18 and later decode gfx12): TestKernels and ProjectKernels on gfx1201.
#include <gtest/gtest.h>

#include "loaded_code.hpp"
#include "semantics.hpp"

namespace hsad::isa::testing {
namespace {

Inst parse(const char* processor, const char* text) { return parse_instruction(target_for(processor), text, 0x1000, 8); }

TEST(Gfx12, IsGfx11sModelWithArchitectedSgprs) {
  const Target t = target_for("gfx1201");
  EXPECT_TRUE(t.gfx10 && t.gfx11 && t.gfx12);
  EXPECT_FALSE(t.wave64);
  EXPECT_TRUE(t.packed_workitem_ids && t.architected_flat_scratch);
  EXPECT_FALSE(target_for("gfx1100").gfx12);
}

TEST(Gfx12, TheCachePolicyIsKnownAndAReturningAtomicReturns) {
  register_all_ops();
  const Inst load = parse("gfx1201", "global_load_b32 v1, v0, s[0:1] th:TH_LOAD_NT scope:SCOPE_SYS");
  EXPECT_NE(load.fn, &unknown_instruction);
  EXPECT_TRUE(load.flags & kScopeSys);
  EXPECT_EQ(load.fn, parse("gfx1100", "global_load_b32 v1, v0, s[0:1]").fn);
  const Inst ret = parse("gfx1201", "flat_atomic_add_u64 v[0:1], v[2:3], v[4:5] th:TH_ATOMIC_RETURN scope:SCOPE_DEV");
  EXPECT_NE(ret.fn, &unknown_instruction);
  EXPECT_EQ(ret.ndst, 1);  // the old value comes back, as gfx9's glc asks
  EXPECT_EQ(ret.dst[0].reg, 0);
  const Inst no_ret = parse("gfx1201", "global_atomic_add_u32 v0, v1, s[0:1] scope:SCOPE_DEV");
  EXPECT_EQ(no_ret.ndst, 0);
  EXPECT_EQ(parse("gfx1201", "global_load_b32 v1, v0, s[0:1] scope:SCOPE_GALAXY").fn, &unknown_instruction);
}

TEST(Gfx12, CacheControlsCarryTheirScope) {
  register_all_ops();
  const Inst inv = parse("gfx1201", "global_inv scope:SCOPE_SYS");
  EXPECT_NE(inv.fn, &unknown_instruction);
  EXPECT_TRUE(inv.flags & kScopeSys);
  const Inst wb = parse("gfx1201", "global_wb scope:SCOPE_DEV");
  EXPECT_NE(wb.fn, &unknown_instruction);
  EXPECT_TRUE(wb.flags & kScopeDev);
  EXPECT_FALSE(wb.flags & kScopeSys);
}

TEST(Gfx12, WaitsAndTheBarriersHalvesAreKnown) {
  register_all_ops();
  for (const char* text : {"s_wait_loadcnt 0x0", "s_wait_kmcnt 0x0", "s_wait_dscnt 0x0", "s_wait_storecnt 0x0",
                           "s_wait_loadcnt_dscnt 0x0", "s_wait_alu 0xfffe", "s_barrier_signal -1", "s_barrier_wait -1"}) {
    const Inst in = parse("gfx1201", text);
    EXPECT_NE(in.fn, &unknown_instruction) << text;
  }
  EXPECT_NE(parse("gfx1201", "s_barrier_wait -1").fn, parse("gfx1201", "s_barrier_signal -1").fn);
}

TEST(Gfx12, RenamedAndNewScalarInstructions) {
  register_all_ops();
  const std::pair<const char*, const char*> pairs[] = {
      {"s_add_co_u32 s0, s1, s2", "s_add_u32 s0, s1, s2"},
      {"s_add_co_ci_u32 s0, s1, s2", "s_addc_u32 s0, s1, s2"},
      {"s_sub_co_i32 s0, s1, s2", "s_sub_i32 s0, s1, s2"},
      {"s_addk_co_i32 s2, 0x8c", "s_addk_i32 s2, 0x8c"},
      {"s_load_b96 s[4:6], s[0:1], 0x10", "s_load_dwordx3 s[4:6], s[0:1], 0x10"},
      {"v_mad_co_u64_u32 v[0:1], null, s2, v3, v[0:1]", "v_mad_u64_u32 v[0:1], null, s2, v3, v[0:1]"},
      {"v_max_num_f32_e32 v0, v1, v2", "v_max_f32_e32 v0, v1, v2"},
  };
  for (const auto& [now, was] : pairs) {
    const Inst a = parse("gfx1201", now), b = parse("gfx1030", was);
    EXPECT_NE(a.fn, &unknown_instruction) << now;
    EXPECT_EQ(a.fn, b.fn) << now;
    EXPECT_EQ(a.nsrc, b.nsrc) << now;
    EXPECT_EQ(a.dst[0].width, b.dst[0].width) << now;
  }
  for (const char* text : {"s_add_nc_u64 s[0:1], s[2:3], s[4:5]", "s_mul_u64 s[0:1], s[2:3], 5", "s_load_u16 s4, s[2:3], 0x0",
                           "s_load_i8 s4, s[2:3], 0x2", "v_s_rcp_f32 s0, s1"}) {
    EXPECT_NE(parse("gfx1201", text).fn, &unknown_instruction) << text;
  }
}

}  // namespace
}  // namespace hsad::isa::testing
