#include "kernel_checks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>

#include "bitonic.hpp"
#include "laplacian.hpp"
#include "laplacian_reference.hpp"

namespace hsad::isa::testing {
namespace {

std::vector<std::uint32_t> random_u32(std::size_t n, std::uint32_t lo, std::uint32_t hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<std::uint32_t> d(lo, hi);
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) x = d(gen);
  return v;
}

// A grid of whole work-groups of 256 covering n items: the kernels that index with
// blockIdx * blockDim need one (in a partial group blockDim is the partial size).
std::uint32_t whole_groups(std::uint32_t n) { return (n + 255) / 256 * 256; }

std::uint32_t indexed_reference(std::uint32_t i, std::uint32_t idx, unsigned size, bool scratch) {
  std::vector<std::uint32_t> a(size);
  for (unsigned k = 0; k < size; ++k) a[k] = k * 7u + i;
  const unsigned j = idx % size;
  a[j] += 1000u;
  return scratch ? a[j] + a[(j + 5) % size] + a[(j * 13) % size] : a[j] + a[(j + 5) % size];
}

}  // namespace

void check_reduce(Runner& r, const char* kernel) {
  const unsigned n = 256 * 9 + 100, groups = 10;
  const auto in = random_u32(n, 0, 1000, 1);
  auto* sums = static_cast<std::uint32_t*>(r.alloc(groups * 4));
  r.run(kernel, {groups * 256}, {256}, {r.upload(in), sums, n});
  const auto got = r.download(sums, groups);
  for (unsigned g = 0; g < groups; ++g) {
    std::uint32_t expect = 0;
    for (unsigned i = g * 256; i < std::min(n, (g + 1) * 256); ++i) expect += in[i];
    EXPECT_EQ(got[g], expect) << kernel << ", group " << g;
  }
}

// Every item of every work-group read the word its group's first item wrote before the barrier, none
// the value that item wrote after its own read.
void check_waves_side_by_side(Runner& r) {
  const unsigned groups = 3, n = groups * 256;
  auto* out = static_cast<std::uint32_t*>(r.alloc(n * 4));
  r.run("isa_waves_side_by_side", {n}, {256}, {out});
  const auto got = r.download(out, n);
  unsigned late = 0;
  for (unsigned i = 0; i < n; ++i) late += got[i] != i / 256 + 1;
  EXPECT_EQ(late, 0u) << "items that read the word after the first item overwrote it (item 255 read " << got[255] << ")";
}

void check_histogram(Runner& r) {
  const unsigned n = 100000;
  const auto in = random_u32(n, 0, 1u << 30, 2);
  auto* bins = static_cast<std::uint32_t*>(r.alloc(64 * 4));
  r.run("isa_histogram", {16 * 256}, {256}, {r.upload(in), bins, n});
  const auto got = r.download(bins, 64);
  std::vector<std::uint32_t> expect(64, 0);
  for (auto x : in) ++expect[x % 64];
  for (int b = 0; b < 64; ++b) EXPECT_EQ(got[b], expect[b]) << "bin " << b;
}

// Every work-group's 16 sums exact; each returned old value is a partial sum of its bin: at least
// 0, below the bin's total, and a multiple of 1/4 (a torn or lost update would break one of them).
void check_lds_double_sums(Runner& r) {
  const unsigned n = 3000, groups = (n + 255) / 256;
  const auto in = random_u32(n, 0, 1u << 30, 5);
  auto* sums = static_cast<double*>(r.alloc(groups * 16 * 8));
  auto* olds = static_cast<double*>(r.alloc(n * 8));
  r.run("isa_lds_double_sums", {groups * 256}, {256}, {r.upload(in), sums, olds, n});
  const auto got = r.download(sums, groups * 16);
  const auto old = r.download(olds, n);
  std::vector<double> expect(groups * 16, 0.0);
  for (unsigned i = 0; i < n; ++i) {
    expect[i / 256 * 16 + in[i] % 16] += double(in[i] % 4096) * 0.25;
    expect[i / 256 * 16 + (in[i] >> 4) % 16] += 1.0;
  }
  for (unsigned b = 0; b < groups * 16; ++b) EXPECT_EQ(got[b], expect[b]) << "group " << b / 16 << " bin " << b % 16;
  for (unsigned i = 0; i < n; ++i) {
    const double total = expect[i / 256 * 16 + in[i] % 16];
    EXPECT_GE(old[i], 0.0) << i;
    EXPECT_LT(old[i], total) << i;
    EXPECT_EQ(old[i] * 4, std::floor(old[i] * 4)) << i;
  }
}

