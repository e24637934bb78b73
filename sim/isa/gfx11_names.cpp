// gfx11's (and gfx12's) names for instructions they kept from gfx9 and gfx10 (LLVM's AMDGPU "Renamed" mnemonics
// of GFX11): the memory instructions name their width and signedness (global_load_b32,
// ds_load_2addr_b64, global_atomic_max_u32), the scalar logic its operand's inversion
// (s_and_not1_b32), a few VALU ops what they compute (v_clz_i32_u32). The semantics are
// registered once, under the older name; gfx11's name is only another spelling of it.
//
// ds_cmpstore_b32 and its kin take their data operands in the other order from ds_cmpst_b32's
// (the parser swaps them back). Left out: the matrix and dual-issue forms (their own semantics).
#include "program.hpp"

#include <map>
#include <string>

namespace hsad::isa {

namespace {

using Names = std::map<std::string, std::string, std::less<>>;

void add_memory(Names& n, const std::string& unit, bool has_d16) {
  // Loads and stores by width and signedness.
  const std::pair<const char*, const char*> loads[] = {
      {"load_u8", "load_ubyte"},     {"load_i8", "load_sbyte"},      {"load_u16", "load_ushort"},
      {"load_i16", "load_sshort"},   {"load_b32", "load_dword"},     {"load_b64", "load_dwordx2"},
      {"load_b96", "load_dwordx3"},  {"load_b128", "load_dwordx4"},  {"store_b8", "store_byte"},
      {"store_b16", "store_short"},  {"store_b32", "store_dword"},   {"store_b64", "store_dwordx2"},
      {"store_b96", "store_dwordx3"}, {"store_b128", "store_dwordx4"},
  };
  for (const auto& [now, was] : loads) n[unit + now] = unit + was;
  if (has_d16) {
    const std::pair<const char*, const char*> d16[] = {
        {"load_d16_u8", "load_ubyte_d16"},       {"load_d16_i8", "load_sbyte_d16"},
        {"load_d16_b16", "load_short_d16"},      {"load_d16_hi_u8", "load_ubyte_d16_hi"},
        {"load_d16_hi_i8", "load_sbyte_d16_hi"}, {"load_d16_hi_b16", "load_short_d16_hi"},
        {"store_d16_hi_b8", "store_byte_d16_hi"}, {"store_d16_hi_b16", "store_short_d16_hi"},
    };
    for (const auto& [now, was] : d16) n[unit + now] = unit + was;
  }
  // Atomics: the operation, then its type; the 64-bit ones were the _x2 forms.
  const std::pair<const char*, const char*> atomics[] = {
      {"swap", "swap"}, {"cmpswap", "cmpswap"}, {"add", "add"},   {"sub", "sub"},   {"min_i", "smin"},
      {"min_u", "umin"}, {"max_i", "smax"},     {"max_u", "umax"}, {"and", "and"}, {"or", "or"},
      {"xor", "xor"},   {"inc", "inc"},         {"dec", "dec"},
  };
  for (const auto& [op, was] : atomics) {
    const std::string o(op);
    const bool typed = o.back() == 'i' || o.back() == 'u';  // min_i, max_u: the type's letter is given
    for (const char* width : {"32", "64"}) {
      const std::string w(width);
      const std::string old = unit + "atomic_" + was + (w == "64" ? "_x2" : "");
      if (typed) {
        n[unit + "atomic_" + o + w] = old;
      } else {
        for (const char* t : {"_b", "_u", "_i"}) n[unit + "atomic_" + o + t + w] = old;
      }
    }
  }
  n[unit + "atomic_cmpswap_f32"] = unit + "atomic_fcmpswap";
  n[unit + "atomic_min_f32"] = unit + "atomic_fmin";
  n[unit + "atomic_max_f32"] = unit + "atomic_fmax";
}

Names make_names() {
  Names n;
  for (const char* unit : {"global_", "flat_", "scratch_"}) add_memory(n, unit, true);
  add_memory(n, "buffer_", true);
  // Scalar memory.
  for (const char* unit : {"s_load_", "s_buffer_load_"}) {
    const std::string u(unit);
    n[u + "b32"] = u + "dword";
    n[u + "b64"] = u + "dwordx2";
    n[u + "b128"] = u + "dwordx4";
    n[u + "b256"] = u + "dwordx8";
    n[u + "b512"] = u + "dwordx16";
  }
  // LDS.
  for (const char* w : {"b32", "b64", "b96", "b128"}) {
    const std::string s(w);
    n["ds_load_" + s] = "ds_read_" + s;
    n["ds_store_" + s] = "ds_write_" + s;
  }
  for (const char* w : {"u8", "i8", "u16", "i16"}) n["ds_load_" + std::string(w)] = "ds_read_" + std::string(w);
  for (const char* w : {"u8_d16", "u8_d16_hi", "i8_d16", "i8_d16_hi", "u16_d16", "u16_d16_hi"}) {
    n["ds_load_" + std::string(w)] = "ds_read_" + std::string(w);
  }
  n["ds_store_b8"] = "ds_write_b8";
  n["ds_store_b16"] = "ds_write_b16";
  n["ds_store_b8_d16_hi"] = "ds_write_b8_d16_hi";
  n["ds_store_b16_d16_hi"] = "ds_write_b16_d16_hi";
  for (const char* w : {"b32", "b64"}) {
    const std::string s(w);
    n["ds_load_2addr_" + s] = "ds_read2_" + s;
    n["ds_load_2addr_stride64_" + s] = "ds_read2st64_" + s;
    n["ds_store_2addr_" + s] = "ds_write2_" + s;
    n["ds_store_2addr_stride64_" + s] = "ds_write2st64_" + s;
    n["ds_storexchg_rtn_" + s] = "ds_wrxchg_rtn_" + s;
    n["ds_storexchg_2addr_rtn_" + s] = "ds_wrxchg2_rtn_" + s;
    n["ds_storexchg_2addr_stride64_rtn_" + s] = "ds_wrxchg2st64_rtn_" + s;
    n["ds_cmpstore_" + s] = "ds_cmpst_" + s;
    n["ds_cmpstore_rtn_" + s] = "ds_cmpst_rtn_" + s;
  }
  // Scalar ALU.
  for (const char* w : {"b32", "b64"}) {
    const std::string s(w);
    n["s_and_not1_" + s] = "s_andn2_" + s;
    n["s_or_not1_" + s] = "s_orn2_" + s;
    n["s_and_not1_saveexec_" + s] = "s_andn2_saveexec_" + s;
    n["s_or_not1_saveexec_" + s] = "s_orn2_saveexec_" + s;
    n["s_and_not0_saveexec_" + s] = "s_andn1_saveexec_" + s;
    n["s_or_not0_saveexec_" + s] = "s_orn1_saveexec_" + s;
    n["s_and_not0_wrexec_" + s] = "s_andn1_wrexec_" + s;
    n["s_and_not1_wrexec_" + s] = "s_andn2_wrexec_" + s;
  }
  n["s_ctz_i32_b32"] = "s_ff1_i32_b32";
  n["s_ctz_i32_b64"] = "s_ff1_i32_b64";
  n["s_clz_i32_u32"] = "s_flbit_i32_b32";
  n["s_clz_i32_u64"] = "s_flbit_i32_b64";
  n["s_cls_i32"] = "s_flbit_i32";
  n["s_cls_i32_i64"] = "s_flbit_i32_i64";
  // Vector ALU.
  n["v_cvt_floor_i32_f32"] = "v_cvt_flr_i32_f32";
  n["v_cvt_nearest_i32_f32"] = "v_cvt_rpi_i32_f32";
  n["v_clz_i32_u32"] = "v_ffbh_u32";
  n["v_ctz_i32_b32"] = "v_ffbl_b32";
  n["v_cls_i32"] = "v_ffbh_i32";
  n["v_cvt_pk_rtz_f16_f32"] = "v_cvt_pkrtz_f16_f32";
  n["v_mul_dx9_zero_f32"] = "v_mul_legacy_f32";
  n["v_fmac_dx9_zero_f32"] = "v_fmac_legacy_f32";
  n["v_fma_dx9_zero_f32"] = "v_fma_legacy_f32";
  n["v_dot2acc_f32_f16"] = "v_dot2c_f32_f16";
  // gfx12's renames: the carries and the 64-bit multiply-adds name what they carry, the float
  // min/max their IEEE-754 2019 semantics (minimumNumber: a NaN operand yields the other).
  n["s_add_co_u32"] = "s_add_u32";
  n["s_add_co_i32"] = "s_add_i32";
  n["s_add_co_ci_u32"] = "s_addc_u32";
  n["s_sub_co_u32"] = "s_sub_u32";
  n["s_sub_co_i32"] = "s_sub_i32";
  n["s_sub_co_ci_u32"] = "s_subb_u32";
  n["s_addk_co_i32"] = "s_addk_i32";
  n["v_mad_co_u64_u32"] = "v_mad_u64_u32";
  n["v_mad_co_i64_i32"] = "v_mad_i64_i32";
  n["s_load_b96"] = "s_load_dwordx3";
  n["s_buffer_load_b96"] = "s_buffer_load_dwordx3";
  for (const char* t : {"f32", "f64", "f16"}) {
    n[std::string("v_max_num_") + t] = std::string("v_max_") + t;
    n[std::string("v_min_num_") + t] = std::string("v_min_") + t;
  }
  return n;
}

}  // namespace

std::string_view canonical_mnemonic(std::string_view base) {
  static const Names names = make_names();
  const auto it = names.find(base);
  return it == names.end() ? base : std::string_view(it->second);
}

}  // namespace hsad::isa
