// AMD's rocFFT and hipFFT, as Debian ships them (librocfft0 6.4 carries no kernels: it writes each
// one for the plan, compiles it at run time through hipRTC and comgr, in its helper process, and
// loads the code object), through their host APIs on the simulated GPU: 1D complex transforms of
// 64, 1000 and 4096 points forward and back, single and double, a batch, a 2D real-to-complex, a 3D
// complex, and hipFFT's 1D over rocFFT. Each against a DFT on the host in long double: the relative
// L2 error within a few units of the type's rounding times log2 of the size. No AMD number.
#include <hip/hip_runtime.h>
#include <hipfft/hipfft.h>
#include <rocfft/rocfft.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "hip_checks.hpp"

using hip_checks::check;

namespace {

bool ok(rocfft_status s, const char* what) {
  if (s == rocfft_status_success) return true;
  check(false, std::string(what) + ": rocfft_status " + std::to_string(int(s)));
  return false;
}
#define ROCFFT(x) ok((x), #x)

bool ok(hipfftResult s, const char* what) {
  if (s == HIPFFT_SUCCESS) return true;
  check(false, std::string(what) + ": hipfftResult " + std::to_string(int(s)));
  return false;
}
#define HIPFFT(x) ok((x), #x)

struct DeviceBuffer {
  void* p = nullptr;
  std::size_t bytes = 0;
  explicit DeviceBuffer(std::size_t n) : bytes(n) { HIP(hipMalloc(&p, std::max<std::size_t>(n, 1))); }
  ~DeviceBuffer() { (void)hipFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <class T>
  void put(const std::vector<T>& v) {
    HIP(hipMemcpy(p, v.data(), v.size() * sizeof(T), hipMemcpyHostToDevice));
  }
  template <class T>
  std::vector<T> get(std::size_t n) const {
    std::vector<T> v(n);
    HIP(hipMemcpy(v.data(), p, n * sizeof(T), hipMemcpyDeviceToHost));
    return v;
  }
};

using Ld = std::complex<long double>;

// The DFT over the axes of a row-major array whose last length varies fastest (rocFFT's lengths
// are given fastest first: reversed here), sign -1 forward, +1 backward, unscaled, as rocFFT.
std::vector<Ld> dft(std::vector<Ld> x, const std::vector<std::size_t>& fastest_first, int sign) {
  const std::size_t total = x.size();
  std::size_t stride = 1;
  for (const std::size_t n : fastest_first) {
    std::vector<Ld> twiddle(n);
    const long double pi = std::acos(-1.0L);
    for (std::size_t k = 0; k < n; ++k) twiddle[k] = std::polar(1.0L, sign * 2 * pi * (long double)k / (long double)n);
    std::vector<Ld> y(total);
    for (std::size_t base = 0; base < total; ++base) {
      if ((base / stride) % n != 0) continue;  // one line per starting point: index 0 on this axis
      for (std::size_t k = 0; k < n; ++k) {
        Ld s = 0;
        for (std::size_t j = 0; j < n; ++j) s += x[base + j * stride] * twiddle[(j * k) % n];
        y[base + k * stride] = s;
      }
    }
    x = std::move(y);
    stride *= n;
  }
  return x;
}

template <class T>
std::vector<std::complex<T>> random_complex(std::mt19937& rng, std::size_t n) {
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<std::complex<T>> v(n);
  for (auto& c : v) c = {T(d(rng)), T(d(rng))};
  return v;
}

template <class T>
std::vector<Ld> widen(const std::vector<std::complex<T>>& v) {
  std::vector<Ld> w(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) w[i] = {v[i].real(), v[i].imag()};
  return w;
}

// ||got - want||_2 / ||want||_2 in units of the type's epsilon times log2 of the transform's size.
template <class T>
double error_units(const std::vector<std::complex<T>>& got, const std::vector<Ld>& want, std::size_t size) {
  long double diff = 0, norm = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    diff += std::norm(Ld(got[i].real(), got[i].imag()) - want[i]);
    norm += std::norm(want[i]);
  }
  const double rel = double(std::sqrt(diff / norm));
  return rel / (std::numeric_limits<T>::epsilon() * std::max(1.0, std::log2(double(size))));
}

constexpr double kBound = 5.0;  // units of eps log2(n); rocFFT's own tests allow more

template <class T>
rocfft_precision precision() {
  return sizeof(T) == 4 ? rocfft_precision_single : rocfft_precision_double;
}

// One plan, executed: out-of-place, work buffer as the plan asks.
bool execute(rocfft_transform_type type, rocfft_precision p, const std::vector<std::size_t>& lengths, std::size_t batch,
             void* in, void* out) {
  rocfft_plan plan = nullptr;
  if (!ROCFFT(rocfft_plan_create(&plan, rocfft_placement_notinplace, type, p, lengths.size(), lengths.data(), batch,
                                 nullptr))) {
    return false;
  }
  std::size_t work_bytes = 0;
  rocfft_execution_info info = nullptr;
  bool done = ROCFFT(rocfft_plan_get_work_buffer_size(plan, &work_bytes)) && ROCFFT(rocfft_execution_info_create(&info));
  DeviceBuffer work(work_bytes);
  if (done && work_bytes) done = ROCFFT(rocfft_execution_info_set_work_buffer(info, work.p, work_bytes));
  void* ins[] = {in};
  void* outs[] = {out};
  if (done) done = ROCFFT(rocfft_execute(plan, ins, outs, info)) && HIP(hipDeviceSynchronize());
  if (info) rocfft_execution_info_destroy(info);
  rocfft_plan_destroy(plan);
  return done;
}

// Complex forward of `batch` transforms, then backward of the result: the forward against the host
// DFT, the round trip against n times the input.
template <class T>
void complex_transform(std::mt19937& rng, const char* type, const std::vector<std::size_t>& lengths, std::size_t batch) {
  const std::size_t size = std::accumulate(lengths.begin(), lengths.end(), std::size_t(1), std::multiplies<>());
  const auto x = random_complex<T>(rng, size * batch);
  DeviceBuffer in(x.size() * sizeof(x[0])), out(x.size() * sizeof(x[0])), back(x.size() * sizeof(x[0]));
  in.put(x);
  std::string what = std::string(type) + " complex";
  for (const std::size_t n : lengths) what += " " + std::to_string(n);
  if (batch > 1) what += " x" + std::to_string(batch);
  if (!execute(rocfft_transform_type_complex_forward, precision<T>(), lengths, batch, in.p, out.p)) return;
  const auto got = out.template get<std::complex<T>>(x.size());
  double worst = 0;
  for (std::size_t b = 0; b < batch; ++b) {
    const std::vector<std::complex<T>> one(x.begin() + b * size, x.begin() + (b + 1) * size);
    const std::vector<std::complex<T>> mine(got.begin() + b * size, got.begin() + (b + 1) * size);
    worst = std::max(worst, error_units(mine, dft(widen(one), lengths, -1), size));
  }
  check(worst <= kBound, what + " forward: error " + std::to_string(worst) + " eps log2(n)");
  if (!execute(rocfft_transform_type_complex_inverse, precision<T>(), lengths, batch, out.p, back.p)) return;
  const auto round = back.template get<std::complex<T>>(x.size());
  std::vector<Ld> scaled = widen(x);
  for (auto& c : scaled) c *= (long double)size;
  const double e = error_units(round, scaled, size);
  check(e <= 2 * kBound, what + " back again: error " + std::to_string(e) + " eps log2(n)");
}

// 2D real to complex: the Hermitian half of each row (the fastest axis), nx/2+1 values.
template <class T>
void real_2d(std::mt19937& rng, const char* type, std::size_t nx, std::size_t ny) {
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<T> x(nx * ny);
  for (auto& v : x) v = T(d(rng));
  const std::size_t half = nx / 2 + 1;
  DeviceBuffer in(x.size() * sizeof(T)), out(half * ny * sizeof(std::complex<T>));
  in.put(x);
  const std::string what = std::string(type) + " real-to-complex " + std::to_string(nx) + "x" + std::to_string(ny);
  if (!execute(rocfft_transform_type_real_forward, precision<T>(), {nx, ny}, 1, in.p, out.p)) return;
  const auto got = out.template get<std::complex<T>>(half * ny);
  std::vector<Ld> wide(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) wide[i] = x[i];
  const auto full = dft(wide, {nx, ny}, -1);
  std::vector<Ld> want(half * ny);
  for (std::size_t r = 0; r < ny; ++r)
    for (std::size_t c = 0; c < half; ++c) want[r * half + c] = full[r * nx + c];
  const double e = error_units(got, want, nx * ny);
  check(e <= kBound, what + ": error " + std::to_string(e) + " eps log2(n)");
}

void hipfft_1d(std::mt19937& rng, int n) {
  const auto x = random_complex<float>(rng, std::size_t(n));
  DeviceBuffer in(x.size() * sizeof(x[0])), out(x.size() * sizeof(x[0]));
  in.put(x);
  hipfftHandle plan = nullptr;
  const std::string what = "hipfftExecC2C " + std::to_string(n);
  if (!HIPFFT(hipfftPlan1d(&plan, n, HIPFFT_C2C, 1))) return;
  const bool done = HIPFFT(hipfftExecC2C(plan, static_cast<hipfftComplex*>(in.p), static_cast<hipfftComplex*>(out.p),
                                         HIPFFT_FORWARD)) &&
                    HIP(hipDeviceSynchronize());
  HIPFFT(hipfftDestroy(plan));
  if (!done) return;
  const double e = error_units(out.get<std::complex<float>>(x.size()), dft(widen(x), {std::size_t(n)}, -1), n);
  check(e <= kBound, what + ": error " + std::to_string(e) + " eps log2(n)");
}

// What rocFFT refuses by name: four dimensions (it does one to three). (Asked for none, rocFFT 6.4
// dereferences the missing lengths and ends the process.)
void refusals() {
  rocfft_plan plan = nullptr;
  const std::size_t lengths[4] = {4, 4, 4, 4};
  const rocfft_status s = rocfft_plan_create(&plan, rocfft_placement_notinplace, rocfft_transform_type_complex_forward,
                                             rocfft_precision_single, 4, lengths, 1, nullptr);
  check(s == rocfft_status_invalid_dimensions,
        "rocfft_plan_create of 4 dimensions: rocfft_status " + std::to_string(int(s)) + " (invalid_dimensions)");
  if (s == rocfft_status_success) rocfft_plan_destroy(plan);
}

}  // namespace

int main() {
  if (!ROCFFT(rocfft_setup())) return hip_checks::finish("rocfft_test");
  std::mt19937 rng(27112026);
  for (const std::size_t n : {64, 1000, 4096}) complex_transform<float>(rng, "single", {n}, 1);
  complex_transform<double>(rng, "double", {1000}, 1);
  complex_transform<float>(rng, "single", {64}, 5);
  real_2d<float>(rng, "single", 30, 24);
  complex_transform<float>(rng, "single", {8, 12, 10}, 1);
  hipfft_1d(rng, 1000);
  refusals();
  ROCFFT(rocfft_cleanup());
  return hip_checks::finish("rocfft_test");
}