// Saturating adds and subtracts (VOP3 with clamp): edge values and random ones, exactly.
void check_saturating(Runner& r) {
  std::vector<std::uint32_t> a = {0, 1, 5, 0xffffffffu, 0x80000000u, 0xfffeu, 70000};
  std::vector<std::uint32_t> b = {0, 2, 5, 1, 0x80000000u, 3, 65535};
  const auto ra = random_u32(500, 0, 0xffffffffu, 6), rb = random_u32(500, 0, 0xffffffffu, 7);
  a.insert(a.end(), ra.begin(), ra.end());
  b.insert(b.end(), rb.begin(), rb.end());
  const unsigned n = unsigned(a.size());
  auto* out = static_cast<std::uint32_t*>(r.alloc(n * 16));
  r.run("isa_saturating", {(n + 255) / 256 * 256}, {256}, {r.upload(a), r.upload(b), out, n});  // whole groups
  const auto got = r.download(out, 4 * n);
  for (unsigned i = 0; i < n; ++i) {
    const std::uint64_t x = a[i], y = b[i], hx = x & 0xffff, hy = y & 0xffff;
    EXPECT_EQ(got[4 * i], x > y ? x - y : 0) << a[i] << " - " << b[i];
    EXPECT_EQ(got[4 * i + 1], std::min<std::uint64_t>(x + y, 0xffffffffu)) << a[i] << " + " << b[i];
    EXPECT_EQ(got[4 * i + 2], hx > hy ? hx - hy : 0) << a[i] << " - " << b[i] << " (16 bits)";
    EXPECT_EQ(got[4 * i + 3], std::min<std::uint64_t>(hx + hy, 0xffff)) << a[i] << " + " << b[i] << " (16 bits)";
  }
}

// The byte dot product (signed, wrapping at 32 bits, added to x ^ y) and the packed 16-bit
// multiply, for the extremes of each byte and half, then random values.
void check_packed_int(Runner& r) {
  std::vector<std::uint32_t> a = {0, 0x7f7f7f7fu, 0x80808080u, 0xffffffffu, 0x01020304u, 0xffff0001u};
  std::vector<std::uint32_t> b = {0, 0x7f7f7f7fu, 0x80808080u, 0x7f80ff01u, 0xfffefdfcu, 0xffff0003u};
  const auto ra = random_u32(300, 0, 0xffffffffu, 8), rb = random_u32(300, 0, 0xffffffffu, 9);
  a.insert(a.end(), ra.begin(), ra.end());
  b.insert(b.end(), rb.begin(), rb.end());
  const unsigned n = unsigned(a.size());
  auto* out = static_cast<std::uint32_t*>(r.alloc(n * 8));
  r.run("isa_packed_int", {(n + 255) / 256 * 256}, {256}, {r.upload(a), r.upload(b), out, n});
  const auto got = r.download(out, 2 * n);
  for (unsigned i = 0; i < n; ++i) {
    std::uint32_t dot = a[i] ^ b[i];
    for (int k = 0; k < 4; ++k) {
      dot += std::uint32_t(std::int32_t(std::int8_t(a[i] >> (8 * k))) * std::int8_t(b[i] >> (8 * k)));
    }
    const std::uint32_t lo = std::uint16_t((a[i] & 0xffff) * (b[i] & 0xffff));
    const std::uint32_t hi = std::uint16_t((a[i] >> 16) * (b[i] >> 16));
    EXPECT_EQ(got[2 * i], dot) << std::hex << a[i] << " . " << b[i];
    EXPECT_EQ(got[2 * i + 1], lo | (hi << 16)) << std::hex << a[i] << " * " << b[i] << " (packed)";
  }
}

