// The matrix instructions of gfx908 and gfx90a (isa_mfma, isa_mfma_partial) against a reference
// written from AMD's matrix instruction tables in their general form (the Matrix Instruction
// Calculator's: an input element's lane and register from its block, row and k; an output's from
// the block, the row's band of H rows and the blocks per row of lanes), not from the interpreter's
// per-shape table. The arithmetic is the interpreter's documented model (sim/README.md, "Matrix
// instructions"): exact products summed in k order in double precision, C added, one rounding;
// f16 and bf16 inputs and results flushed when subnormal; f64 by fused multiply-adds in k order;
// i32 sums wrap. Every element compares bit for bit.
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

enum class Elem { f32, f16, bf16, i8, f64 };

struct Form {
  const char* name;
  unsigned m, k, blocks;
  Elem type;
  unsigned a_dwords;  // A's (and B's) registers per lane
  unsigned cbsz, abid, blgp;
  unsigned on;  // where the form exists: kOnGfx908 | kOnGfx90a | kOnCdna3 (gfx94x, gfx950)
};

constexpr unsigned kOnGfx908 = 1, kOnGfx90a = 2, kOnCdna3 = 4;
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
};

unsigned element_bits(Elem t) { return t == Elem::f16 || t == Elem::bf16 ? 16 : t == Elem::i8 ? 8 : t == Elem::f64 ? 64 : 32; }

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

// The inputs: per lane, A at in[2 * lane], B at in[128 + 2 * lane], C at in[256 + 32 * lane].
struct Inputs {
  std::vector<std::uint32_t> words = std::vector<std::uint32_t>(256 + 32 * 64);
  std::uint64_t input_bits(unsigned base, unsigned lane, unsigned e, unsigned bits) const {
    const unsigned first = e * bits;
    const std::uint64_t lo = words[base + 2 * lane + first / 32];
    if (bits == 64) return lo | (std::uint64_t(words[base + 2 * lane + first / 32 + 1]) << 32);
    if (bits == 32) return lo;
    return (lo >> (first % 32)) & ((1u << bits) - 1);
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
      case Elem::f64: return 0;  // filled below as doubles
    }
    return 0;
  };
  for (unsigned lane = 0; lane < 64; ++lane) {
    for (unsigned base : {0u, 128u}) {
      if (f.type == Elem::f64) {
        const double d = double(int(random() % 20001) - 10000) / 1024.0 + std::ldexp(double(random() % 1024), -40);
        std::memcpy(&in.words[base + 2 * lane], &d, 8);
      } else {
        for (unsigned r = 0; r < f.a_dwords; ++r) in.words[base + 2 * lane + r] = word_of(f.type);
      }
    }
    for (unsigned r = 0; r < 32; r += f.type == Elem::f64 ? 2 : 1) {
      if (f.type == Elem::f64) {
        const double d = double(int(random() % 2001) - 1000) / 8.0;
        std::memcpy(&in.words[256 + 32 * lane + r], &d, 8);
      } else if (f.type == Elem::i8) {
        in.words[256 + 32 * lane + r] = random();  // wraps with the sums
      } else {
        in.words[256 + 32 * lane + r] = float_bits(float(int(random() % 2001) - 1000) / 16.0f);
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

// The reference: D's words as isa_mfma writes them (out[32 * lane + register]).
std::vector<std::uint32_t> reference(const Form& f, const Inputs& in) {
  std::vector<std::uint32_t> out(32 * 64, 0);
  const unsigned M = f.m, K = f.k, B = f.blocks, kpl = K * M * B / 64, bits = element_bits(f.type);
  auto value = [&](unsigned base, unsigned lane, unsigned e) -> double {
    const std::uint64_t x = in.input_bits(base, lane, e, bits);
    switch (f.type) {
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
  };
  for (unsigned b = 0; b < B; ++b) {
    const unsigned ab = (f.cbsz || f.abid) ? b / (1u << f.cbsz) * (1u << f.cbsz) + f.abid : b;
    for (unsigned i = 0; i < M; ++i) {
      for (unsigned j = 0; j < M; ++j) {
        const auto [reg, lane] = result_at(f, b, i, j);
        const unsigned c_word = 256 + 32 * lane + (f.type == Elem::f64 ? 2 * reg : reg);
        double acc = 0;
        std::uint32_t isum = in.words[c_word];
        if (f.type == Elem::f64) std::memcpy(&acc, &in.words[c_word], 8);
        for (unsigned k = 0; k < K; ++k) {
          const unsigned a_lane = i + M * ab + M * B * (k / kpl);
          const unsigned b_lane = blgp_lane(f.blgp, j + M * b + M * B * (k / kpl));
          const double x = value(0, a_lane, k % kpl), y = value(128, b_lane, k % kpl);
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

// Which of kOnGfx908, kOnGfx90a, kOnCdna3 the processor is, or 0 (no matrix cores).
unsigned matrix_family(const std::string& p) {
  if (p == "gfx908") return kOnGfx908;
  if (p == "gfx90a") return kOnGfx90a;
  if (p == "gfx940" || p == "gfx941" || p == "gfx942" || p == "gfx950") return kOnCdna3;
  return 0;
}

}  // namespace

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
    const auto want = reference(f, in);
    unsigned wrong = 0;
    for (unsigned lane = 0; lane < 64; ++lane) {
      for (unsigned w = 0; w < result_words(f); ++w) {
        if (got[32 * lane + w] != want[32 * lane + w] && wrong++ < 4) {
          ADD_FAILURE() << "lane " << lane << ", register " << w << ": 0x" << std::hex << got[32 * lane + w] << ", want 0x"
                        << want[32 * lane + w];
        }
      }
    }
    EXPECT_EQ(wrong, 0u);
  }
}

void check_mfma_partial_exec(Runner& r) {
  const std::string p = r.processor();
  if (p != "gfx908" && p != "gfx90a") return;
  const Form& f = kForms[9];  // v_mfma_f32_16x16x16f16
  const Inputs in = random_inputs(f, 7);
  const auto want = reference(f, in);
  for (unsigned active : {40u, 1u, 63u}) {
    SCOPED_TRACE("lanes below " + std::to_string(active));
    auto* out = static_cast<std::uint32_t*>(r.alloc(32 * 64 * 4));
    r.run("isa_mfma_partial", {64}, {64}, {r.upload(in.words), out, active});
    const auto got = r.download(out, 32 * 64);
    for (unsigned lane = 0; lane < 64; ++lane) {
      for (unsigned w = 0; w < 4; ++w) {
        const std::uint32_t expect = lane < active ? want[32 * lane + w] : in.words[256 + 32 * lane + w];
        ASSERT_EQ(got[32 * lane + w], expect) << "lane " << lane << ", register " << w;
      }
    }
  }
}

}  // namespace hsad::isa::testing
