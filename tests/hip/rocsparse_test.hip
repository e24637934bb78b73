// AMD's rocSPARSE and hipSPARSE, as Debian ships them (librocsparse0: code objects for gfx90a,
// gfx908 and gfx1030 inside; libhipsparse0 over it), through their host APIs on the simulated GPU:
// SpMV in each of its algorithms and formats (CSR adaptive and stream, COO segmented and atomic,
// ELL; the legacy csrmv with and without its analysis; transposed; float), the format conversions
// (CSR to COO and back, CSR to CSC, CSR to ELL), and a triangular solve with its zero-pivot check,
// each against a host reference. No AMD number: the simulated GPU runs the libraries' machine code.
#include <hip/hip_runtime.h>
#include <hipsparse/hipsparse.h>
#include <rocsparse/rocsparse.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "hip_checks.hpp"

using hip_checks::check;

namespace {
// Odd sizes; every row 0 to 12 entries, and row 7 a long one (past what one wavefront takes in
// CSR adaptive's short-row path).
constexpr int kRows = 517, kCols = 389, kLongRow = 7, kLongRowEntries = 300;

struct Csr {
  int m = 0, n = 0;
  std::vector<int> row_ptr, col;
  std::vector<double> val;
  int nnz() const { return int(col.size()); }
};

Csr random_csr(std::mt19937& rng) {
  Csr a;
  a.m = kRows;
  a.n = kCols;
  a.row_ptr.push_back(0);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  for (int r = 0; r < kRows; ++r) {
    std::vector<int> cols(kCols);
    for (int c = 0; c < kCols; ++c) cols[c] = c;
    std::shuffle(cols.begin(), cols.end(), rng);
    const int count = r == kLongRow ? kLongRowEntries : int(rng() % 13);
    cols.resize(count);
    std::sort(cols.begin(), cols.end());
    for (int c : cols) {
      a.col.push_back(c);
      a.val.push_back(value(rng));
    }
    a.row_ptr.push_back(a.nnz());
  }
  return a;
}

// y = alpha op(A) x + beta y, and for each entry the sum of the magnitudes it adds (the bound of
// any order of summation's error).
void host_spmv(const Csr& a, bool transpose, double alpha, const std::vector<double>& x, double beta,
               std::vector<double>& y, std::vector<double>& scale) {
  std::vector<double> ax(transpose ? a.n : a.m, 0.0), mag(ax.size(), 0.0);
  for (int r = 0; r < a.m; ++r) {
    for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const int out = transpose ? a.col[k] : r, in = transpose ? r : a.col[k];
      ax[out] += a.val[k] * x[in];
      mag[out] += std::fabs(a.val[k] * x[in]);
    }
  }
  scale.assign(ax.size(), 0.0);
  for (std::size_t i = 0; i < ax.size(); ++i) {
    scale[i] = std::fabs(alpha) * mag[i] + std::fabs(beta * y[i]) + 1e-300;
    y[i] = alpha * ax[i] + beta * y[i];
  }
}

// Every entry within `rel` of the reference, relative to the magnitudes that went into it.
template <class T>
bool close(const std::vector<T>& got, const std::vector<double>& want, const std::vector<double>& scale, double rel,
           double* worst) {
  *worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i) *worst = std::max(*worst, std::fabs(double(got[i]) - want[i]) / scale[i]);
  return *worst <= rel;
}

std::string worst_text(double w) {
  char b[64];
  std::snprintf(b, sizeof b, " (worst relative error %.2e)", w);
  return b;
}

template <class T>
T* upload(const std::vector<T>& h) {
  T* d = nullptr;
  HIP(hipMalloc(&d, std::max<std::size_t>(h.size(), 1) * sizeof(T)));
  if (!h.empty()) HIP(hipMemcpy(d, h.data(), h.size() * sizeof(T), hipMemcpyHostToDevice));
  return d;
}
template <class T>
std::vector<T> download(const T* d, std::size_t n) {
  std::vector<T> h(n);
  if (n) HIP(hipMemcpy(h.data(), d, n * sizeof(T), hipMemcpyDeviceToHost));
  return h;
}

bool ok(rocsparse_status s, const char* what) {
  if (s == rocsparse_status_success) return true;
  check(false, std::string(what) + ": rocsparse status " + std::to_string(int(s)));
  return false;
}
#define ROC(x) ok((x), #x)

