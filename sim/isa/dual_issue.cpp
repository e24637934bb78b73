// gfx11's VOPD: two VALU operations encoded as one instruction and issued together, each reading
// its sources before either writes its result. LLVM pairs only operations that do not depend on
// each other, and the hardware wants their destinations in different banks, so running them one
// after the other gives the same registers, provided the second does not read what the first
// wrote: X first, or Y first where Y reads X's destination.
#include "program.hpp"

#include "semantics.hpp"

#include <string>

namespace hsad::isa {

namespace {

bool overlaps(const Operand& a, const Operand& b) {
  if (a.kind != Operand::vgpr || b.kind != Operand::vgpr) return false;
  return a.reg < b.reg + b.width && b.reg < a.reg + a.width;
}

// Whether `in` reads the register `written`.
bool reads(const Inst& in, const Operand& written) {
  for (int i = 0; i < in.nsrc; ++i) {
    if (overlaps(in.src[i], written)) return true;
  }
  return false;
}

// "v_dual_cndmask_b32 v1, v2, v3" -> "v_cndmask_b32 v1, v2, v3, vcc_lo": the VOP2 form it is
// (VOPD is wave32 only: the condition is VCC_LO, implied). gfx11's names (v_dual_dot2acc_f32_f16,
// v_dual_mul_dx9_zero_f32) become the older ones through canonical_mnemonic.
std::string as_vop2(std::string_view half) {
  std::string t(half);
  if (t.compare(0, 7, "v_dual_") == 0) t.erase(2, 5);
  if (t.compare(0, 14, "v_cndmask_b32 ") == 0) t += ", vcc_lo";
  return t;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::vector<Inst> dual_issue(const Target& target, std::string_view text, std::uint64_t address, std::uint32_t size) {
  if (auto comment = text.find("//"); comment != std::string_view::npos) text = text.substr(0, comment);
  const auto sep = text.find("::");
  const std::string_view x_text = trimmed(text.substr(0, sep)), y_text = trimmed(text.substr(sep + 2));
  Inst x = parse_instruction(target, as_vop2(x_text), address, size);
  Inst y = parse_instruction(target, as_vop2(y_text), address, size);
  x.text = std::string(x_text);
  y.text = std::string(y_text);
  const bool y_reads_x = x.ndst && reads(y, x.dst[0]);
  const bool x_reads_y = y.ndst && reads(x, y.dst[0]);
  if (y_reads_x && x_reads_y) {
    for (Inst* half : {&x, &y}) half->fn = &unknown_instruction, half->flags |= kUnorderedPair;
  }
  if (y_reads_x && !x_reads_y) return {std::move(y), std::move(x)};
  return {std::move(x), std::move(y)};
}

}  // namespace hsad::isa
