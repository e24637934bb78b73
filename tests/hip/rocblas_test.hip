// AMD's rocBLAS and hipBLAS, as Debian ships them (librocblas4 6.4: its own kernels and the Tensile
// code objects it loads at run time, which on gfx90a use the matrix cores), through their host APIs
// on the simulated GPU: sgemm at odd sizes in every transpose, dgemm, a half-precision gemm_ex,
// gemv, axpy, dot and a strided batched gemm; hipBLAS's sgemm over rocBLAS. Each against a host
// reference, within a bound fit for its type: the sum of |a||b| times a few units of the type's
// rounding. No AMD number: the simulated GPU runs the libraries' machine code.
//   rocblas_test [M N K]   (M N K: also time sgemm at that size and print the simulated rate)
#include <hip/hip_runtime.h>
#include <hipblas/hipblas.h>
#include <rocblas/rocblas.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "hip_checks.hpp"

using hip_checks::check;

namespace {

bool ok(rocblas_status s, const char* what) {
  if (s == rocblas_status_success) return true;
  check(false, std::string(what) + ": " + rocblas_status_to_string(s));
  return false;
}
#define ROCBLAS(x) ok((x), #x)

template <class T>
struct Device {
  T* p = nullptr;
  std::size_t n = 0;
  explicit Device(const std::vector<T>& host) : n(host.size()) {
    HIP(hipMalloc(&p, n * sizeof(T)));
    HIP(hipMemcpy(p, host.data(), n * sizeof(T), hipMemcpyHostToDevice));
  }
  ~Device() { (void)hipFree(p); }
  std::vector<T> read() const {
    std::vector<T> h(n);
    HIP(hipMemcpy(h.data(), p, n * sizeof(T), hipMemcpyDeviceToHost));
    return h;
  }
};

std::vector<float> random_floats(std::mt19937& rng, std::size_t n) {
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// Column-major op(X)[r][c] for an m-row (before the transpose) matrix of leading dimension ld.
template <class T>
double at(const std::vector<T>& x, int ld, bool trans, int r, int c) {
  return double(trans ? x[std::size_t(r) * ld + c] : x[std::size_t(c) * ld + r]);
}

// C = alpha op(A) op(B) + beta C on the host, and the bound each element may differ by.
template <class T>
void host_gemm(bool ta, bool tb, int m, int n, int k, double alpha, const std::vector<T>& a, int lda, const std::vector<T>& b,
               int ldb, double beta, const std::vector<T>& c, int ldc, std::vector<double>& out, std::vector<double>& scale) {
  out.assign(std::size_t(ldc) * n, 0);
  scale.assign(std::size_t(ldc) * n, 0);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      double s = 0, mag = 0;
      for (int l = 0; l < k; ++l) {
        const double p = at(a, lda, ta, i, l) * at(b, ldb, tb, l, j);
        s += p;
        mag += std::fabs(p);
      }
      const std::size_t o = std::size_t(j) * ldc + i;
      out[o] = alpha * s + beta * double(c[o]);
      scale[o] = std::fabs(alpha) * mag + std::fabs(beta * double(c[o]));
    }
  }
}

template <class T>
bool close(const std::vector<T>& got, const std::vector<double>& want, const std::vector<double>& scale, int m, int n, int ld,
           double units, std::string* where) {
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      const std::size_t o = std::size_t(j) * ld + i;
      const double g = double(got[o]);
      if (!(std::fabs(g - want[o]) <= units * scale[o] + 1e-30)) {
        *where = "C[" + std::to_string(i) + "][" + std::to_string(j) + "] = " + std::to_string(g) + ", want " +
                 std::to_string(want[o]);
        return false;
      }
    }
  }
  return true;
}

const rocblas_operation kOps[2] = {rocblas_operation_none, rocblas_operation_transpose};