// The generic SpMV on a matrix descriptor, its buffer asked for first, as an application does.
std::vector<double> generic_spmv(rocsparse_handle h, rocsparse_spmat_descr mat, rocsparse_operation op,
                                 rocsparse_spmv_alg alg, double alpha, const std::vector<double>& x, double beta,
                                 const std::vector<double>& y0) {
  double* dx = upload(x);
  double* dy = upload(y0);
  rocsparse_dnvec_descr vx = nullptr, vy = nullptr;
  ROC(rocsparse_create_dnvec_descr(&vx, int64_t(x.size()), dx, rocsparse_datatype_f64_r));
  ROC(rocsparse_create_dnvec_descr(&vy, int64_t(y0.size()), dy, rocsparse_datatype_f64_r));
  std::size_t bytes = 0;
  void* buffer = nullptr;
#if ROCSPARSE_VERSION_MAJOR >= 3
  // rocSPARSE 3 (ROCm 6) takes the stage as an argument: the buffer's size, preprocessing, the product.
  const rocsparse_datatype f64 = rocsparse_datatype_f64_r;
  ROC(rocsparse_spmv(h, op, &alpha, mat, vx, &beta, vy, f64, alg, rocsparse_spmv_stage_buffer_size, &bytes, nullptr));
  HIP(hipMalloc(&buffer, std::max<std::size_t>(bytes, 4)));
  ROC(rocsparse_spmv(h, op, &alpha, mat, vx, &beta, vy, f64, alg, rocsparse_spmv_stage_preprocess, &bytes, buffer));
  ROC(rocsparse_spmv(h, op, &alpha, mat, vx, &beta, vy, f64, alg, rocsparse_spmv_stage_compute, &bytes, buffer));
#else
  ROC(rocsparse_spmv(h, op, &alpha, mat, vx, &beta, vy, rocsparse_datatype_f64_r, alg, &bytes, nullptr));
  HIP(hipMalloc(&buffer, std::max<std::size_t>(bytes, 4)));
  ROC(rocsparse_spmv(h, op, &alpha, mat, vx, &beta, vy, rocsparse_datatype_f64_r, alg, &bytes, buffer));
#endif
  std::vector<double> y = download(dy, y0.size());
  rocsparse_destroy_dnvec_descr(vx);
  rocsparse_destroy_dnvec_descr(vy);
  HIP(hipFree(buffer));
  HIP(hipFree(dx));
  HIP(hipFree(dy));
  return y;
}

// A lower triangular matrix: diagonal in [2, 3), a few entries below it.
Csr lower_triangular(std::mt19937& rng, int m) {
  Csr l;
  l.m = l.n = m;
  l.row_ptr.push_back(0);
  std::uniform_real_distribution<double> off(-0.5, 0.5), diag(2.0, 3.0);
  for (int r = 0; r < m; ++r) {
    std::vector<int> cols;
    for (int k = 0; k < 4 && r > 0; ++k) cols.push_back(int(rng() % unsigned(r)));
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    for (int c : cols) {
      l.col.push_back(c);
      l.val.push_back(off(rng));
    }
    l.col.push_back(r);
    l.val.push_back(diag(rng));
    l.row_ptr.push_back(l.nnz());
  }
  return l;
}
}  // namespace