// The extremes of every carry and borrow, then random values. Whole work-groups (a partial one's
// blockDim.x is its own size in HIP's index arithmetic), with n not a whole number of waves.
void check_wide_arith(Runner& r) {
  std::vector<std::uint64_t> a = {0, 1, ~0ull, 0xffffffffull, 0x100000000ull, 0x8000000000000000ull, 0x7fffffffffffffffull};
  std::vector<std::uint64_t> b = {0, ~0ull, 1, 1, 1, 0x8000000000000000ull, 0xffffffff00000000ull};
  std::mt19937_64 random(11);
  for (int k = 0; k < 993; ++k) a.push_back(random()), b.push_back(random());
  const unsigned n = unsigned(a.size());
  auto* out = static_cast<std::uint64_t*>(r.alloc(n * 40));
  r.run("isa_wide_arith", {(n + 255) / 256 * 256}, {256}, {r.upload(a), r.upload(b), out, n});
  const auto got = r.download(out, 5 * n);
  for (unsigned i = 0; i < n; ++i) {
    const std::uint64_t x = a[i], y = b[i];
    const auto p = std::uint32_t(x >> 17), q = std::uint32_t(y >> 9);
    const std::uint64_t carry = x + y < x;
    const std::uint64_t want[5] = {x + y, x - y, std::uint64_t(p) * q + y,
                                   std::uint64_t(std::int64_t(std::int32_t(p)) * std::int32_t(q)) + x,  // wraps, as the GPU
                                   (i & 1) ? carry + (y - x) : carry};
    for (int k = 0; k < 5; ++k) ASSERT_EQ(got[5 * i + k], want[k]) << "item " << i << ", result " << k << ": " << x << ", " << y;
  }
}

// __shfl_xor, __shfl and __ballot: what they give depends on the wavefront's size. Every lane
// of every wave runs (the grid is whole waves); items >= n hold 0.
void check_wave_ops(Runner& r, const char* kernel) {
  const unsigned n = 1000, grid = 1024, wave = r.wave_size();
  const auto in = random_u32(n, 0, 1u << 20, 3);
  auto* sums = static_cast<int*>(r.alloc(n * 4));
  auto* rotated = static_cast<int*>(r.alloc(n * 4));
  auto* ballots = static_cast<unsigned long long*>(r.alloc(n * 8));
  r.run(kernel, {grid}, {256}, {r.upload(in), sums, rotated, ballots, n});
  const auto s = r.download(sums, n), rot = r.download(rotated, n);
  const auto b = r.download(ballots, n);
  auto x = [&](unsigned i) { return i < n ? int(in[i]) : 0; };
  for (unsigned i = 0; i < n; ++i) {
    const unsigned base = i / wave * wave, lane = i % wave;
    int sum = 0;
    unsigned long long ballot = 0;
    for (unsigned l = 0; l < wave; ++l) {
      sum += x(base + l);
      if (x(base + l) & 1) ballot |= 1ull << l;
    }
    ASSERT_EQ(s[i], sum) << kernel << ", item " << i << " (wave" << wave << ")";
    ASSERT_EQ(rot[i], x(base + (lane + 3) % wave)) << kernel << ", item " << i;
    ASSERT_EQ(b[i], ballot) << kernel << ", item " << i;
  }
}