void sgemm_every_transpose(rocblas_handle h, std::mt19937& rng, int m, int n, int k) {
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      const int lda = (ta ? k : m) + 3, ldb = (tb ? n : k) + 1, ldc = m + 2;
      const auto a = random_floats(rng, std::size_t(lda) * (ta ? m : k));
      const auto b = random_floats(rng, std::size_t(ldb) * (tb ? k : n));
      const auto c = random_floats(rng, std::size_t(ldc) * n);
      const float alpha = 0.75f, beta = -0.5f;
      Device<float> da(a), db(b), dc(c);
      const std::string what = std::string("rocblas_sgemm ") + (ta ? "T" : "N") + (tb ? "T" : "N") + " " + std::to_string(m) +
                               "x" + std::to_string(n) + "x" + std::to_string(k);
      if (!ROCBLAS(rocblas_sgemm(h, kOps[ta], kOps[tb], m, n, k, &alpha, da.p, lda, db.p, ldb, &beta, dc.p, ldc))) continue;
      HIP(hipDeviceSynchronize());
      std::vector<double> want, scale;
      host_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, want, scale);
      std::string where;
      check(close(dc.read(), want, scale, m, n, ldc, 8 * 1.2e-7, &where), what + (where.empty() ? "" : ": " + where));
    }
  }
}

void dgemm(rocblas_handle h, std::mt19937& rng, bool ta, int m, int n, int k) {
  const int lda = (ta ? k : m) + 1, ldb = k, ldc = m;
  std::vector<double> a(std::size_t(lda) * (ta ? m : k)), b(std::size_t(ldb) * n), c(std::size_t(ldc) * n);
  std::uniform_real_distribution<double> d(-1, 1);
  for (auto* v : {&a, &b, &c}) for (auto& x : *v) x = d(rng);
  const double alpha = 1.25, beta = 0.5;
  Device<double> da(a), db(b), dc(c);
  const std::string what = std::string("rocblas_dgemm ") + (ta ? "TN " : "NN ") + std::to_string(m) + "x" + std::to_string(n) + "x" +
                           std::to_string(k);
  if (!ROCBLAS(rocblas_dgemm(h, kOps[ta], rocblas_operation_none, m, n, k, &alpha, da.p, lda, db.p, ldb, &beta, dc.p, ldc))) return;
  HIP(hipDeviceSynchronize());
  std::vector<double> want, scale;
  host_gemm(ta, false, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, want, scale);
  std::string where;
  check(close(dc.read(), want, scale, m, n, ldc, 8 * 2.3e-16, &where), what + (where.empty() ? "" : ": " + where));
}

// Half-precision inputs and output, f32 arithmetic (gemm_ex): bounded by the output's rounding.
void hgemm_ex(rocblas_handle h, std::mt19937& rng, int m, int n, int k) {
  const auto af = random_floats(rng, std::size_t(m) * k), bf = random_floats(rng, std::size_t(k) * n),
             cf = random_floats(rng, std::size_t(m) * n);
  std::vector<rocblas_half> a(af.size()), b(bf.size()), c(cf.size());
  std::vector<float> ah(af.size()), bh(bf.size()), ch(cf.size());  // the halves' values
  auto to_half = [](const std::vector<float>& f, std::vector<rocblas_half>& hv, std::vector<float>& back) {
    for (std::size_t i = 0; i < f.size(); ++i) {
      const _Float16 x = _Float16(f[i]);
      std::memcpy(&hv[i], &x, 2);
      back[i] = float(x);
    }
  };
  to_half(af, a, ah), to_half(bf, b, bh), to_half(cf, c, ch);
  const float alpha = 1.0f, beta = 1.0f;
  Device<rocblas_half> da(a), db(b), dc(c);
  const std::string what = "rocblas_gemm_ex f16 in and out, f32 compute, " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                           std::to_string(k);
  if (!ROCBLAS(rocblas_gemm_ex(h, rocblas_operation_none, rocblas_operation_none, m, n, k, &alpha, da.p, rocblas_datatype_f16_r, m,
                               db.p, rocblas_datatype_f16_r, k, &beta, dc.p, rocblas_datatype_f16_r, m, dc.p,
                               rocblas_datatype_f16_r, m, rocblas_datatype_f32_r, rocblas_gemm_algo_standard, 0, 0))) {
    return;
  }
  HIP(hipDeviceSynchronize());
  std::vector<double> want, scale;
  host_gemm(false, false, m, n, k, alpha, ah, m, bh, k, beta, ch, m, want, scale);
  const auto raw = dc.read();
  std::vector<float> got(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    _Float16 x;
    std::memcpy(&x, &raw[i], 2);
    got[i] = float(x);
  }
  std::string where;
  // The output's own rounding (2^-11 of the result) on top of f32 sums.
  for (std::size_t i = 0; i < scale.size(); ++i) scale[i] += std::fabs(want[i]) * 4;
  check(close(got, want, scale, m, n, m, 1.0 / 2048, &where), what + (where.empty() ? "" : ": " + where));
}

