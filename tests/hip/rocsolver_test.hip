// AMD's rocSOLVER, as Debian ships it (librocsolver0 6.4: its own kernels over rocBLAS's), through its
// host API on the simulated GPU: Cholesky (potrf) and LU with partial pivoting (getrf), each followed
// by its solve (potrs, getrs), in single and double precision at odd sizes, one small and one past
// rocSOLVER's block size so that its blocked path runs too. Each against the host: the factors
// multiply back to the matrix and the solution's backward error, both within a bound of a few units
// of the type's rounding times n; a matrix that is not positive definite reports the column where
// Cholesky stopped, and a singular one the zero pivot, as LAPACK does. No AMD number.
#include <hip/hip_runtime.h>
#include <rocsolver/rocsolver.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
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
#define ROCSOLVER(x) ok((x), #x)

template <class T>
struct Device {
  T* p = nullptr;
  std::size_t n = 0;
  explicit Device(std::size_t count) : n(count) { HIP(hipMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(T))); }
  explicit Device(const std::vector<T>& host) : Device(host.size()) {
    HIP(hipMemcpy(p, host.data(), n * sizeof(T), hipMemcpyHostToDevice));
  }
  ~Device() { (void)hipFree(p); }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  std::vector<T> read() const {
    std::vector<T> h(n);
    HIP(hipMemcpy(h.data(), p, n * sizeof(T), hipMemcpyDeviceToHost));
    return h;
  }
};

// Column-major n x n, leading dimension lda >= n (the rows past n are padding, left as they are).
std::size_t ix(int lda, int r, int c) { return std::size_t(c) * lda + r; }

template <class T>
std::vector<T> random_matrix(std::mt19937& rng, int rows, int cols) {
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<T> v(std::size_t(rows) * cols);
  for (auto& x : v) x = T(d(rng));
  return v;
}

// A symmetric positive definite matrix: M M^T + n I, so well conditioned.
template <class T>
std::vector<T> spd_matrix(std::mt19937& rng, int n, int lda) {
  const auto m = random_matrix<double>(rng, n, n);
  std::vector<T> a(std::size_t(lda) * n, T(0));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = i == j ? n : 0.0;
      for (int k = 0; k < n; ++k) s += m[ix(n, i, k)] * m[ix(n, j, k)];
      a[ix(lda, i, j)] = T(s);
    }
  return a;
}

template <class T>
double eps() {
  return std::numeric_limits<T>::epsilon();
}

// max |x - y| / (max |y| * n * eps * slack) <= 1: the factors multiply back to the matrix.
template <class T>
bool near(const std::vector<double>& x, const std::vector<T>& y, int n, int lda, double* seen) {
  double worst = 0, big = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      worst = std::max(worst, std::fabs(x[ix(n, i, j)] - double(y[ix(lda, i, j)])));
      big = std::max(big, std::fabs(double(y[ix(lda, i, j)])));
    }
  *seen = worst / (big * n * eps<T>());
  return *seen <= 8.0;
}

// The solution's backward error: ||A x - b||_inf / (||A||_inf ||x||_inf + ||b||_inf) in units of n eps.
template <class T>
double backward_error(const std::vector<T>& a, int n, int lda, const std::vector<T>& x, const std::vector<T>& b, int nrhs,
                      int ldb) {
  double worst = 0, norm_a = 0;
  for (int i = 0; i < n; ++i) {
    double row = 0;
    for (int j = 0; j < n; ++j) row += std::fabs(double(a[ix(lda, i, j)]));
    norm_a = std::max(norm_a, row);
  }
  for (int r = 0; r < nrhs; ++r) {
    double norm_x = 0, norm_b = 0, res = 0;
    for (int i = 0; i < n; ++i) {
      double s = -double(b[ix(ldb, i, r)]);
      for (int j = 0; j < n; ++j) s += double(a[ix(lda, i, j)]) * double(x[ix(ldb, j, r)]);
      res = std::max(res, std::fabs(s));
      norm_x = std::max(norm_x, std::fabs(double(x[ix(ldb, i, r)])));
      norm_b = std::max(norm_b, std::fabs(double(b[ix(ldb, i, r)])));
    }
    worst = std::max(worst, res / ((norm_a * norm_x + norm_b) * n * eps<T>()));
  }
  return worst;
}