// Divergent loops: each item counts its own Collatz steps, so lanes leave at different iterations.
void check_collatz(Runner& r) {
  const unsigned n = 5000;
  const auto start = random_u32(n, 1, 1000000, 4);
  auto* steps = static_cast<std::uint32_t*>(r.alloc(n * 4));
  r.run("isa_collatz", {whole_groups(n)}, {256}, {r.upload(start), steps, n});
  const auto got = r.download(steps, n);
  for (unsigned i = 0; i < n; ++i) {
    unsigned long long x = start[i];
    unsigned s = 0;
    while (x != 1 && s < 1000) x = (x & 1) ? 3 * x + 1 : x / 2, ++s;
    ASSERT_EQ(got[i], s) << "item " << i << " from " << start[i];
  }
}

namespace {
void check_grid(Runner& r, unsigned nx, unsigned ny, unsigned nz, Dim3 group) {
  const std::size_t items = std::size_t(nx) * ny * nz;
  auto* out = r.upload(std::vector<std::uint32_t>(items, 0xdeadbeef));
  r.run("isa_grid3d", {nx, ny, nz}, group, {out, nx, ny, nz});
  const auto got = r.download(out, items);
  for (unsigned z = 0; z < nz; ++z) {
    for (unsigned y = 0; y < ny; ++y) {
      for (unsigned x = 0; x < nx; ++x) {
        ASSERT_EQ(got[(std::size_t(z) * ny + y) * nx + x], x + 1000u * y + 1000000u * z) << x << "," << y << "," << z;
      }
    }
  }
}
}  // namespace

// 2-D and 3-D grids whose sizes are no multiple of the work-group's: partial groups at the edges.
void check_grids(Runner& r) {
  check_grid(r, 100, 37, 1, {16, 16, 1});
  check_grid(r, 19, 11, 7, {8, 4, 2});
}

// HIP's gridDim and blockDim with partial groups in x and y: blockDim is the size of the item's
// own group. Code object v5 reads them from the hidden arguments, v4 from the dispatch packet.
void check_dims(Runner& r) {
  const Dim3 grid{100, 3, 2}, group{32, 2, 1};
  auto* out = static_cast<std::uint32_t*>(r.alloc(6 * grid.volume() * 4));
  r.run_partial_groups("isa_dims", grid, group, {out});
  const auto got = r.download(out, 6 * grid.volume());
  for (std::uint32_t z = 0; z < grid.z; ++z) {
    for (std::uint32_t y = 0; y < grid.y; ++y) {
      for (std::uint32_t x = 0; x < grid.x; ++x) {
        const std::uint32_t* o = got.data() + 6 * (x + grid.x * (y + grid.y * z));
        ASSERT_EQ(o[0], 4u);
        ASSERT_EQ(o[1], 2u);
        ASSERT_EQ(o[2], 2u);
        ASSERT_EQ(o[3], x >= 96 ? 4u : 32u) << x;
        ASSERT_EQ(o[4], y >= 2 ? 1u : 2u) << y;
        ASSERT_EQ(o[5], 1u);
      }
    }
  }
}

// A private array of `size` words indexed at run time: 48 stay in registers (s_set_gpr_idx on gfx9,
// v_movrels on gfx10), 300 are too many and live in scratch (the private segment).
static void check_indexed(Runner& r, const char* kernel, unsigned size, bool scratch, unsigned seed) {
  const unsigned n = 777;
  const auto idx = random_u32(n, 0, 1u << 30, seed);
  auto* out = static_cast<std::uint32_t*>(r.alloc(n * 4));
  r.run(kernel, {whole_groups(n)}, {256}, {r.upload(idx), out, n});
  const auto got = r.download(out, n);
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(got[i], indexed_reference(i, idx[i], size, scratch)) << i;
}

void check_gpr_index(Runner& r) { check_indexed(r, "isa_gpr_index", 48, false, 5); }
void check_scratch(Runner& r) { check_indexed(r, "isa_scratch", 300, true, 6); }