void level1_and_2(rocblas_handle h, std::mt19937& rng) {
  const int n = 1031, m = 97;
  const auto x = random_floats(rng, n), y = random_floats(rng, n), a = random_floats(rng, std::size_t(m) * n),
             z = random_floats(rng, m);
  Device<float> dx(x), dy(y), da(a), dz(z);
  const float alpha = 2.5f, beta = -1.0f;
  if (ROCBLAS(rocblas_saxpy(h, n, &alpha, dx.p, 1, dy.p, 1))) {
    const auto got = dy.read();
    bool good = true;
    for (int i = 0; i < n; ++i) good = good && std::fabs(got[i] - (alpha * x[i] + y[i])) <= 1e-6f * (std::fabs(alpha * x[i]) + std::fabs(y[i]));
    check(good, "rocblas_saxpy 1031");
  }
  float dot = 0;
  if (ROCBLAS(rocblas_sdot(h, n, dx.p, 1, dx.p, 1, &dot))) {
    double want = 0;
    for (float v : x) want += double(v) * v;
    check(std::fabs(dot - want) <= 1e-5 * want, "rocblas_sdot 1031: " + std::to_string(dot) + ", want " + std::to_string(want));
  }
  if (ROCBLAS(rocblas_sgemv(h, rocblas_operation_none, m, n, &alpha, da.p, m, dx.p, 1, &beta, dz.p, 1))) {
    const auto got = dz.read();
    bool good = true;
    for (int i = 0; i < m; ++i) {
      double s = 0, mag = 0;
      for (int j = 0; j < n; ++j) s += double(a[std::size_t(j) * m + i]) * x[j], mag += std::fabs(double(a[std::size_t(j) * m + i]) * x[j]);
      const double want = alpha * s + beta * z[i];
      good = good && std::fabs(got[i] - want) <= 1e-5 * (std::fabs(alpha) * mag + std::fabs(z[i]));
    }
    check(good, "rocblas_sgemv N 97x1031");
  }
}

void strided_batched(rocblas_handle h, std::mt19937& rng) {
  const int m = 33, n = 17, k = 29, batch = 3;
  const rocblas_stride sa = std::int64_t(m) * k + 5, sb = std::int64_t(k) * n, sc = std::int64_t(m) * n + 1;
  const auto a = random_floats(rng, std::size_t(sa) * batch), b = random_floats(rng, std::size_t(sb) * batch),
             c = random_floats(rng, std::size_t(sc) * batch);
  const float alpha = 1.0f, beta = 0.25f;
  Device<float> da(a), db(b), dc(c);
  if (!ROCBLAS(rocblas_sgemm_strided_batched(h, rocblas_operation_none, rocblas_operation_none, m, n, k, &alpha, da.p, m, sa, db.p, k,
                                             sb, &beta, dc.p, m, sc, batch))) {
    return;
  }
  const auto got = dc.read();
  bool good = true;
  std::string where;
  for (int i = 0; i < batch && good; ++i) {
    std::vector<float> ai(a.begin() + i * sa, a.begin() + i * sa + std::int64_t(m) * k), bi(b.begin() + i * sb, b.begin() + (i + 1) * sb),
        ci(c.begin() + i * sc, c.begin() + i * sc + std::int64_t(m) * n), gi(got.begin() + i * sc, got.begin() + i * sc + std::int64_t(m) * n);
    std::vector<double> want, scale;
    host_gemm(false, false, m, n, k, alpha, ai, m, bi, k, beta, ci, m, want, scale);
    good = close(gi, want, scale, m, n, m, 8 * 1.2e-7, &where);
    if (!good) where = "batch " + std::to_string(i) + ": " + where;
  }
  check(good, "rocblas_sgemm_strided_batched 33x17x29, 3 of them" + (where.empty() ? "" : ": " + where));
}