int main() {
  std::mt19937 rng(20261126);
  const Csr a = random_csr(rng);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> x(kCols), xt(kRows), y0(kRows), y0t(kCols);
  for (double& v : x) v = u(rng);
  for (double& v : xt) v = u(rng);
  for (double& v : y0) v = u(rng);
  for (double& v : y0t) v = u(rng);
  const double alpha = 1.5, beta = -0.5;
  std::vector<double> want = y0, scale, want_t = y0t, scale_t;
  host_spmv(a, false, alpha, x, beta, want, scale);
  host_spmv(a, true, alpha, xt, beta, want_t, scale_t);
  std::printf("matrix %d x %d, %d entries\n", a.m, a.n, a.nnz());

  rocsparse_handle h = nullptr;
  if (!ROC(rocsparse_create_handle(&h))) return hip_checks::finish("rocsparse_test");
  int* d_row_ptr = upload(a.row_ptr);
  int* d_col = upload(a.col);
  double* d_val = upload(a.val);
  double worst = 0;

  // The legacy csrmv, without and with its analysis (the adaptive algorithm's row blocks).
  rocsparse_mat_descr descr = nullptr;
  ROC(rocsparse_create_mat_descr(&descr));
  for (bool analysed : {false, true}) {
    rocsparse_mat_info info = nullptr;
    if (analysed) {
      ROC(rocsparse_create_mat_info(&info));
      ROC(rocsparse_dcsrmv_analysis(h, rocsparse_operation_none, a.m, a.n, a.nnz(), descr, d_val, d_row_ptr, d_col, info));
    }
    double* dx = upload(x);
    double* dy = upload(y0);
    ROC(rocsparse_dcsrmv(h, rocsparse_operation_none, a.m, a.n, a.nnz(), &alpha, descr, d_val, d_row_ptr, d_col, info, dx,
                         &beta, dy));
    check(close(download(dy, kRows), want, scale, 1e-13, &worst),
          std::string("rocsparse_dcsrmv") + (analysed ? " after its analysis (adaptive)" : "") + worst_text(worst));
    HIP(hipFree(dx));
    HIP(hipFree(dy));
    if (info) rocsparse_destroy_mat_info(info);
  }
  // Single precision: the same matrix as floats.
  {
    std::vector<float> fval(a.val.begin(), a.val.end()), fx(x.begin(), x.end()), fy(y0.begin(), y0.end());
    float* dv = upload(fval);
    float* dx = upload(fx);
    float* dy = upload(fy);
    const float fa = 1.5f, fb = -0.5f;
    ROC(rocsparse_scsrmv(h, rocsparse_operation_none, a.m, a.n, a.nnz(), &fa, descr, dv, d_row_ptr, d_col, nullptr, dx, &fb,
                         dy));
    check(close(download(dy, kRows), want, scale, 1e-5, &worst), "rocsparse_scsrmv (float)" + worst_text(worst));
    HIP(hipFree(dv));
    HIP(hipFree(dx));
    HIP(hipFree(dy));
  }

  // The generic SpMV: CSR adaptive and stream, also transposed.
  rocsparse_spmat_descr csr = nullptr;
  ROC(rocsparse_create_csr_descr(&csr, a.m, a.n, a.nnz(), d_row_ptr, d_col, d_val, rocsparse_indextype_i32,
                                 rocsparse_indextype_i32, rocsparse_index_base_zero, rocsparse_datatype_f64_r));
  for (auto [alg, name] : {std::pair{rocsparse_spmv_alg_csr_adaptive, "CSR adaptive"}, {rocsparse_spmv_alg_csr_stream, "CSR stream"}}) {
    check(close(generic_spmv(h, csr, rocsparse_operation_none, alg, alpha, x, beta, y0), want, scale, 1e-13, &worst),
          std::string("rocsparse_spmv ") + name + worst_text(worst));
  }
  check(close(generic_spmv(h, csr, rocsparse_operation_transpose, rocsparse_spmv_alg_csr_stream, alpha, xt, beta, y0t), want_t,
              scale_t, 1e-13, &worst),
        "rocsparse_spmv CSR transposed" + worst_text(worst));

  // CSR to COO on the device: the row of every entry; and back.
  int* d_coo_row = nullptr;
  HIP(hipMalloc(&d_coo_row, a.nnz() * sizeof(int)));
  ROC(rocsparse_csr2coo(h, d_row_ptr, a.nnz(), a.m, d_coo_row, rocsparse_index_base_zero));
  std::vector<int> want_rows;
  for (int r = 0; r < a.m; ++r) want_rows.insert(want_rows.end(), a.row_ptr[r + 1] - a.row_ptr[r], r);
  check(download(d_coo_row, a.nnz()) == want_rows, "rocsparse_csr2coo: every entry's row");
  int* d_back = nullptr;
  HIP(hipMalloc(&d_back, (a.m + 1) * sizeof(int)));
  ROC(rocsparse_coo2csr(h, d_coo_row, a.nnz(), a.m, d_back, rocsparse_index_base_zero));
  check(download(d_back, a.m + 1) == a.row_ptr, "rocsparse_coo2csr: the row offsets again");
  // COO SpMV: segmented and atomic.
  rocsparse_spmat_descr coo = nullptr;
  ROC(rocsparse_create_coo_descr(&coo, a.m, a.n, a.nnz(), d_coo_row, d_col, d_val, rocsparse_indextype_i32,
                                 rocsparse_index_base_zero, rocsparse_datatype_f64_r));
  for (auto [alg, name] : {std::pair{rocsparse_spmv_alg_coo, "COO segmented"}, {rocsparse_spmv_alg_coo_atomic, "COO atomic"}}) {
    check(close(generic_spmv(h, coo, rocsparse_operation_none, alg, alpha, x, beta, y0), want, scale, 1e-13, &worst),
          std::string("rocsparse_spmv ") + name + worst_text(worst));
  }

  // CSR to CSC: the transpose's structure and values, exactly.
  {
    std::size_t bytes = 0;
    ROC(rocsparse_csr2csc_buffer_size(h, a.m, a.n, a.nnz(), d_row_ptr, d_col, rocsparse_action_numeric, &bytes));
    void* buffer = nullptr;
    HIP(hipMalloc(&buffer, std::max<std::size_t>(bytes, 4)));
    double* d_cval = nullptr;
    int *d_crow = nullptr, *d_cptr = nullptr;
    HIP(hipMalloc(&d_cval, a.nnz() * sizeof(double)));
    HIP(hipMalloc(&d_crow, a.nnz() * sizeof(int)));
    HIP(hipMalloc(&d_cptr, (a.n + 1) * sizeof(int)));
    ROC(rocsparse_dcsr2csc(h, a.m, a.n, a.nnz(), d_val, d_row_ptr, d_col, d_cval, d_crow, d_cptr, rocsparse_action_numeric,
                           rocsparse_index_base_zero, buffer));
    std::vector<int> cptr(a.n + 1, 0), crow(a.nnz());
    std::vector<double> cval(a.nnz());
    for (int c : a.col) ++cptr[c + 1];
    for (int c = 0; c < a.n; ++c) cptr[c + 1] += cptr[c];
    std::vector<int> next(cptr.begin(), cptr.end() - 1);
    for (int r = 0; r < a.m; ++r) {
      for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
        crow[next[a.col[k]]] = r;
        cval[next[a.col[k]]++] = a.val[k];
      }
    }
    check(download(d_cptr, a.n + 1) == cptr && download(d_crow, a.nnz()) == crow && download(d_cval, a.nnz()) == cval,
          "rocsparse_dcsr2csc: column offsets, rows and values exactly");
    HIP(hipFree(buffer));
    HIP(hipFree(d_cval));
    HIP(hipFree(d_crow));
    HIP(hipFree(d_cptr));
  }

  // CSR to ELL (width: the longest row), then ELL SpMV.
  {
    rocsparse_mat_descr ell_descr = nullptr;
    ROC(rocsparse_create_mat_descr(&ell_descr));
    int width = 0;
    ROC(rocsparse_csr2ell_width(h, a.m, descr, d_row_ptr, ell_descr, &width));
    check(width == kLongRowEntries, "rocsparse_csr2ell_width: the longest row, " + std::to_string(width));
    double* d_eval = nullptr;
    int* d_ecol = nullptr;
    HIP(hipMalloc(&d_eval, std::size_t(width) * a.m * sizeof(double)));
    HIP(hipMalloc(&d_ecol, std::size_t(width) * a.m * sizeof(int)));
    ROC(rocsparse_dcsr2ell(h, a.m, descr, d_val, d_row_ptr, d_col, ell_descr, width, d_eval, d_ecol));
    rocsparse_spmat_descr ell = nullptr;
    ROC(rocsparse_create_ell_descr(&ell, a.m, a.n, d_ecol, d_eval, width, rocsparse_indextype_i32, rocsparse_index_base_zero,
                                   rocsparse_datatype_f64_r));
    check(close(generic_spmv(h, ell, rocsparse_operation_none, rocsparse_spmv_alg_ell, alpha, x, beta, y0), want, scale, 1e-13,
                &worst),
          "rocsparse_spmv ELL" + worst_text(worst));
    rocsparse_destroy_spmat_descr(ell);
    rocsparse_destroy_mat_descr(ell_descr);
    HIP(hipFree(d_eval));
    HIP(hipFree(d_ecol));
  }

  // A lower triangular solve L y = alpha b, with its analysis; then a zero on the diagonal is found.
  const Csr l = lower_triangular(rng, 301);
  std::vector<double> b(l.m), want_y(l.m);
  for (double& v : b) v = u(rng);
  double worst_scale = 0;
  for (int r = 0; r < l.m; ++r) {  // forward substitution
    double s = alpha * b[r], mag = std::fabs(s);
    for (int k = l.row_ptr[r]; k < l.row_ptr[r + 1] - 1; ++k) {
      s -= l.val[k] * want_y[l.col[k]];
      mag += std::fabs(l.val[k] * want_y[l.col[k]]);
    }
    want_y[r] = s / l.val[l.row_ptr[r + 1] - 1];
    worst_scale = std::max(worst_scale, mag);
  }
  int* dl_ptr = upload(l.row_ptr);
  int* dl_col = upload(l.col);
  double* dl_val = upload(l.val);
  double* db = upload(b);
  double* dy = nullptr;
  HIP(hipMalloc(&dy, l.m * sizeof(double)));
  {
    rocsparse_mat_descr ld = nullptr;
    ROC(rocsparse_create_mat_descr(&ld));
    ROC(rocsparse_set_mat_fill_mode(ld, rocsparse_fill_mode_lower));
    rocsparse_mat_info info = nullptr;
    ROC(rocsparse_create_mat_info(&info));
    std::size_t bytes = 0;
    ROC(rocsparse_dcsrsv_buffer_size(h, rocsparse_operation_none, l.m, l.nnz(), ld, dl_val, dl_ptr, dl_col, info, &bytes));
    void* buffer = nullptr;
    HIP(hipMalloc(&buffer, std::max<std::size_t>(bytes, 4)));
    ROC(rocsparse_dcsrsv_analysis(h, rocsparse_operation_none, l.m, l.nnz(), ld, dl_val, dl_ptr, dl_col, info,
                                  rocsparse_analysis_policy_force, rocsparse_solve_policy_auto, buffer));
    ROC(rocsparse_dcsrsv_solve(h, rocsparse_operation_none, l.m, l.nnz(), &alpha, ld, dl_val, dl_ptr, dl_col, info, db, dy,
                               rocsparse_solve_policy_auto, buffer));
    rocsparse_int pivot = -2;
    check(rocsparse_csrsv_zero_pivot(h, ld, info, &pivot) == rocsparse_status_success && pivot == -1,
          "rocsparse_csrsv_zero_pivot: none (" + std::to_string(pivot) + ")");
    const std::vector<double> got = download(dy, l.m);
    double w = 0;
    for (int r = 0; r < l.m; ++r) w = std::max(w, std::fabs(got[r] - want_y[r]));
    check(w <= 1e-13 * worst_scale * l.m, "rocsparse_dcsrsv_solve: forward substitution" + worst_text(w / worst_scale));
    // Row 120's diagonal made 0: the analysis finds it, and the pivot names it.
    std::vector<double> broken = l.val;
    broken[l.row_ptr[121] - 1] = 0.0;
    HIP(hipMemcpy(dl_val, broken.data(), broken.size() * sizeof(double), hipMemcpyHostToDevice));
    rocsparse_mat_info info2 = nullptr;
    ROC(rocsparse_create_mat_info(&info2));
    ROC(rocsparse_dcsrsv_analysis(h, rocsparse_operation_none, l.m, l.nnz(), ld, dl_val, dl_ptr, dl_col, info2,
                                  rocsparse_analysis_policy_force, rocsparse_solve_policy_auto, buffer));
    ROC(rocsparse_dcsrsv_solve(h, rocsparse_operation_none, l.m, l.nnz(), &alpha, ld, dl_val, dl_ptr, dl_col, info2, db, dy,
                               rocsparse_solve_policy_auto, buffer));
    pivot = -2;
    const rocsparse_status s = rocsparse_csrsv_zero_pivot(h, ld, info2, &pivot);
    check(s == rocsparse_status_zero_pivot && pivot == 120,
          "rocsparse_csrsv_zero_pivot: row 120 (status " + std::to_string(int(s)) + ", " + std::to_string(pivot) + ")");
    HIP(hipMemcpy(dl_val, l.val.data(), l.val.size() * sizeof(double), hipMemcpyHostToDevice));
    rocsparse_destroy_mat_info(info);
    rocsparse_destroy_mat_info(info2);
    rocsparse_destroy_mat_descr(ld);
    HIP(hipFree(buffer));
  }

  // hipSPARSE over rocSPARSE: its generic SpMV (both CSR algorithms), csr2coo and csrsv2.
  {
    hipsparseHandle_t hh = nullptr;
    check(hipsparseCreate(&hh) == HIPSPARSE_STATUS_SUCCESS, "hipsparseCreate");
    hipsparseSpMatDescr_t m = nullptr;
    hipsparseCreateCsr(&m, a.m, a.n, a.nnz(), d_row_ptr, d_col, d_val, HIPSPARSE_INDEX_32I, HIPSPARSE_INDEX_32I,
                       HIPSPARSE_INDEX_BASE_ZERO, HIP_R_64F);
    for (auto [alg, name] : {std::pair{HIPSPARSE_CSRMV_ALG1, "ALG1"}, {HIPSPARSE_CSRMV_ALG2, "ALG2"}}) {
      double* dx = upload(x);
      double* dyy = upload(y0);
      hipsparseDnVecDescr_t vx = nullptr, vy = nullptr;
      hipsparseCreateDnVec(&vx, a.n, dx, HIP_R_64F);
      hipsparseCreateDnVec(&vy, a.m, dyy, HIP_R_64F);
      std::size_t bytes = 0;
      hipsparseSpMV_bufferSize(hh, HIPSPARSE_OPERATION_NON_TRANSPOSE, &alpha, m, vx, &beta, vy, HIP_R_64F, alg, &bytes);
      void* buffer = nullptr;
      HIP(hipMalloc(&buffer, std::max<std::size_t>(bytes, 4)));
      const hipsparseStatus_t s =
          hipsparseSpMV(hh, HIPSPARSE_OPERATION_NON_TRANSPOSE, &alpha, m, vx, &beta, vy, HIP_R_64F, alg, buffer);
      check(s == HIPSPARSE_STATUS_SUCCESS && close(download(dyy, kRows), want, scale, 1e-13, &worst),
            std::string("hipsparseSpMV CSRMV_") + name + worst_text(worst));
      hipsparseDestroyDnVec(vx);
      hipsparseDestroyDnVec(vy);
      HIP(hipFree(buffer));
      HIP(hipFree(dx));
      HIP(hipFree(dyy));
    }
    hipsparseDestroySpMat(m);
    HIP(hipMemset(d_coo_row, 0, a.nnz() * sizeof(int)));
    check(hipsparseXcsr2coo(hh, d_row_ptr, a.nnz(), a.m, d_coo_row, HIPSPARSE_INDEX_BASE_ZERO) == HIPSPARSE_STATUS_SUCCESS &&
              download(d_coo_row, a.nnz()) == want_rows,
          "hipsparseXcsr2coo: every entry's row");
    hipsparseMatDescr_t ld = nullptr;
    hipsparseCreateMatDescr(&ld);
    hipsparseSetMatFillMode(ld, HIPSPARSE_FILL_MODE_LOWER);
    csrsv2Info_t info = nullptr;
    hipsparseCreateCsrsv2Info(&info);
    int bytes = 0;
    hipsparseDcsrsv2_bufferSize(hh, HIPSPARSE_OPERATION_NON_TRANSPOSE, l.m, l.nnz(), ld, dl_val, dl_ptr, dl_col, info, &bytes);
    void* buffer = nullptr;
    HIP(hipMalloc(&buffer, std::max(bytes, 4)));
    HIP(hipMemset(dy, 0, l.m * sizeof(double)));
    const bool solved =
        hipsparseDcsrsv2_analysis(hh, HIPSPARSE_OPERATION_NON_TRANSPOSE, l.m, l.nnz(), ld, dl_val, dl_ptr, dl_col, info,
                                  HIPSPARSE_SOLVE_POLICY_USE_LEVEL, buffer) == HIPSPARSE_STATUS_SUCCESS &&
        hipsparseDcsrsv2_solve(hh, HIPSPARSE_OPERATION_NON_TRANSPOSE, l.m, l.nnz(), &alpha, ld, dl_val, dl_ptr, dl_col, info,
                               db, dy, HIPSPARSE_SOLVE_POLICY_USE_LEVEL, buffer) == HIPSPARSE_STATUS_SUCCESS;
    const std::vector<double> got = download(dy, l.m);
    double w = 0;
    for (int r = 0; r < l.m; ++r) w = std::max(w, std::fabs(got[r] - want_y[r]));
    check(solved && w <= 1e-13 * worst_scale * l.m, "hipsparseDcsrsv2_solve: forward substitution" + worst_text(w / worst_scale));
    HIP(hipFree(buffer));
    hipsparseDestroyCsrsv2Info(info);
    hipsparseDestroyMatDescr(ld);
    hipsparseDestroy(hh);
  }

  rocsparse_destroy_spmat_descr(csr);
  rocsparse_destroy_spmat_descr(coo);
  rocsparse_destroy_mat_descr(descr);
  rocsparse_destroy_handle(h);
  for (void* p : {static_cast<void*>(d_row_ptr), static_cast<void*>(d_col), static_cast<void*>(d_val),
                  static_cast<void*>(d_coo_row), static_cast<void*>(d_back), static_cast<void*>(dl_ptr),
                  static_cast<void*>(dl_col), static_cast<void*>(dl_val), static_cast<void*>(db), static_cast<void*>(dy)}) {
    HIP(hipFree(p));
  }
  return hip_checks::finish("rocsparse_test");
}