// Division and square root are the compiler's correctly rounded sequences: the results equal
// IEEE division and sqrt, bit for bit; fma is fused.
void check_math(Runner& r) {
  const unsigned n = 1000;
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> d(-1000.0, 1000.0);
  std::vector<float> a(n), b(n);
  std::vector<double> c(n), e(n);
  for (unsigned i = 0; i < n; ++i) a[i] = float(d(gen)), b[i] = float(d(gen)), c[i] = d(gen), e[i] = d(gen);
  auto* fo = static_cast<float*>(r.alloc(3 * n * 4));
  auto* dout = static_cast<double*>(r.alloc(3 * n * 8));
  r.run("isa_math", {whole_groups(n)}, {256}, {r.upload(a), r.upload(b), r.upload(c), r.upload(e), fo, dout, n});
  const auto f = r.download(fo, 3 * n);
  const auto g = r.download(dout, 3 * n);
  for (unsigned i = 0; i < n; ++i) {
    ASSERT_EQ(f[3 * i + 0], a[i] / b[i]) << i;
    ASSERT_EQ(f[3 * i + 1], std::sqrt(std::fabs(a[i]))) << i;
    ASSERT_EQ(f[3 * i + 2], std::fma(a[i], b[i], 1.0f)) << i;
    ASSERT_EQ(g[3 * i + 0], c[i] / e[i]) << i;
    ASSERT_EQ(g[3 * i + 1], std::sqrt(std::fabs(c[i]))) << i;
    ASSERT_EQ(g[3 * i + 2], std::fma(c[i], e[i], -1.0)) << i;
  }
}

// Within 2 units in the last place of the host's (glibc's, correctly rounded in practice): OCML's
// double sin and cos promise 1 ulp or so. A wrong bit of 2/pi in the reduction is far off.
void check_trig(Runner& r) {
  std::vector<double> x = {0.5, -3.0, 1e5, 12345678.9, -1e15, 1e22, 0x1.0p+200, 1e100, -1e300, 1.7976931348623157e308};
  std::mt19937 gen(13);
  std::uniform_real_distribution<double> exponent(0.0, 300.0);
  for (int i = 0; i < 246; ++i) x.push_back((i % 2 ? -1.0 : 1.0) * std::pow(10.0, exponent(gen)));
  const unsigned n = unsigned(x.size());
  auto* out = static_cast<double*>(r.alloc(2 * n * 8));
  r.run("isa_trig", {whole_groups(n)}, {256}, {r.upload(x), out, n});
  const auto got = r.download(out, 2 * n);
  auto ulps = [](double a, double b) { return std::fabs(a - b) / std::fabs(std::nextafter(b, 2 * b) - b); };
  for (unsigned i = 0; i < n; ++i) {
    EXPECT_LE(ulps(got[2 * i], std::sin(x[i])), 2.0) << "sin(" << x[i] << ") = " << got[2 * i] << ", want " << std::sin(x[i]);
    EXPECT_LE(ulps(got[2 * i + 1], std::cos(x[i])), 2.0) << "cos(" << x[i] << ") = " << got[2 * i + 1] << ", want " << std::cos(x[i]);
  }
}

void check_pk_f32_constants(Runner& r) {
  const std::string p = r.processor();
  if (p != "gfx90a" && p != "gfx940" && p != "gfx942" && p != "gfx950") return;
  std::mt19937 gen(17);
  std::uniform_real_distribution<float> d(-100.0f, 100.0f);
  std::vector<float> pairs(128);
  for (auto& f : pairs) f = d(gen);
  auto* out = static_cast<float*>(r.alloc(3 * 128 * 4));
  r.run("isa_pk_f32_constants", {64}, {64}, {r.upload(pairs), out});
  const auto got = r.download(out, 3 * 128);
  for (unsigned lane = 0; lane < 64; ++lane) {
    for (unsigned half = 0; half < 2; ++half) {
      const float x = pairs[2 * lane + half];
      SCOPED_TRACE("lane " + std::to_string(lane) + (half ? ", high half" : ", low half"));
      EXPECT_EQ(got[6 * lane + half], std::fma(x, 2.0f, x));
      EXPECT_EQ(got[6 * lane + 2 + half], x * 0.5f);
      EXPECT_EQ(got[6 * lane + 4 + half], std::fma(x, 0.5f, -x));
    }
  }
}