void hipblas_sgemm(std::mt19937& rng) {
  hipblasHandle_t h = nullptr;
  if (hipblasCreate(&h) != HIPBLAS_STATUS_SUCCESS) {
    check(false, "hipblasCreate");
    return;
  }
  const int m = 21, n = 19, k = 45;
  const auto a = random_floats(rng, std::size_t(k) * m), b = random_floats(rng, std::size_t(k) * n), c = random_floats(rng, std::size_t(m) * n);
  const float alpha = 1.0f, beta = 0.0f;
  Device<float> da(a), db(b), dc(c);
  const hipblasStatus_t s = hipblasSgemm(h, HIPBLAS_OP_T, HIPBLAS_OP_N, m, n, k, &alpha, da.p, k, db.p, k, &beta, dc.p, m);
  if (s != HIPBLAS_STATUS_SUCCESS) {
    check(false, std::string("hipblasSgemm: ") + hipblasStatusToString(s));
  } else {
    std::vector<double> want, scale;
    host_gemm(true, false, m, n, k, alpha, a, k, b, k, beta, c, m, want, scale);
    std::string where;
    check(close(dc.read(), want, scale, m, n, m, 8 * 1.2e-7, &where), "hipblasSgemm TN 21x19x45" + (where.empty() ? "" : ": " + where));
  }
  hipblasDestroy(h);
}

}  // namespace

int main(int argc, char** argv) {
  std::mt19937 rng(2026);
  rocblas_handle h = nullptr;
  if (!ROCBLAS(rocblas_create_handle(&h))) return hip_checks::finish("rocblas_test");
  sgemm_every_transpose(h, rng, 37, 29, 23);
  sgemm_every_transpose(h, rng, 257, 129, 65);
  dgemm(h, rng, false, 65, 33, 17);
  dgemm(h, rng, true, 31, 45, 38);
  hgemm_ex(h, rng, 64, 48, 40);
  level1_and_2(h, rng);
  strided_batched(h, rng);
  hipblas_sgemm(rng);
  if (argc == 4) {
    // The simulated rate of one sgemm at M N K: the interpreter's, not an AMD figure.
    const int m = std::atoi(argv[1]), n = std::atoi(argv[2]), k = std::atoi(argv[3]);
    const auto a = random_floats(rng, std::size_t(m) * k), b = random_floats(rng, std::size_t(k) * n), c = random_floats(rng, std::size_t(m) * n);
    Device<float> da(a), db(b), dc(c);
    const float alpha = 1, beta = 0;
    ROCBLAS(rocblas_sgemm(h, rocblas_operation_none, rocblas_operation_none, m, n, k, &alpha, da.p, m, db.p, k, &beta, dc.p, m));
    HIP(hipDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    ROCBLAS(rocblas_sgemm(h, rocblas_operation_none, rocblas_operation_none, m, n, k, &alpha, da.p, m, db.p, k, &beta, dc.p, m));
    HIP(hipDeviceSynchronize());
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("simulated sgemm %dx%dx%d: %.3f s, %.3f MFLOP/s of the interpreter (not an AMD figure)\n", m, n, k, s,
                2.0 * m * n * k / s / 1e6);
  }
  rocblas_destroy_handle(h);
  return hip_checks::finish("rocblas_test");
}
