// Decoding: every instruction of every code object the project builds (its own kernels, the
// tests' modules, the interpreter's kernels) decodes to an instruction the interpreter
// implements, on every target; the operand parser reads what LLVM prints as the ISA means it.
#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <set>
#include <type_traits>

#include "loaded_code.hpp"
#include "semantics.hpp"

namespace hsad::isa::testing {
namespace {

// The instructions the interpreter's kernels use on purpose to fail.
const std::set<std::string> kOnPurpose = {"v_mqsad_pk_u16_u8"};

struct Coverage {
  std::set<std::string> used, implemented, missing;
};

void add(Coverage& c, const Program& p) {
  for (const auto& [name, implemented] : p.mnemonics()) {
    c.used.insert(name);
    if (implemented) c.implemented.insert(name);
    else if (!kOnPurpose.count(name)) c.missing.insert(name);
  }
}

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
  return out;
}

class EveryCodeObject : public ::testing::TestWithParam<const char*> {};

// The coverage figure the closing note quotes: mnemonics used, per target, all implemented.
TEST_P(EveryCodeObject, DecodesToImplementedInstructionsOnly) {
  const std::string processor = GetParam();
  Coverage c, embedded;
  LoadedCode project(project_code_object(processor));
  add(c, project.program());
  add(embedded, project.program());
  std::cout << "[coverage] " << processor << ", the library's embedded code object: " << embedded.implemented.size()
            << " of " << embedded.used.size() << " distinct instructions implemented\n";
  LoadedCode tests(read_file(std::string(HSAD_ISA_KERNELS_DIR) + "/isa_" + processor + ".co"));
  add(c, tests.program());
  const std::string modules = read_file(std::string(HSAD_MODULES_DIR) + "/bundle.hsaco");
  if (const std::string_view m = select_code_object(modules, processor); !m.empty()) {
    add(c, LoadedCode(std::string(m)).program());
  }
  if (processor == "gfx1030") add(c, LoadedCode(read_file(std::string(HSAD_ISA_KERNELS_DIR) + "/w64_gfx1030.co")).program());
  if (processor == "gfx90a") add(c, LoadedCode(read_file(std::string(HSAD_ISA_KERNELS_DIR) + "/isa_v5_gfx90a.co")).program());
  std::cout << "[coverage] " << processor << ", with the tests' modules and kernels: " << c.implemented.size() << " of "
            << c.used.size()
            << " distinct instructions implemented (the rest unknown on purpose: " << join(kOnPurpose) << ")\n";
  EXPECT_TRUE(c.missing.empty()) << processor << " uses instructions the interpreter lacks: " << join(c.missing);
}

INSTANTIATE_TEST_SUITE_P(Targets, EveryCodeObject, ::testing::ValuesIn(isa_targets()), TargetName());

Inst parse(const char* processor, const char* text) { return parse_instruction(target_for(processor), text, 0x1000, 8); }

TEST(Decode, ConstantsTakeTheOperandsType) {
  register_all_ops();
  // An inline float constant is that value in the operand's format; an f64 literal is the high half.
  const Inst f64 = parse("gfx90a", "v_add_f64 v[0:1], v[2:3], 0.5");
  EXPECT_EQ(f64.src[1].bits, 0x3fe0000000000000ull);
  const Inst f32 = parse("gfx90a", "v_add_f32_e32 v0, 0.5, v1");
  EXPECT_EQ(f32.src[0].bits, 0x3f000000ull);
  const Inst lit = parse("gfx90a", "v_mul_f64 v[0:1], v[2:3], 0x40590000");
  EXPECT_EQ(lit.src[1].bits, 0x4059000000000000ull);  // 100.0
  const Inst neg = parse("gfx90a", "s_mov_b64 s[0:1], -1");
  EXPECT_EQ(neg.src[0].bits, ~0ull);
  const Inst i32 = parse("gfx90a", "s_mov_b32 s0, -16");
  EXPECT_EQ(i32.src[0].bits, 0xfffffff0ull);
  // A float inline constant of any 64-bit operand is a double, as the hardware expands it: gfx940's
  // compiler moves the double 1.0 with v_mov_b64 (it was read as the float's bits, and an LDS
  // atomic add of 1.0 added next to nothing).
  const Inst mov64 = parse("gfx940", "v_mov_b64_e32 v[2:3], 1.0");
  EXPECT_EQ(mov64.src[0].bits, 0x3ff0000000000000ull);
  const Inst smov64 = parse("gfx90a", "s_mov_b64 s[0:1], -2.0");
  EXPECT_EQ(smov64.src[0].bits, 0xc000000000000000ull);
}

// A broadcast source points at its own value, so a Src32 cannot be copied or moved (a copy would
// read the original's) and src32 builds it in the caller's object: its value is read there.
static_assert(!std::is_copy_constructible_v<Src32> && !std::is_copy_assignable_v<Src32> &&
              !std::is_move_constructible_v<Src32> && !std::is_move_assignable_v<Src32>);
TEST(Semantics, ABroadcastSourceIsReadWhereItWasMade) {
  register_all_ops();
  const Inst add = parse("gfx90a", "v_add_u32_e32 v0, 7, v1");
  const Wave w;
  const Src32 constant = src32(w, add.src[0], 0, 1);
  ASSERT_EQ(constant.stride, 0u);
  ASSERT_EQ(constant.p, &constant.value);
  EXPECT_EQ(constant[5], 7u);
  EXPECT_EQ(src32(w, add.src[0], 0, 1)[63], 7u);
}

// Clamp on an integer result saturates; where the interpreter does not model that for an
// instruction, the instruction with clamp decodes as unknown (never silently wrong), and a walk
// names it apart from the same instruction without clamp.
TEST(Decode, ClampOnAnIntegerResultIsSaturatedOrUnknown) {
  register_all_ops();
  EXPECT_NE(parse("gfx90a", "v_sub_u32_e64 v5, v3, s6 clamp").fn, &unknown_instruction);
  EXPECT_NE(parse("gfx1030", "v_add_nc_u32_e64 v1, v6, v2 clamp").fn, &unknown_instruction);
  EXPECT_NE(parse("gfx90a", "v_mad_u32_u24 v0, v1, v2, v3").fn, &unknown_instruction);
  EXPECT_EQ(parse("gfx90a", "v_mad_u32_u24 v0, v1, v2, v3 clamp").fn, &unknown_instruction);
  EXPECT_NE(parse("gfx90a", "v_add_f32_e64 v0, v1, v2 clamp").fn, &unknown_instruction);  // [0, 1]
  EXPECT_NE(parse("gfx90a", "v_cvt_u32_f32_e64 v0, v1 clamp").fn, &unknown_instruction);
  EXPECT_TRUE(clamp_saturates_integer("v_mad_u64_u32"));
  EXPECT_FALSE(clamp_saturates_integer("v_fma_f32"));
  EXPECT_FALSE(clamp_saturates_integer("v_cvt_f32_u32"));
}

TEST(Decode, RegistersAndModifiers) {
  register_all_ops();
  const Inst v = parse("gfx90a", "v_fma_f64 v[4:5], -v[0:1], |v[2:3]|, s[6:7]");
  EXPECT_EQ(v.dst[0].kind, Operand::vgpr);
  EXPECT_EQ(v.dst[0].reg, 4);
  EXPECT_EQ(v.dst[0].width, 2);
  EXPECT_TRUE(v.src[0].neg);
  EXPECT_TRUE(v.src[1].abs);
  EXPECT_EQ(v.src[2].kind, Operand::sgpr);
  EXPECT_EQ(v.src[2].reg, 6);
  const Inst dpp = parse("gfx90a", "v_add_u32_dpp v0, v1, v2 row_shr:1 row_mask:0xa bank_mask:0xc bound_ctrl:0");
  EXPECT_EQ(dpp.dpp, Dpp::row_shr);
  EXPECT_EQ(dpp.dpp_ctrl, 1u);
  EXPECT_EQ(dpp.row_mask, 0xa);
  EXPECT_EQ(dpp.bank_mask, 0xc);
  const Inst mem = parse("gfx90a", "global_load_dwordx2 v[2:3], v0, s[4:5] offset:-16 glc");
  EXPECT_EQ(mem.dst[0].width, 2);
  EXPECT_EQ(mem.src[2].reg, 4);
  EXPECT_EQ(mem.offset, -16);
  EXPECT_TRUE(mem.flags & kGlc);
  const Inst vcc = parse("gfx1030", "v_cndmask_b32_e32 v0, v1, v2, vcc_lo");
  EXPECT_EQ(vcc.src[2].reg, 106);
  EXPECT_EQ(vcc.src[2].width, 1);
}

TEST(Decode, AnUnknownMnemonicDecodesToAFaultingHandler) {
  register_all_ops();
  const Inst in = parse("gfx90a", "v_mqsad_pk_u16_u8 v[2:3], v[0:1], v4, v[6:7]");
  EXPECT_EQ(in.fn, &unknown_instruction);
  EXPECT_EQ(in.text, "v_mqsad_pk_u16_u8 v[2:3], v[0:1], v4, v[6:7]");
}

// A modifier the parser does not know makes the instruction unknown, naming the modifier; it is
// never ignored (an ignored cache policy or DPP broadcast would run as something else).
TEST(Decode, AnUnknownModifierMakesTheInstructionUnknown) {
  register_all_ops();
  const Inst known = parse("gfx90a", "global_load_dword v1, v[2:3], off offset:16 glc slc");
  EXPECT_NE(known.fn, &unknown_instruction);
  EXPECT_EQ(known.offset, 16);
  for (const char* text : {"global_load_dword v1, v[2:3], off tfe", "v_mov_b32_dpp v0, v1 row_newbcast:1 row_mask:0xf bank_mask:0xf",
                           "v_add_f32_e64 v0, v1, v2 byte_sel:2"}) {
    const Inst in = parse("gfx90a", text);
    EXPECT_EQ(in.fn, &unknown_instruction) << text;
    EXPECT_TRUE(in.flags & kUnknownModifier) << text;
    const std::string m = unknown_modifier_of(in);
    EXPECT_TRUE(std::string(text).find(m) != std::string::npos && !m.empty()) << text << ": '" << m << "'";
  }
  EXPECT_EQ(unknown_modifier_of(parse("gfx90a", "global_load_dword v1, v[2:3], off tfe")), "tfe");
  // SOPP's operands are not modifiers: the waitcnt counters decode as before.
  EXPECT_NE(parse("gfx90a", "s_waitcnt vmcnt(0) lgkmcnt(0)").fn, &unknown_instruction);
}

TEST(Decode, BranchTargetsAreInstructions) {
  // The project's bitonic kernel on gfx90a: every branch lands on an instruction of the code.
  LoadedCode code(project_code_object("gfx90a"));
  const Program& p = code.program();
  std::size_t branches = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const Inst& in = p[std::uint32_t(i)];
    if (in.text.rfind("s_cbranch_", 0) == 0 || in.text.rfind("s_branch", 0) == 0) {
      ++branches;
      ASSERT_LT(in.target, p.size()) << in.text;
      EXPECT_EQ(p[in.target].address, in.address + 4 + std::int64_t(in.simm) * 4) << in.text;
    }
  }
  EXPECT_GT(branches, 0u);
}

TEST(Decode, AProcessorTheInterpreterDoesNotKnowIsRefused) {
  EXPECT_THROW(target_for("gfx1250"), std::runtime_error);  // gfx12.5: another ISA
  EXPECT_THROW(target_for("gfx803"), std::runtime_error);
}

}  // namespace
}  // namespace hsad::isa::testing