void check_salu_float(Runner& r) {
  const std::string p = r.processor();
  if (p != "gfx1150" && p != "gfx1151") return;
  const float a = 1.75f, b = -2.3f, c = -2.5f;
  auto* out = static_cast<float*>(r.alloc(20 * 4));
  r.run("isa_salu_float", {64}, {64}, {a, b, c, out});
  const auto got = r.download(out, 20);
  const float want[14] = {a + b, a - b, a * b, std::fma(a, b, c), std::fma(a, b, 3.0f), std::fma(a, 3.0f, c),
                          std::fmin(a, b), std::fmax(a, b), std::trunc(c), std::floor(c), std::ceil(c),
                          std::nearbyint(c), float(0xfffffff0u), -7.0f};
  for (int i = 0; i < 14; ++i) EXPECT_EQ(got[i], want[i]) << "result " << i;
  std::uint32_t u[6];
  std::memcpy(u, got.data() + 14, sizeof u);
  EXPECT_EQ(u[0], 0u);            // -2.5 to unsigned: 0
  EXPECT_EQ(u[1], 0xfffffffeu);   // -2.5 to signed: -2 (truncated)
  EXPECT_EQ(u[2], 0xffffffffu);   // 1e10 saturates
  EXPECT_EQ(u[3], 0u);            // 1.75 < -2.3 is false
  EXPECT_EQ(u[4], 1u);            // unordered with a NaN
  EXPECT_EQ(u[5], 1u);            // not greater or equal: true with a NaN
}

void check_wmma(Runner& r) {
  const std::string p = r.processor();
  const bool rdna4 = p.rfind("gfx12", 0) == 0;
  if (p.rfind("gfx11", 0) != 0 && !rdna4) return;
  std::mt19937 gen(11);
  std::uniform_int_distribution<int> small(-8, 8);
  std::vector<_Float16> a(256), b(256);
  std::vector<float> c(256);
  std::vector<std::int8_t> a8(256);
  std::vector<std::uint8_t> b8(256);
  for (int i = 0; i < 256; ++i) {
    a[i] = _Float16(small(gen) * 0.125f), b[i] = _Float16(small(gen) * 0.25f), c[i] = float(small(gen));
    a8[i] = std::int8_t(small(gen) * 15), b8[i] = std::uint8_t(200 + small(gen) * 6);  // finite as OCP E4M3 too
  }
  auto* d = static_cast<float*>(r.alloc(256 * 4));
  auto* d16 = static_cast<_Float16*>(r.alloc(512 * 2));
  auto* d32 = static_cast<std::int32_t*>(r.alloc(256 * 4));
  auto* dfp8 = static_cast<float*>(r.alloc(256 * 4));
  r.run("isa_wmma", {32}, {32}, {r.upload(a), r.upload(b), r.upload(c), r.upload(a8), r.upload(b8), d, d16, d32, dfp8});
  const auto got = r.download(d, 256);
  const auto got16 = r.download(d16, 512);
  const auto got32 = r.download(d32, 256);
  const auto got8 = r.download(dfp8, 256);
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 16; ++j) {
      double sum = 0, sum8 = 0;
      std::int64_t isum = 0;
      for (int k = 0; k < 16; ++k) {
        sum += double(a[i * 16 + k]) * double(b[k * 16 + j]);
        isum += std::int64_t(a8[i * 16 + k]) * b8[k * 16 + j];
        sum8 += f8_value(std::uint8_t(a8[i * 16 + k]), false, true) * f8_value(b8[k * 16 + j], false, true);
      }
      const int at = i * 16 + j;
      SCOPED_TRACE("D[" + std::to_string(i) + "][" + std::to_string(j) + "]");
      EXPECT_EQ(got[at], float(sum + c[at]));
      EXPECT_EQ(float(got16[2 * at]), -1.0f);  // the low half as it was
      EXPECT_EQ(got16[2 * at + 1], _Float16(sum + c[at]));
      EXPECT_EQ(got32[at], std::int32_t(isum + std::int64_t(c[at])));
      if (rdna4) {
        EXPECT_EQ(got8[at], float(sum8 + c[at]));
      }
    }
  }
}