rocblas_status potrf(rocblas_handle h, int n, float* a, int lda, int* info) {
  return rocsolver_spotrf(h, rocblas_fill_lower, n, a, lda, info);
}
rocblas_status potrf(rocblas_handle h, int n, double* a, int lda, int* info) {
  return rocsolver_dpotrf(h, rocblas_fill_lower, n, a, lda, info);
}
rocblas_status potrs(rocblas_handle h, int n, int nrhs, float* a, int lda, float* b, int ldb) {
  return rocsolver_spotrs(h, rocblas_fill_lower, n, nrhs, a, lda, b, ldb);
}
rocblas_status potrs(rocblas_handle h, int n, int nrhs, double* a, int lda, double* b, int ldb) {
  return rocsolver_dpotrs(h, rocblas_fill_lower, n, nrhs, a, lda, b, ldb);
}
rocblas_status getrf(rocblas_handle h, int n, float* a, int lda, int* ipiv, int* info) {
  return rocsolver_sgetrf(h, n, n, a, lda, ipiv, info);
}
rocblas_status getrf(rocblas_handle h, int n, double* a, int lda, int* ipiv, int* info) {
  return rocsolver_dgetrf(h, n, n, a, lda, ipiv, info);
}
rocblas_status getrs(rocblas_handle h, int n, int nrhs, float* a, int lda, int* ipiv, float* b, int ldb) {
  return rocsolver_sgetrs(h, rocblas_operation_none, n, nrhs, a, lda, ipiv, b, ldb);
}
rocblas_status getrs(rocblas_handle h, int n, int nrhs, double* a, int lda, int* ipiv, double* b, int ldb) {
  return rocsolver_dgetrs(h, rocblas_operation_none, n, nrhs, a, lda, ipiv, b, ldb);
}

int read_int(const Device<int>& d) { return d.read()[0]; }

template <class T>
void cholesky(rocblas_handle h, std::mt19937& rng, const char* type, int n, int nrhs) {
  const int lda = n + 3, ldb = n + 1;
  const auto a = spd_matrix<T>(rng, n, lda);
  const auto b = random_matrix<T>(rng, ldb, nrhs);
  Device<T> da(a), db(b);
  Device<int> info(1);
  const std::string what = std::string(type) + "potrf/potrs n=" + std::to_string(n) + " nrhs=" + std::to_string(nrhs);
  if (!ROCSOLVER(potrf(h, n, da.p, lda, info.p)) || !ROCSOLVER(potrs(h, n, nrhs, da.p, lda, db.p, ldb))) return;
  const int status = read_int(info);
  check(status == 0, what + ": info " + std::to_string(status));
  // L L^T against A, from the lower triangle rocSOLVER wrote.
  const auto f = da.read();
  std::vector<double> llt(std::size_t(n) * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int k = 0; k <= std::min(i, j); ++k) s += double(f[ix(lda, i, k)]) * double(f[ix(lda, j, k)]);
      llt[ix(n, i, j)] = s;
    }
  double seen = 0;
  const bool factors = near(llt, a, n, lda, &seen);
  check(factors, what + ": L L^T = A within " + std::to_string(seen) + " n eps");
  const double back = backward_error(a, n, lda, db.read(), b, nrhs, ldb);
  check(back <= 8.0, what + ": backward error " + std::to_string(back) + " n eps");
}

