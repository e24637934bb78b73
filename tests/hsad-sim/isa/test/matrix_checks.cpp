// The matrix instructions of gfx908, gfx90a, CDNA3 and CDNA4 (isa_mfma, isa_mfma_partial) against a reference
// written from AMD's matrix instruction tables in their general form (the Matrix Instruction
// Calculator's: an input element's lane and register from its block, row and k; an output's from
// the block, the row's band of H rows and the blocks per row of lanes), not from the interpreter's
// per-shape table. The arithmetic is the interpreter's documented model (sim/README.md, "Matrix
// instructions"): exact products summed in k order in double precision, C added, one rounding;
// f16 and bf16 inputs and results flushed when subnormal; f64 by fused multiply-adds in k order;
// i32 sums wrap; 8-bit floats exact, CDNA3's FNUZ encodings on gfx942 and OCP's on gfx950, and
// CDNA4's 6- and 4-bit ones (written here from the formats' definitions); xf32 inputs truncated to
// 10 mantissa bits (the hardware's way, as hipBLASLt reports it). Every element compares
// bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernel_checks.hpp"

namespace hsad::isa::testing {
namespace {

enum class Elem { f32, f16, bf16, i8, f64, fp8, bf8, fp6, bf6, fp4, xf32 };

struct Form {
  const char* name;
  unsigned m, k, blocks;
  Elem type;
  unsigned a_dwords;  // A's (and B's) registers per lane
  unsigned cbsz, abid, blgp;
  unsigned on;  // where the form exists: kOnGfx908 | kOnGfx90a | kOnGfx940 | kOnGfx942 | kOnGfx950
  Elem b_type = Elem::f32;  // B's type where it differs from A's (the 8-bit float forms); f32: A's
  bool formats = false;     // CDNA4's f8f6f4: cbsz and blgp name A's and B's formats, nothing else
  bool scaled = false;      // CDNA4's v_mfma_scale_*: the byte of each lane's scale words it uses
  unsigned byte_a = 0, byte_b = 0;
  Elem b() const { return b_type == Elem::f32 ? type : b_type; }
};

// gfx940 apart from gfx942: LLVM 15's hipcc builds it, without the 8-bit float forms' builtins.
constexpr unsigned kOnGfx908 = 1, kOnGfx90a = 2, kOnGfx940 = 4, kOnGfx942 = 8, kOnGfx950 = 16;
constexpr unsigned kOnCdna3 = kOnGfx940 | kOnGfx942 | kOnGfx950, kFp8 = kOnGfx942 | kOnGfx950;
constexpr unsigned kCdna12 = kOnGfx908 | kOnGfx90a, kEvery = kCdna12 | kOnCdna3, kSince90a = kOnGfx90a | kOnCdna3;

// isa_mfma's forms, by number (kernels/isa_test_kernels.hip).
const Form kForms[] = {
    {"v_mfma_f32_32x32x1f32", 32, 1, 2, Elem::f32, 1, 0, 0, 0, kEvery},
    {"v_mfma_f32_16x16x1f32", 16, 1, 4, Elem::f32, 1, 0, 0, 0, kEvery},
    {"v_mfma_f32_4x4x1f32", 4, 1, 16, Elem::f32, 1, 0, 0, 0, kEvery},
    {"v_mfma_f32_32x32x2f32", 32, 2, 1, Elem::f32, 1, 0, 0, 0, kEvery},
    {"v_mfma_f32_16x16x4f32", 16, 4, 1, Elem::f32, 1, 0, 0, 0, kEvery},
    {"v_mfma_f32_32x32x4f16", 32, 4, 2, Elem::f16, 2, 0, 0, 0, kEvery},
    {"v_mfma_f32_16x16x4f16", 16, 4, 4, Elem::f16, 2, 0, 0, 0, kEvery},
    {"v_mfma_f32_4x4x4f16", 4, 4, 16, Elem::f16, 2, 0, 0, 0, kEvery},
    {"v_mfma_f32_32x32x8f16", 32, 8, 1, Elem::f16, 2, 0, 0, 0, kEvery},
    {"v_mfma_f32_16x16x16f16", 16, 16, 1, Elem::f16, 2, 0, 0, 0, kEvery},
    {"v_mfma_i32_32x32x4i8", 32, 4, 2, Elem::i8, 1, 0, 0, 0, kEvery},
    {"v_mfma_i32_16x16x4i8", 16, 4, 4, Elem::i8, 1, 0, 0, 0, kEvery},
    {"v_mfma_i32_4x4x4i8", 4, 4, 16, Elem::i8, 1, 0, 0, 0, kEvery},
    {"v_mfma_i32_32x32x8i8", 32, 8, 1, Elem::i8, 1, 0, 0, 0, kCdna12},
    {"v_mfma_i32_16x16x16i8", 16, 16, 1, Elem::i8, 1, 0, 0, 0, kCdna12},
    {"v_mfma_f32_32x32x2bf16", 32, 2, 2, Elem::bf16, 1, 0, 0, 0, kCdna12},
    {"v_mfma_f32_16x16x2bf16", 16, 2, 4, Elem::bf16, 1, 0, 0, 0, kCdna12},
    {"v_mfma_f32_4x4x2bf16", 4, 2, 16, Elem::bf16, 1, 0, 0, 0, kCdna12},
    {"v_mfma_f32_32x32x4bf16", 32, 4, 1, Elem::bf16, 1, 0, 0, 0, kCdna12},
    {"v_mfma_f32_16x16x8bf16", 16, 8, 1, Elem::bf16, 1, 0, 0, 0, kCdna12},
    {"v_mfma_f32_4x4x1f32 cbsz:2 abid:3 blgp:3", 4, 1, 16, Elem::f32, 1, 2, 3, 3, kEvery},
    {"v_mfma_f32_16x16x4f16 cbsz:1 abid:1 blgp:5", 16, 4, 4, Elem::f16, 2, 1, 1, 5, kEvery},
    {"v_mfma_f32_32x32x8f16 blgp:2", 32, 8, 1, Elem::f16, 2, 0, 0, 2, kEvery},
    {"v_mfma_i32_32x32x4i8 cbsz:1 blgp:7", 32, 4, 2, Elem::i8, 1, 1, 0, 7, kEvery},
    {"v_mfma_f32_32x32x4bf16_1k", 32, 4, 2, Elem::bf16, 2, 0, 0, 0, kSince90a},
    {"v_mfma_f32_16x16x4bf16_1k", 16, 4, 4, Elem::bf16, 2, 0, 0, 0, kSince90a},
    {"v_mfma_f32_4x4x4bf16_1k", 4, 4, 16, Elem::bf16, 2, 0, 0, 0, kSince90a},
    {"v_mfma_f32_32x32x8bf16_1k", 32, 8, 1, Elem::bf16, 2, 0, 0, 0, kSince90a},
    {"v_mfma_f32_16x16x16bf16_1k", 16, 16, 1, Elem::bf16, 2, 0, 0, 0, kSince90a},
    {"v_mfma_f64_16x16x4f64", 16, 4, 1, Elem::f64, 2, 0, 0, 0, kSince90a},
    {"v_mfma_f64_4x4x4f64", 4, 4, 4, Elem::f64, 2, 0, 0, 0, kSince90a},
    {"v_mfma_i32_32x32x16_i8", 32, 16, 1, Elem::i8, 2, 0, 0, 0, kOnCdna3},
    {"v_mfma_i32_16x16x32_i8", 16, 32, 1, Elem::i8, 2, 0, 0, 0, kOnCdna3},
    {"v_mfma_f32_16x16x32_fp8_fp8", 16, 32, 1, Elem::fp8, 2, 0, 0, 0, kFp8, Elem::fp8},
    {"v_mfma_f32_16x16x32_fp8_bf8", 16, 32, 1, Elem::fp8, 2, 0, 0, 0, kFp8, Elem::bf8},
    {"v_mfma_f32_16x16x32_bf8_fp8", 16, 32, 1, Elem::bf8, 2, 0, 0, 0, kFp8, Elem::fp8},
    {"v_mfma_f32_16x16x32_bf8_bf8", 16, 32, 1, Elem::bf8, 2, 0, 0, 0, kFp8, Elem::bf8},
    {"v_mfma_f32_32x32x16_fp8_fp8", 32, 16, 1, Elem::fp8, 2, 0, 0, 0, kFp8, Elem::fp8},
    {"v_mfma_f32_32x32x16_fp8_bf8", 32, 16, 1, Elem::fp8, 2, 0, 0, 0, kFp8, Elem::bf8},
    {"v_mfma_f32_32x32x16_bf8_fp8", 32, 16, 1, Elem::bf8, 2, 0, 0, 0, kFp8, Elem::fp8},
    {"v_mfma_f32_32x32x16_bf8_bf8", 32, 16, 1, Elem::bf8, 2, 0, 0, 0, kFp8, Elem::bf8},
    {"v_mfma_f32_16x16x32_bf8_fp8 blgp:6", 16, 32, 1, Elem::bf8, 2, 0, 0, 6, kFp8, Elem::fp8},
    {"v_mfma_f32_16x16x32_f16", 16, 32, 1, Elem::f16, 4, 0, 0, 0, kOnGfx950},
    {"v_mfma_f32_32x32x16_f16", 32, 16, 1, Elem::f16, 4, 0, 0, 0, kOnGfx950},
    {"v_mfma_f32_16x16x32_bf16", 16, 32, 1, Elem::bf16, 4, 0, 0, 0, kOnGfx950},
    {"v_mfma_f32_32x32x16_bf16", 32, 16, 1, Elem::bf16, 4, 0, 0, 0, kOnGfx950},
    {"v_mfma_i32_16x16x64_i8", 16, 64, 1, Elem::i8, 4, 0, 0, 0, kOnGfx950},
    {"v_mfma_i32_32x32x32_i8", 32, 32, 1, Elem::i8, 4, 0, 0, 0, kOnGfx950},
    {"v_mfma_f32_16x16x128_f8f6f4 fp8 x fp8", 16, 128, 1, Elem::fp8, 8, 0, 0, 0, kOnGfx950, Elem::fp8, true},
    {"v_mfma_f32_16x16x128_f8f6f4 fp6 x bf6", 16, 128, 1, Elem::fp6, 8, 2, 0, 3, kOnGfx950, Elem::bf6, true},
    {"v_mfma_f32_16x16x128_f8f6f4 fp4 x bf8", 16, 128, 1, Elem::fp4, 8, 4, 0, 1, kOnGfx950, Elem::bf8, true},
    {"v_mfma_f32_32x32x64_f8f6f4 bf8 x fp4", 32, 64, 1, Elem::bf8, 8, 1, 0, 4, kOnGfx950, Elem::fp4, true},
    {"v_mfma_f32_32x32x64_f8f6f4 bf6 x fp8", 32, 64, 1, Elem::bf6, 8, 3, 0, 0, kOnGfx950, Elem::fp8, true},
    {"v_mfma_f32_16x16x8_xf32", 16, 8, 1, Elem::xf32, 2, 0, 0, 0, kOnGfx942},
    {"v_mfma_f32_32x32x4_xf32", 32, 4, 1, Elem::xf32, 2, 0, 0, 0, kOnGfx942},
    {"v_mfma_scale_f32_16x16x128_f8f6f4 fp8 x fp4, scale bytes 1 and 2", 16, 128, 1, Elem::fp8, 8, 0, 0, 4, kOnGfx950,
     Elem::fp4, true, true, 1, 2},
    {"v_mfma_scale_f32_32x32x64_f8f6f4 bf6 x bf8, scale bytes 3 and 0", 32, 64, 1, Elem::bf6, 8, 3, 0, 1, kOnGfx950,
     Elem::bf8, true, true, 3, 0},
    {"v_mfma_scale_f32_16x16x128_f8f6f4 fp4 x fp4, scale bytes 0 and 3", 16, 128, 1, Elem::fp4, 8, 4, 0, 4, kOnGfx950,
     Elem::fp4, true, true, 0, 3},
};

unsigned element_bits(Elem t) {
  switch (t) {
    case Elem::f16:
    case Elem::bf16: return 16;
    case Elem::i8:
    case Elem::fp8:
    case Elem::bf8: return 8;
    case Elem::fp6:
    case Elem::bf6: return 6;
    case Elem::fp4: return 4;
    case Elem::f64: return 64;
    default: return 32;
  }
}

// A byte that is a finite number in both encodings (no NaN, no infinity): 0x80 and the top exponents left out.
std::uint32_t finite_f8(std::mt19937& random, bool e5m2) {
  for (;;) {
    const std::uint32_t x = random() & 0xff, top = e5m2 ? 0x7c : 0x78;
    if (x != 0x80 && (x & top) != top) return x;
  }
}

float as_float(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
std::uint32_t float_bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
float flushed(float f) { return std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(0.0f, f) : f; }
double half_value(std::uint32_t h) {  // subnormal halves flushed (MI200's f16 matrix inputs)
  const int exp = int((h >> 10) & 31), man = int(h & 1023);
  const double v = exp == 0 ? 0.0 : exp == 31 ? (man ? NAN : INFINITY) : std::ldexp(double(man + 1024), exp - 25);
  return (h >> 15) & 1 ? -v : v;
}

// An OCP 6- or 4-bit float (E2M3, E3M2, E2M1): bias 2^(e-1) - 1, every encoding finite.
double small_float_value(std::uint32_t x, unsigned e_bits, unsigned m_bits) {
  const int bias = (1 << (e_bits - 1)) - 1;
  const unsigned e = (x >> m_bits) & ((1u << e_bits) - 1), m = x & ((1u << m_bits) - 1);
  const double fraction = double(m) / double(1u << m_bits);
  const double v = e == 0 ? std::ldexp(fraction, 1 - bias) : std::ldexp(1.0 + fraction, int(e) - bias);
  return (x >> (e_bits + m_bits)) & 1 ? -v : v;
}

// The inputs: per lane, A at in[8 * lane], B at in[kB + 8 * lane], C at in[kC + 32 * lane], and the
// scaled forms' scale words, A's at in[kScales + lane] and B's at in[kScales + 64 + lane].
constexpr unsigned kB = 512, kC = 1024, kScales = kC + 32 * 64;
struct Inputs {
  std::vector<std::uint32_t> words = std::vector<std::uint32_t>(kScales + 128);
  // Element e of `bits` bits, packed low bits first across the lane's registers (a 6-bit one may
  // span two).
  std::uint64_t input_bits(unsigned base, unsigned lane, unsigned e, unsigned bits) const {
    const unsigned first = e * bits;
    const std::uint64_t lo = words[base + 8 * lane + first / 32];
    if (bits == 64) return lo | (std::uint64_t(words[base + 8 * lane + first / 32 + 1]) << 32);
    if (bits == 32) return lo;
    std::uint64_t two = lo;
    if (first % 32 + bits > 32) two |= std::uint64_t(words[base + 8 * lane + first / 32 + 1]) << 32;
    return (two >> (first % 32)) & ((1u << bits) - 1);
  }
};

// Random inputs of the form's type: small integers' worth of floats, signs, zeros, and (f16,
// bf16) a few subnormals, which the model flushes.
Inputs random_inputs(const Form& f, unsigned seed) {
  std::mt19937 random(seed);
  Inputs in;
  auto word_of = [&](Elem t) -> std::uint32_t {
    switch (t) {
      case Elem::f32: return float_bits(float(int(random() % 2001) - 1000) / 64.0f);
      case Elem::f16: {
        auto half = [&]() -> std::uint32_t {
          const std::uint32_t r = random();
          if (r % 17 == 0) return (r >> 8) & 0x83ff;  // subnormal or zero, either sign
          return ((r >> 8) & 0x8000) | ((8 + r % 14) << 10) | ((r >> 12) & 0x3ff);
        };
        return half() | (half() << 16);
      }
      case Elem::bf16: {
        auto bf = [&]() -> std::uint32_t {
          const std::uint32_t r = random();
          if (r % 19 == 0) return (r >> 8) & 0x807f;
          return ((r >> 8) & 0x8000) | ((120 + r % 14) << 7) | ((r >> 12) & 0x7f);
        };
        return bf() | (bf() << 16);
      }
      case Elem::i8: return random();
      case Elem::fp8:
      case Elem::bf8: {
        std::uint32_t w = 0;
        for (unsigned byte = 0; byte < 4; ++byte) w |= finite_f8(random, t == Elem::bf8) << (8 * byte);
        return w;
      }
      case Elem::fp6:
      case Elem::bf6:
      case Elem::fp4: return random();  // every pattern is a finite number
      case Elem::xf32: return (random() & 0x807fffffu) | ((120u + random() % 14) << 23);  // every mantissa bit
      case Elem::f64: return 0;  // filled below as doubles
    }
    return 0;
  };
  for (unsigned lane = 0; lane < 64; ++lane) {
    for (unsigned base : {0u, kB}) {
      if (f.type == Elem::f64) {
        const double d = double(int(random() % 20001) - 10000) / 1024.0 + std::ldexp(double(random() % 1024), -40);
        std::memcpy(&in.words[base + 8 * lane], &d, 8);
      } else {
        const Elem t = base == 0 ? f.type : f.b();
        for (unsigned r = 0; r < f.a_dwords; ++r) in.words[base + 8 * lane + r] = word_of(t);
      }
    }
    for (unsigned x = 0; x < 2; ++x) {  // E8M0 bytes 120-134: 2^-7 to 2^7, each byte another
      std::uint32_t word = 0;
      for (unsigned byte = 0; byte < 4; ++byte) word |= (120u + random() % 15) << (8 * byte);
      in.words[kScales + 64 * x + lane] = word;
    }
    for (unsigned r = 0; r < 32; r += f.type == Elem::f64 ? 2 : 1) {
      if (f.type == Elem::f64) {
        const double d = double(int(random() % 2001) - 1000) / 8.0;
        std::memcpy(&in.words[kC + 32 * lane + r], &d, 8);
      } else if (f.type == Elem::i8) {
        in.words[kC + 32 * lane + r] = random();  // wraps with the sums
      } else {
        in.words[kC + 32 * lane + r] = float_bits(float(int(random() % 2001) - 1000) / 16.0f);
      }
    }
  }
  return in;
}

unsigned blgp_lane(unsigned blgp, unsigned l) {
  static const unsigned base[8] = {0, 0, 32, 0, 0, 16, 32, 48};
  if (blgp == 0) return l;
  if (blgp == 3) return (l + 16) % 64;
  return base[blgp] + l % (blgp <= 2 ? 32 : 16);
}

// Where D[i][j] of block b lives, in the calculator's general form: rows in bands of H (4 for
// 32-bit results, 1 for f64), R = 64/N lane groups, BPR blocks side by side in a row of lanes.
// The register is counted in the result's elements (64-bit ones for f64).
std::pair<unsigned, unsigned> result_at(const Form& f, unsigned b, unsigned i, unsigned j) {
  const unsigned M = f.m, N = f.m, H = f.type == Elem::f64 ? 1 : 4, R = 64 / N;
  const unsigned per_row_of_lanes = N * M / H;
  const unsigned BPR = (64 + per_row_of_lanes - 1) / per_row_of_lanes;
  const unsigned reg = b * (M * N / 64) + (i / (H * R)) * H + i % H;
  const unsigned lane = (b % BPR) * N + ((i / H) % R) * BPR * N + j;
  return {reg, lane};
}

// An input element's value from its bits, by its format's definition.
double element_value(Elem t, std::uint64_t x, bool ocp) {
  switch (t) {
    case Elem::fp8: return f8_value(std::uint32_t(x), false, ocp);
    case Elem::bf8: return f8_value(std::uint32_t(x), true, ocp);
    case Elem::xf32: return as_float(std::uint32_t(x) & 0xffffe000u);  // 10 mantissa bits: truncated
    case Elem::fp6: return small_float_value(std::uint32_t(x), 2, 3);
    case Elem::bf6: return small_float_value(std::uint32_t(x), 3, 2);
    case Elem::fp4: return small_float_value(std::uint32_t(x), 2, 1);
    case Elem::f32: return as_float(std::uint32_t(x));
    case Elem::f16: return half_value(std::uint32_t(x));
    case Elem::bf16: return flushed(as_float(std::uint32_t(x) << 16));
    case Elem::i8: return double(std::int8_t(x));
    case Elem::f64: {
      double d;
      std::memcpy(&d, &x, 8);
      return d;
    }
  }
  return 0;
}

// The reference: D's words as isa_mfma writes them (out[32 * lane + register]).
std::vector<std::uint32_t> reference(const Form& f, const Inputs& in, bool ocp) {
  std::vector<std::uint32_t> out(32 * 64, 0);
  const unsigned M = f.m, K = f.k, B = f.blocks, kpl = K * M * B / 64;
  auto value = [&](unsigned base, unsigned lane, unsigned e) -> double {
    const Elem t = base == 0 ? f.type : f.b();
    return element_value(t, in.input_bits(base, lane, e, element_bits(t)), ocp);
  };
  for (unsigned b = 0; b < B; ++b) {
    const unsigned ab = !f.formats && (f.cbsz || f.abid) ? b / (1u << f.cbsz) * (1u << f.cbsz) + f.abid : b;
    for (unsigned i = 0; i < M; ++i) {
      for (unsigned j = 0; j < M; ++j) {
        const auto [reg, lane] = result_at(f, b, i, j);
        const unsigned c_word = kC + 32 * lane + (f.type == Elem::f64 ? 2 * reg : reg);
        double acc = 0;
        std::uint32_t isum = in.words[c_word];
        if (f.type == Elem::f64) std::memcpy(&acc, &in.words[c_word], 8);
        for (unsigned k = 0; k < K; ++k) {
          const unsigned a_lane = i + M * ab + M * B * (k / kpl);
          const unsigned b_lane = blgp_lane(f.formats ? 0 : f.blgp, j + M * b + M * B * (k / kpl));
          double x = value(0, a_lane, k % kpl), y = value(kB, b_lane, k % kpl);
          if (f.scaled) {  // the lanes that hold a K block hold its scales
            x = std::ldexp(x, int((in.words[kScales + a_lane] >> (8 * f.byte_a)) & 0xff) - 127);
            y = std::ldexp(y, int((in.words[kScales + 64 + b_lane] >> (8 * f.byte_b)) & 0xff) - 127);
          }
          if (f.type == Elem::i8) isum += std::uint32_t(std::int32_t(x) * std::int32_t(y));
          else if (f.type == Elem::f64) acc = std::fma(x, y, acc);
          else acc += x * y;
        }
        if (f.type == Elem::i8) {
          out[32 * lane + reg] = isum;
        } else if (f.type == Elem::f64) {
          std::memcpy(&out[32 * lane + 2 * reg], &acc, 8);
        } else {
          float r = float(acc + double(as_float(in.words[c_word])));
          if (f.type == Elem::f16 || f.type == Elem::bf16) r = flushed(r);
          out[32 * lane + reg] = float_bits(r);
        }
      }
    }
  }
  return out;
}

unsigned result_words(const Form& f) { return f.m * f.m * f.blocks / 64 * (f.type == Elem::f64 ? 2 : 1); }

// Which of kOnGfx908 ... kOnGfx950 the processor is, or 0 (no matrix cores).
unsigned matrix_family(const std::string& p) {
  if (p == "gfx908") return kOnGfx908;
  if (p == "gfx90a") return kOnGfx90a;
  if (p == "gfx940" || p == "gfx941") return kOnGfx940;
  if (p == "gfx942") return kOnGfx942;
  if (p == "gfx950") return kOnGfx950;
  return 0;
}

// The kernel's registers against the reference's, lane by lane (`stride` words a lane, the first
// `words` compared): the first four differences named, and how many there were.
void expect_same_registers(const std::vector<std::uint32_t>& got, const std::vector<std::uint32_t>& want, unsigned lanes,
                           unsigned stride, unsigned words) {
  unsigned wrong = 0;
  for (unsigned lane = 0; lane < lanes; ++lane) {
    for (unsigned w = 0; w < words; ++w) {
      if (got[stride * lane + w] != want[stride * lane + w] && wrong++ < 4) {
        ADD_FAILURE() << "lane " << lane << ", register " << w << ": 0x" << std::hex << got[stride * lane + w] << ", want 0x"
                      << want[stride * lane + w];
      }
    }
  }
  EXPECT_EQ(wrong, 0u);
}

}  // namespace

// FNUZ (CDNA3): exponent bias 8 or 16, 0x80 the only NaN, no infinity; OCP (gfx950, RDNA4): bias 7
// or 15, E4M3's NaN S.1111.111 and no infinity, E5M2 with IEEE's infinities and NaNs.
double f8_value(std::uint32_t x, bool e5m2, bool ocp) {
  const unsigned e_bits = e5m2 ? 5 : 4, m_bits = 7 - e_bits;
  const int bias = e5m2 ? (ocp ? 15 : 16) : (ocp ? 7 : 8);
  const unsigned e = (x & 0x7f) >> m_bits, m = x & ((1u << m_bits) - 1);
  const double sign = (x & 0x80) ? -1.0 : 1.0;
  if (!ocp && x == 0x80) return NAN;
  if (ocp && e5m2 && e == 31) return m ? NAN : sign * INFINITY;
  if (ocp && !e5m2 && (x & 0x7f) == 0x7f) return NAN;
  const double fraction = double(m) / double(1u << m_bits);
  return sign * (e == 0 ? std::ldexp(fraction, 1 - bias) : std::ldexp(1.0 + fraction, int(e) - bias));
}

void check_mfma(Runner& r) {
  const unsigned family = matrix_family(r.processor());
  if (!family) return;
  for (unsigned form = 0; form < sizeof kForms / sizeof kForms[0]; ++form) {
    const Form& f = kForms[form];
    if (!(f.on & family)) continue;
    SCOPED_TRACE(f.name);
    const Inputs in = random_inputs(f, 100 + form);
    auto* out = static_cast<std::uint32_t*>(r.alloc(32 * 64 * 4));
    r.run("isa_mfma", {64}, {64}, {r.upload(in.words), out, form});
    const auto got = r.download(out, 32 * 64);
    const auto want = reference(f, in, family == kOnGfx950);
    expect_same_registers(got, want, 64, 32, result_words(f));
  }
}

namespace {

// isa_smfmac's cases, by number: the sparse forms (v_smfmac_*), A 2:4 sparse along K. Written from
// the Matrix Instruction Calculator's CDNA3 tables (and, for CDNA4's own forms, rocm-libraries' CK
// layouts) in their general form: lane M*g + i holds A's row i and B's column i for the g-th run of
// KL = K*M/64 dense k (CDNA4's own forms: B's two halves of K, registers 0-3 and 4-7, each so laid
// out); A stores two of each four k, their positions in the index word of A's lane, 4 bits a group,
// the set picked by abid where cbsz is 0 (CDNA4's 8-bit forms: the whole word).
struct SparseCase {
  const char* name;
  unsigned m, k;
  Elem a, b;
  unsigned abid, cbsz;
  unsigned on;
  bool cdna4 = false;
};

const SparseCase kSparse[] = {
    {"v_smfmac_f32_16x16x32_f16", 16, 32, Elem::f16, Elem::f16, 0, 0, kOnCdna3},
    {"v_smfmac_f32_32x32x16_f16 abid:3", 32, 16, Elem::f16, Elem::f16, 3, 0, kOnCdna3},
    {"v_smfmac_f32_16x16x32_bf16 abid:2", 16, 32, Elem::bf16, Elem::bf16, 2, 0, kOnCdna3},
    {"v_smfmac_f32_32x32x16_bf16", 32, 16, Elem::bf16, Elem::bf16, 0, 0, kOnCdna3},
    {"v_smfmac_i32_16x16x64_i8 abid:1", 16, 64, Elem::i8, Elem::i8, 1, 0, kOnCdna3},
    {"v_smfmac_i32_32x32x32_i8", 32, 32, Elem::i8, Elem::i8, 0, 0, kOnCdna3},
    {"v_smfmac_f32_16x16x64_bf8_bf8", 16, 64, Elem::bf8, Elem::bf8, 0, 0, kOnCdna3},
    {"v_smfmac_f32_16x16x64_bf8_fp8 abid:1", 16, 64, Elem::bf8, Elem::fp8, 1, 0, kOnCdna3},
    {"v_smfmac_f32_16x16x64_fp8_bf8", 16, 64, Elem::fp8, Elem::bf8, 0, 0, kOnCdna3},
    {"v_smfmac_f32_16x16x64_fp8_fp8", 16, 64, Elem::fp8, Elem::fp8, 0, 0, kOnCdna3},
    {"v_smfmac_f32_32x32x32_bf8_bf8", 32, 32, Elem::bf8, Elem::bf8, 0, 0, kOnCdna3},
    {"v_smfmac_f32_32x32x32_bf8_fp8", 32, 32, Elem::bf8, Elem::fp8, 0, 0, kOnCdna3},
    {"v_smfmac_f32_32x32x32_fp8_bf8 abid:1", 32, 32, Elem::fp8, Elem::bf8, 1, 0, kOnCdna3},
    {"v_smfmac_f32_32x32x32_fp8_fp8", 32, 32, Elem::fp8, Elem::fp8, 0, 0, kOnCdna3},
    {"v_smfmac_f32_16x16x32_f16 cbsz:1 abid:2 (abid unused)", 16, 32, Elem::f16, Elem::f16, 2, 1, kOnCdna3},
    {"v_smfmac_i32_16x16x64_i8 abid:2 (no such set: a fault)", 16, 64, Elem::i8, Elem::i8, 2, 0, 0},
    {"v_smfmac_f32_32x32x16_bf16 abid:1, A and D in AGPRs", 32, 16, Elem::bf16, Elem::bf16, 1, 0, kOnCdna3},
    {"v_smfmac_f32_16x16x64_f16", 16, 64, Elem::f16, Elem::f16, 0, 0, kOnGfx950, true},
    {"v_smfmac_f32_32x32x32_f16 abid:1", 32, 32, Elem::f16, Elem::f16, 1, 0, kOnGfx950, true},
    {"v_smfmac_f32_16x16x64_bf16 abid:1", 16, 64, Elem::bf16, Elem::bf16, 1, 0, kOnGfx950, true},
    {"v_smfmac_f32_32x32x32_bf16", 32, 32, Elem::bf16, Elem::bf16, 0, 0, kOnGfx950, true},
    {"v_smfmac_i32_16x16x128_i8", 16, 128, Elem::i8, Elem::i8, 0, 0, kOnGfx950, true},
    {"v_smfmac_i32_32x32x64_i8", 32, 64, Elem::i8, Elem::i8, 0, 0, kOnGfx950, true},
    {"v_smfmac_f32_16x16x128_bf8_bf8", 16, 128, Elem::bf8, Elem::bf8, 0, 0, kOnGfx950, true},
    {"v_smfmac_f32_16x16x128_bf8_fp8", 16, 128, Elem::bf8, Elem::fp8, 0, 0, kOnGfx950, true},
    {"v_smfmac_f32_16x16x128_fp8_bf8", 16, 128, Elem::fp8, Elem::bf8, 0, 0, kOnGfx950, true},
    {"v_smfmac_f32_16x16x128_fp8_fp8", 16, 128, Elem::fp8, Elem::fp8, 0, 0, kOnGfx950, true},
    {"v_smfmac_f32_32x32x64_bf8_bf8", 32, 64, Elem::bf8, Elem::bf8, 0, 0, kOnGfx950, true},
    {"v_smfmac_f32_32x32x64_bf8_fp8", 32, 64, Elem::bf8, Elem::fp8, 0, 0, kOnGfx950, true},
    {"v_smfmac_f32_32x32x64_fp8_bf8", 32, 64, Elem::fp8, Elem::bf8, 0, 0, kOnGfx950, true},
    {"v_smfmac_f32_32x32x64_fp8_fp8", 32, 64, Elem::fp8, Elem::fp8, 0, 0, kOnGfx950, true},
    {"v_smfmac_f32_16x16x64_f16 cbsz:1 abid:1 (abid unused)", 16, 64, Elem::f16, Elem::f16, 1, 1, kOnGfx950, true},
    {"v_smfmac_i32_16x16x128_i8 abid:1 (the whole word: abid unused)", 16, 128, Elem::i8, Elem::i8, 1, 0, kOnGfx950, true},
};
constexpr unsigned kSparseIndex = 3072;  // each lane's index word: in[kSparseIndex + lane]

// An index word whose eight groups each name two distinct positions, ascending (slot 0's in the
// low 2 bits), as an application's compression writes them.
std::uint32_t valid_index_word(std::mt19937& random) {
  static const unsigned kPairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  std::uint32_t word = 0;
  for (unsigned group = 0; group < 8; ++group) {
    const unsigned* p = kPairs[random() % 6];
    word |= (p[0] | p[1] << 2) << (4 * group);
  }
  return word;
}

// Random inputs for a sparse case: A's stored values and B of its types, C, and index words whose
// every group (all eight, not only the set used) names two distinct positions in ascending order,
// as an application's compression writes them (CK's compress_a): a wrong set reads other positions.
Inputs sparse_inputs(const SparseCase& c, unsigned seed) {
  Form as_a{c.name, c.m, c.k, 1, c.a, 0, 0, 0, 0, 0}, as_b{c.name, c.m, c.k, 1, c.b, 0, 0, 0, 0, 0};
  const unsigned kl = c.k * c.m / 64;
  as_a.a_dwords = kl / 2 * element_bits(c.a) / 32;
  as_b.a_dwords = kl * element_bits(c.b) / 32;
  Inputs in = random_inputs(as_a, seed);  // A's words (and C)
  const Inputs other = random_inputs(as_b, seed + 1000);
  std::copy(other.words.begin() + kB, other.words.begin() + kC, in.words.begin() + kB);
  std::mt19937 random(seed + 2000);
  for (unsigned lane = 0; lane < 64; ++lane) in.words[kSparseIndex + lane] = valid_index_word(random);
  return in;
}

// D's words as isa_smfmac writes them, from A expanded by its index and B laid out by k.
std::vector<std::uint32_t> sparse_reference(const SparseCase& c, const Inputs& in, bool ocp) {
  const unsigned M = c.m, K = c.k, KL = K * M / 64, KH = KL / 2;
  const bool whole_word = c.cdna4 && element_bits(c.a) == 8;
  const unsigned set = whole_word || c.cbsz ? 0 : KL * c.abid;
  const Form block{c.name, M, K, 1, Elem::f32, 0, 0, 0, 0, 0};
  std::vector<std::uint32_t> out(32 * 64, 0);
  // B[k][j]: its lane and element.
  auto b_value = [&](unsigned k, unsigned j) {
    unsigned group = k / KL, e = k % KL;
    if (c.cdna4) group = (k % (K / 2)) / KH, e = (k / (K / 2)) * KH + k % KH;
    return element_value(c.b, in.input_bits(kB, group * M + j, e, element_bits(c.b)), ocp);
  };
  for (unsigned i = 0; i < M; ++i) {
    for (unsigned j = 0; j < M; ++j) {
      const auto [reg, lane] = result_at(block, 0, i, j);
      const std::uint32_t c_bits = in.words[kC + 32 * lane + reg];
      double acc = 0;
      std::uint32_t isum = c_bits;
      for (unsigned g = 0; g < 64 / M; ++g) {
        const unsigned a_lane = g * M + i;
        const std::uint32_t index = in.words[kSparseIndex + a_lane];
        for (unsigned q = 0; q < KL / 4; ++q) {
          for (unsigned half = 0; half < 2; ++half) {
            const unsigned slot = 2 * q + half, position = (index >> (set + 4 * q + 2 * half)) & 3;
            const double x = element_value(c.a, in.input_bits(0, a_lane, slot, element_bits(c.a)), ocp);
            const double y = b_value(g * KL + 4 * q + position, j);
            if (c.a == Elem::i8) isum += std::uint32_t(std::int32_t(x) * std::int32_t(y));
            else acc += x * y;
          }
        }
      }
      if (c.a == Elem::i8) {
        out[32 * lane + reg] = isum;
      } else {
        float r = float(acc + double(as_float(c_bits)));
        if (c.a == Elem::f16 || c.a == Elem::bf16) r = flushed(r);
        out[32 * lane + reg] = float_bits(r);
      }
    }
  }
  return out;
}

}  // namespace

void check_smfmac(Runner& r) {
  const unsigned family = matrix_family(r.processor());
  for (unsigned form = 0; form < sizeof kSparse / sizeof kSparse[0]; ++form) {
    const SparseCase& c = kSparse[form];
    if (!(c.on & family)) continue;
    SCOPED_TRACE(c.name);
    const Inputs in = sparse_inputs(c, 300 + form);
    auto* out = static_cast<std::uint32_t*>(r.alloc(32 * 64 * 4));
    r.run("isa_smfmac", {64}, {64}, {r.upload(in.words), out, form});
    const auto got = r.download(out, 32 * 64);
    const auto want = sparse_reference(c, in, family == kOnGfx950);
    expect_same_registers(got, want, 64, 32, c.m * c.m / 64);
  }
}

namespace {

// isa_swmmac's cases, by number: RDNA4's sparse WMMA (v_swmmac_*, wave32), written from the Matrix
// Instruction Calculator's rdna4 tables in their general form: the lanes of half h hold A's row and
// B's column for their half of each 16 k (16-bit: k 8h to 8h + 7 of each 16) or of the whole K (8-
// and 4-bit); A two of each four k, their positions in the index word of A's lane (16 * index_key
// on), 4 bits a group; D as the dense gfx12 forms lay it out.
enum class Wmma { f16, bf16, iu8, iu4, fp8, bf8 };
enum class WmmaResult { f32, f16, bf16, i32 };

struct SwmmacCase {
  const char* name;
  Wmma a, b;
  WmmaResult out;
  unsigned k;
  unsigned index_key;
  unsigned neg_lo, neg_hi;
  bool clamp = false;
};

const SwmmacCase kSwmmacCases[] = {
    {"v_swmmac_f32_16x16x32_f16", Wmma::f16, Wmma::f16, WmmaResult::f32, 32, 0, 0, 0},
    {"v_swmmac_f32_16x16x32_bf16 index_key:1", Wmma::bf16, Wmma::bf16, WmmaResult::f32, 32, 1, 0, 0},
    {"v_swmmac_f16_16x16x32_f16 index_key:1", Wmma::f16, Wmma::f16, WmmaResult::f16, 32, 1, 0, 0},
    {"v_swmmac_bf16_16x16x32_bf16", Wmma::bf16, Wmma::bf16, WmmaResult::bf16, 32, 0, 0, 0},
    {"v_swmmac_i32_16x16x32_iu8 index_key:1, A signed", Wmma::iu8, Wmma::iu8, WmmaResult::i32, 32, 1, 1, 0},
    {"v_swmmac_i32_16x16x32_iu4, both signed", Wmma::iu4, Wmma::iu4, WmmaResult::i32, 32, 0, 3, 0},
    {"v_swmmac_i32_16x16x64_iu4, B signed", Wmma::iu4, Wmma::iu4, WmmaResult::i32, 64, 0, 2, 0},
    {"v_swmmac_f32_16x16x32_fp8_fp8", Wmma::fp8, Wmma::fp8, WmmaResult::f32, 32, 0, 0, 0},
    {"v_swmmac_f32_16x16x32_fp8_bf8 index_key:1", Wmma::fp8, Wmma::bf8, WmmaResult::f32, 32, 1, 0, 0},
    {"v_swmmac_f32_16x16x32_bf8_fp8", Wmma::bf8, Wmma::fp8, WmmaResult::f32, 32, 0, 0, 0},
    {"v_swmmac_f32_16x16x32_bf8_bf8", Wmma::bf8, Wmma::bf8, WmmaResult::f32, 32, 0, 0, 0},
    {"v_swmmac_f32_16x16x32_f16 neg_lo:[1,0,0] neg_hi:[0,1,0]", Wmma::f16, Wmma::f16, WmmaResult::f32, 32, 0, 1, 2},
    {"v_swmmac_i32_16x16x32_iu8 clamp, both signed, C near both limits", Wmma::iu8, Wmma::iu8, WmmaResult::i32, 32, 0, 3, 0, true},
};
constexpr unsigned kWaveB = 256, kWaveC = 512, kWaveIndex = 768;

unsigned wmma_bits(Wmma t) { return t == Wmma::iu4 ? 4 : t == Wmma::f16 || t == Wmma::bf16 ? 16 : 8; }

// An input element's value: halves and bf16 as they are (WMMA flushes nothing), iu8 and iu4 signed
// or not, fp8 and bf8 OCP's.
double wmma_element(Wmma t, std::uint32_t x, bool is_signed) {
  switch (t) {
    case Wmma::f16: {
      const auto bits = std::uint16_t(x);
      _Float16 h;
      std::memcpy(&h, &bits, 2);
      return double(h);
    }
    case Wmma::bf16: return as_float(x << 16);
    case Wmma::iu8: return is_signed ? double(std::int8_t(x)) : double(x & 0xff);
    case Wmma::iu4: return is_signed && (x & 8) ? double(int(x & 15) - 16) : double(x & 15);
    case Wmma::fp8: return f8_value(x, false, true);
    case Wmma::bf8: return f8_value(x, true, true);
  }
  return 0;
}

// A random element's bits: floats of a few integers' worth, any integer.
std::uint32_t wmma_random(Wmma t, std::mt19937& random) {
  switch (t) {
    case Wmma::f16: {
      const std::uint32_t r = random();
      return ((r >> 8) & 0x8000) | ((8 + r % 14) << 10) | ((r >> 12) & 0x3ff);
    }
    case Wmma::bf16: {
      const std::uint32_t r = random();
      return ((r >> 8) & 0x8000) | ((120 + r % 14) << 7) | ((r >> 12) & 0x7f);
    }
    case Wmma::fp8: return finite_f8(random, false);
    case Wmma::bf8: return finite_f8(random, true);
    default: return random();
  }
}

std::vector<std::uint32_t> swmmac_inputs(const SwmmacCase& c, unsigned seed) {
  std::mt19937 random(seed);
  std::vector<std::uint32_t> words(kWaveIndex + 32, 0);
  const unsigned kl = c.k / 2;
  auto fill = [&](unsigned base, Wmma t, unsigned count) {  // `count` elements a lane, packed low bits first
    const unsigned bits = wmma_bits(t);
    for (unsigned lane = 0; lane < 32; ++lane) {
      for (unsigned e = 0; e < count; ++e) {
        const std::uint32_t x = wmma_random(t, random) & ((1ull << bits) - 1);
        words[base + 8 * lane + e * bits / 32] |= x << (e * bits % 32);
      }
    }
  };
  fill(0, c.a, kl / 2);
  fill(kWaveB, c.b, kl);
  for (unsigned lane = 0; lane < 32; ++lane) {
    for (unsigned r = 0; r < 8; ++r) {
      std::uint32_t& w = words[kWaveC + 8 * lane + r];
      if (c.out == WmmaResult::i32) w = c.clamp ? (lane % 2 ? 0x7fffffffu - random() % 100000 : 0x80000000u + random() % 100000) : random();
      else if (c.out == WmmaResult::f32) w = float_bits(float(int(random() % 2001) - 1000) / 16.0f);
      else w = wmma_random(c.out == WmmaResult::f16 ? Wmma::f16 : Wmma::bf16, random) |
               wmma_random(c.out == WmmaResult::f16 ? Wmma::f16 : Wmma::bf16, random) << 16;
    }
    words[kWaveIndex + lane] = valid_index_word(random);
  }
  return words;
}

std::vector<std::uint32_t> swmmac_reference(const SwmmacCase& c, const std::vector<std::uint32_t>& in) {
  const unsigned K = c.k, KL = K / 2, set = K == 64 ? 0 : 16 * c.index_key;
  const bool sixteen = c.a == Wmma::f16 || c.a == Wmma::bf16, integer = c.a == Wmma::iu8 || c.a == Wmma::iu4;
  auto bits_at = [&](unsigned base, unsigned lane, unsigned e, unsigned bits) {
    return std::uint32_t((in[base + 8 * lane + e * bits / 32] >> (e * bits % 32)) & ((1ull << bits) - 1));
  };
  std::vector<std::uint32_t> out(8 * 32, 0);
  for (unsigned i = 0; i < 16; ++i) {
    for (unsigned j = 0; j < 16; ++j) {
      double sum = 0;
      std::int64_t isum = 0;
      for (unsigned h = 0; h < 2; ++h) {
        const unsigned a_lane = 16 * h + i;
        for (unsigned slot = 0; slot < KL / 2; ++slot) {
          const unsigned q = slot / 2, position = (in[kWaveIndex + a_lane] >> (set + 2 * slot)) & 3;
          const unsigned k = (sixteen ? 16 * (q / 2) + 8 * h + 4 * (q % 2) : KL * h + 4 * q) + position;
          double x = wmma_element(c.a, bits_at(0, a_lane, slot, wmma_bits(c.a)), c.neg_lo & 1);
          if (sixteen && (((slot % 2 ? c.neg_hi : c.neg_lo) & 1))) x = -x;
          const unsigned b_lane = (sixteen ? 16 * ((k / 8) % 2) : 16 * (k / KL)) + j;
          const unsigned e = sixteen ? 8 * (k / 16) + k % 8 : k % KL;
          double y = wmma_element(c.b, bits_at(kWaveB, b_lane, e, wmma_bits(c.b)), (c.neg_lo >> 1) & 1);
          if (sixteen && ((((e % 2 ? c.neg_hi : c.neg_lo) >> 1) & 1))) y = -y;
          if (integer) isum += std::int64_t(x) * std::int64_t(y);
          else sum += x * y;
        }
      }
      const unsigned lane = j + 16 * (i / 8);
      if (c.out == WmmaResult::f32 || c.out == WmmaResult::i32) {
        const std::uint32_t cv = in[kWaveC + 8 * lane + i % 8];
        std::int64_t total = isum + std::int32_t(cv);
        if (c.clamp) total = std::min<std::int64_t>(std::max<std::int64_t>(total, INT32_MIN), INT32_MAX);
        out[8 * lane + i % 8] = c.out == WmmaResult::i32 ? std::uint32_t(total) : float_bits(float(sum + double(as_float(cv))));
        continue;
      }
      const unsigned reg = (i % 8) / 2, shift = 16 * (i % 2);
      const std::uint32_t cv = (in[kWaveC + 8 * lane + reg] >> shift) & 0xffff;
      std::uint32_t r;
      if (c.out == WmmaResult::f16) {
        _Float16 h;
        const auto bits = std::uint16_t(cv);
        std::memcpy(&h, &bits, 2);
        const _Float16 result = static_cast<_Float16>(sum + double(h));
        std::uint16_t rb;
        std::memcpy(&rb, &result, 2);
        r = rb;
      } else {  // through f32, to nearest even
        const std::uint32_t f = float_bits(float(sum + double(as_float(cv << 16))));
        r = (f + 0x7fff + ((f >> 16) & 1)) >> 16;
      }
      std::uint32_t& word = out[8 * lane + reg];
      word = (word & ~(0xffffu << shift)) | (r << shift);
    }
  }
  return out;
}

}  // namespace

void check_swmmac(Runner& r) {
  const std::string p = r.processor();
  if (p != "gfx1200" && p != "gfx1201") return;
  for (unsigned form = 0; form < sizeof kSwmmacCases / sizeof kSwmmacCases[0]; ++form) {
    const SwmmacCase& c = kSwmmacCases[form];
    SCOPED_TRACE(c.name);
    const std::vector<std::uint32_t> in = swmmac_inputs(c, 500 + form);
    auto* out = static_cast<std::uint32_t*>(r.alloc(8 * 32 * 4));
    r.run("isa_swmmac", {32}, {32}, {r.upload(in), out, form});
    const auto got = r.download(out, 8 * 32);
    const auto want = swmmac_reference(c, in);
    const unsigned words = c.out == WmmaResult::f16 || c.out == WmmaResult::bf16 ? 4 : 8;
    expect_same_registers(got, want, 32, 8, words);
  }
}

// A sparse form where only lanes below `active` run it: every lane's A, B and index take part; the
// lanes EXEC leaves out keep C.
void check_sparse_partial_exec(Runner& r) {
  const std::string p = r.processor();
  const bool cdna3 = matrix_family(p) & kOnCdna3, rdna4 = p == "gfx1200" || p == "gfx1201";
  if (!cdna3 && !rdna4) return;
  const unsigned lanes = cdna3 ? 64 : 32, stride = cdna3 ? 32 : 8, words = cdna3 ? 4 : 8, c_at = cdna3 ? kC : kWaveC;
  const std::vector<std::uint32_t> in = cdna3 ? sparse_inputs(kSparse[0], 77).words : swmmac_inputs(kSwmmacCases[0], 77);
  const std::vector<std::uint32_t> want = cdna3 ? sparse_reference(kSparse[0], Inputs{in}, false) : swmmac_reference(kSwmmacCases[0], in);
  for (unsigned active : {lanes - 24, 1u, lanes - 1}) {
    SCOPED_TRACE("lanes below " + std::to_string(active));
    auto* out = static_cast<std::uint32_t*>(r.alloc(stride * lanes * 4));
    r.run(cdna3 ? "isa_smfmac_partial" : "isa_swmmac_partial", {lanes}, {lanes}, {r.upload(in), out, active});
    const auto got = r.download(out, stride * lanes);
    std::vector<std::uint32_t> expect(stride * lanes, 0);
    for (unsigned lane = 0; lane < lanes; ++lane) {
      for (unsigned w = 0; w < words; ++w) {
        expect[stride * lane + w] = lane < active ? want[stride * lane + w] : in[c_at + stride * lane + w];
      }
    }
    expect_same_registers(got, expect, lanes, stride, words);
  }
}

void check_mfma_partial_exec(Runner& r) {
  const std::string p = r.processor();
  if (p != "gfx908" && p != "gfx90a") return;
  const Form& f = kForms[9];  // v_mfma_f32_16x16x16f16
  const Inputs in = random_inputs(f, 7);
  const auto want = reference(f, in, false);
  for (unsigned active : {40u, 1u, 63u}) {
    SCOPED_TRACE("lanes below " + std::to_string(active));
    auto* out = static_cast<std::uint32_t*>(r.alloc(32 * 64 * 4));
    r.run("isa_mfma_partial", {64}, {64}, {r.upload(in.words), out, active});
    const auto got = r.download(out, 32 * 64);
    for (unsigned lane = 0; lane < 64; ++lane) {
      for (unsigned w = 0; w < 4; ++w) {
        const std::uint32_t expect = lane < active ? want[32 * lane + w] : in.words[kC + 32 * lane + w];
        ASSERT_EQ(got[32 * lane + w], expect) << "lane " << lane << ", register " << w;
      }
    }
  }
}

}  // namespace hsad::isa::testing