void check_buffer_bounds(Runner& r) {
  std::vector<std::uint32_t> in(128);
  for (unsigned i = 0; i < in.size(); ++i) in[i] = 1000 + i;
  const std::uint32_t records = 256, soffset = 64;  // dwords 16..63 inside, lanes 48..63 past the end
  auto* out = static_cast<std::uint32_t*>(r.alloc(64 * 4));
  r.run("isa_buffer_bounds", {64}, {64}, {r.upload(in), out, records, soffset});
  const auto got = r.download(out, 64);
  for (unsigned lane = 0; lane < 64; ++lane) {
    const bool inside = lane * 4 + soffset + 4 <= records;
    EXPECT_EQ(got[lane], inside ? in[lane + soffset / 4] : 0u) << "lane " << lane << (inside ? "" : ", past num_records");
  }
}

void check_scalar_buffer_bounds(Runner& r) {
  std::vector<std::uint32_t> in(128);
  for (unsigned i = 0; i < in.size(); ++i) in[i] = 1000 + i;
  std::uint32_t* data = r.upload(in);
  auto* out = static_cast<std::uint32_t*>(r.alloc(8 * 4));
  // {records, soffset}: all eight inside; the first five (a num_records that is no multiple of 4:
  // 76 + 4 * 4 + 4 = 96 <= 98, the sixth would end at 100); none.
  for (const auto& [records, soffset] : {std::pair{256u, 64u}, std::pair{98u, 76u}, std::pair{64u, 64u}}) {
    SCOPED_TRACE("num_records " + std::to_string(records) + ", offset " + std::to_string(soffset));
    r.run("isa_scalar_buffer_bounds", {64}, {64}, {data, out, records, soffset});
    const auto got = r.download(out, 8);
    for (unsigned i = 0; i < 8; ++i) {
      const bool inside = soffset + 4 * i + 4 <= records;
      EXPECT_EQ(got[i], inside ? in[soffset / 4 + i] : 0u) << "dword " << i << (inside ? "" : ", past num_records");
    }
  }
}

void check_bitonic(Runner& r) {
  const std::uint32_t n = 32768;
  std::mt19937 gen(11);
  std::vector<std::uint32_t> keys(n);
  for (auto& k : keys) k = gen();
  auto* d = r.upload(keys);
  std::uint32_t dispatches = 0;
  for (std::uint32_t stage = 0; (2u << stage) <= n; ++stage) {
    for (std::uint32_t pass = 0; pass <= stage; ++pass, ++dispatches) r.run("bitonic_step", {n / 2}, {256}, {d, stage, pass, 1u, n});
  }
  EXPECT_EQ(dispatches, kernels::bitonic_dispatches(n));
  const auto got = r.download(d, n);
  std::sort(keys.begin(), keys.end());
  for (std::uint32_t i = 0; i < n; ++i) ASSERT_EQ(got[i], keys[i]) << i;
}