template <class T>
void lu(rocblas_handle h, std::mt19937& rng, const char* type, int n, int nrhs) {
  const int lda = n + 2, ldb = n;
  const auto a = random_matrix<T>(rng, lda, n);
  const auto b = random_matrix<T>(rng, ldb, nrhs);
  Device<T> da(a), db(b);
  Device<int> ipiv(n), info(1);
  const std::string what = std::string(type) + "getrf/getrs n=" + std::to_string(n) + " nrhs=" + std::to_string(nrhs);
  if (!ROCSOLVER(getrf(h, n, da.p, lda, ipiv.p, info.p)) || !ROCSOLVER(getrs(h, n, nrhs, da.p, lda, ipiv.p, db.p, ldb)))
    return;
  const int status = read_int(info);
  check(status == 0, what + ": info " + std::to_string(status));
  // P A = L U: apply the row swaps (1-based, in order) to A, and multiply the unit-lower L by U.
  const auto f = da.read();
  const auto piv = ipiv.read();
  std::vector<T> pa = a;
  bool pivots_valid = true;
  for (int i = 0; i < n; ++i) {
    const int p = piv[i] - 1;
    if (p < i || p >= n) {
      pivots_valid = false;
      break;
    }
    for (int j = 0; j < n; ++j) std::swap(pa[ix(lda, i, j)], pa[ix(lda, p, j)]);
  }
  check(pivots_valid, what + ": every pivot row in [i, n)");
  std::vector<double> prod(std::size_t(n) * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int k = 0; k <= std::min(i, j); ++k) s += (k == i ? 1.0 : double(f[ix(lda, i, k)])) * double(f[ix(lda, k, j)]);
      prod[ix(n, i, j)] = s;
    }
  double seen = 0;
  const bool factors = near(prod, pa, n, lda, &seen);
  // Partial pivoting's growth is modest for random matrices; the bound allows it a factor of n.
  check(factors || seen <= 8.0 * n, what + ": L U = P A within " + std::to_string(seen) + " n eps");
  const double back = backward_error(a, n, lda, db.read(), b, nrhs, ldb);
  check(back <= 8.0, what + ": backward error " + std::to_string(back) + " n eps");
}

// LAPACK's words for a matrix the factorization cannot take: potrf's info is the order of the first
// leading minor that is not positive definite, getrf's the first zero pivot (1-based).
void refusals(rocblas_handle h, std::mt19937& rng) {
  const int n = 21, bad = 12;
  auto a = spd_matrix<double>(rng, n, n);
  a[ix(n, bad - 1, bad - 1)] = -1e6;
  {
    Device<double> da(a);
    Device<int> info(1);
    if (ROCSOLVER(potrf(h, n, da.p, n, info.p))) {
      const int status = read_int(info);
      check(status == bad, "dpotrf of a matrix whose leading minor " + std::to_string(bad) +
                               " is not positive definite: info " + std::to_string(status));
    }
  }
  // A column of zeros: its pivot is zero whatever the row swaps.
  auto g = random_matrix<double>(rng, n, n);
  for (int i = 0; i < n; ++i) g[ix(n, i, bad - 1)] = 0;
  Device<double> dg(g);
  Device<int> ipiv(n), info(1);
  if (ROCSOLVER(getrf(h, n, dg.p, n, ipiv.p, info.p))) {
    const int status = read_int(info);
    check(status == bad, "dgetrf of a matrix with column " + std::to_string(bad) + " zero: info " + std::to_string(status));
  }
  // A negative size is refused by the API.
  Device<int> unused(1);
  const rocblas_status s = rocsolver_dpotrf(h, rocblas_fill_lower, -1, dg.p, n, unused.p);
  check(s == rocblas_status_invalid_size, std::string("dpotrf n=-1: ") + rocblas_status_to_string(s));
}

}  // namespace

int main() {
  rocblas_handle h = nullptr;
  if (!ROCSOLVER(rocblas_create_handle(&h))) return hip_checks::finish("rocsolver_test");
  std::mt19937 rng(20261127);
  // 37: the unblocked path; 139: past rocSOLVER's block size (its potrf and getrf block at 64 or
  // less for these sizes), so the panel, the trailing update through rocBLAS, and the solve's trsm.
  for (const int n : {37, 139}) {
    cholesky<float>(h, rng, "s", n, 3);
    cholesky<double>(h, rng, "d", n, 2);
    lu<float>(h, rng, "s", n, 2);
    lu<double>(h, rng, "d", n, 3);
  }
  refusals(h, rng);
  ROCSOLVER(rocblas_destroy_handle(h));
  return hip_checks::finish("rocsolver_test");
}