void check_copy_and_empty(Runner& r) {
  const unsigned long long count = 100003;
  std::vector<double> src(count);
  for (std::size_t i = 0; i < count; ++i) src[i] = double(i) * 0.5 - 7.0;
  auto* d = static_cast<double*>(r.alloc(count * 8));
  r.run("hsad_copy_f64", {whole_groups(std::uint32_t(count))}, {256}, {d, r.upload(src), count});
  EXPECT_EQ(r.download(d, count), src);
  r.run("hsad_empty", {1024}, {256}, {});
}

// Every Laplacian kernel at every m the library has, on a grid whose sizes are multiples of
// nothing (tiles cut at the edge in y) and tall enough that every m has an interior tile (from row
// 16 to 32 at m = 16), against the reference that rounds as hipcc's code does:
// bit for bit where the machine code runs; within 1e-13 of the largest term where host builds do.
void check_laplacian(Runner& r) {
  struct Case {
    int kernel, m;
  };
  constexpr double kUntouched = -12345.0;
  hsad::testing::LaplacianGrid g{37, 47, 23, 1.0 / (0.1 * 0.1), 1.0 / (0.2 * 0.2), 1.0 / (0.3 * 0.3), 0};
  g.invhxyz2 = -2.0 * (g.invhx2 + g.invhy2 + g.invhz2);
  const std::size_t points = std::size_t(g.nx) * g.ny * g.nz;
  std::vector<double> u(points);
  std::mt19937 gen(12);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (auto& x : u) x = dist(gen);
  const double* d_u = r.upload(u);
  double* d_f = static_cast<double*>(r.alloc(points * 8));
  const std::uint32_t block[3] = {64, 4, 1};
  const double bound = 1e-13 * 2 * (g.invhx2 + g.invhy2 + g.invhz2);
  for (const Case c : {Case{5, 4}, {5, 8}, {5, 16}, {6, 4}, {6, 8}, {6, 16}, {7, 4}, {7, 8}, {7, 16}, {8, 4}, {8, 8},
                       {8, 16}, {8, 32}}) {
    SCOPED_TRACE("Kernel " + std::to_string(c.kernel) + ", m " + std::to_string(c.m));
    r.upload(d_f, std::vector<double>(points, kUntouched).data(), points * 8);
    const std::string name = "laplacian" + std::to_string(c.kernel) + "_m" + std::to_string(c.m);
    // Kernel 7: the rows [sy, ey) of one subdomain, as one dispatch of a split sweep does.
    const int sy = c.kernel == 7 ? 9 : 0, ey = c.kernel == 7 ? 21 : g.ny;
    const auto shape = kernels::laplacian_shape(c.kernel, c.m, block, g.nx, ey - sy, g.nz);
    const Dim3 grid{shape.grid[0], shape.grid[1], shape.grid[2]};
    const Dim3 group{block[0], block[1], block[2]};
    if (c.kernel == 7) {
      r.run(name, grid, group, {d_f, d_u, g.nx, g.ny, g.nz, g.invhx2, g.invhy2, g.invhz2, g.invhxyz2, sy, ey});
    } else {
      r.run(name, grid, group, {d_f, d_u, g.nx, g.ny, g.nz, g.invhx2, g.invhy2, g.invhz2, g.invhxyz2});
    }
    const auto f = r.download(d_f, points);
    const auto expect = hsad::testing::fused_laplacian(c.kernel, u, g, kUntouched, sy, ey);
    std::size_t wrong = 0, first = points;
    for (std::size_t p = 0; p < points; ++p) {
      const bool ok = r.runs_machine_code() ? f[p] == expect[p] : std::fabs(f[p] - expect[p]) <= bound;
      if (!ok && wrong++ == 0) first = p;
    }
    EXPECT_EQ(wrong, 0u) << "first at (" << first % g.nx << ", " << first / g.nx % g.ny << ", " << first / (g.nx * g.ny)
                         << "): " << (wrong ? f[first] : 0.0) << " against " << (wrong ? expect[first] : 0.0);
  }
}

}  // namespace hsad::isa::testing
