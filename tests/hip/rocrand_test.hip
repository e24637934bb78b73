// AMD's rocRAND and hipRAND, as Debian ships them (librocrand1, libhiprand1: code objects for
// gfx90a, gfx908 and gfx1030 inside), through their host APIs on the simulated GPU: every
// generator type with every distribution it offers, each checked by its statistics, and each
// output's hash printed ("hash GENERATOR DISTRIBUTION 0x...") so that the three targets can be
// compared for the same seed (rocrand_cross_target.cmake). hipRAND's generators must give
// rocRAND's numbers. No AMD number: the simulated GPU runs the libraries' machine code.
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
#include <hiprand/hiprand.h>
#include <rocrand/rocrand.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "hip_checks.hpp"

using hip_checks::check;

namespace {
constexpr std::size_t kN = 4096;  // values per generator and distribution: the interpreter runs them all
constexpr unsigned long long kSeed = 20261125;

struct Generator {
  const char* name;
  rocrand_rng_type type;
  hiprandRngType_t hip;
  bool quasi;
};
const Generator kGenerators[] = {
    {"xorwow", ROCRAND_RNG_PSEUDO_XORWOW, HIPRAND_RNG_PSEUDO_XORWOW, false},
    {"mrg32k3a", ROCRAND_RNG_PSEUDO_MRG32K3A, HIPRAND_RNG_PSEUDO_MRG32K3A, false},
    {"mtgp32", ROCRAND_RNG_PSEUDO_MTGP32, HIPRAND_RNG_PSEUDO_MTGP32, false},
    {"philox4x32_10", ROCRAND_RNG_PSEUDO_PHILOX4_32_10, HIPRAND_RNG_PSEUDO_PHILOX4_32_10, false},
    {"sobol32", ROCRAND_RNG_QUASI_SOBOL32, HIPRAND_RNG_QUASI_SOBOL32, true},
};

std::uint64_t fnv(const void* p, std::size_t bytes) {
  std::uint64_t h = 1469598103934665603ull;
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < bytes; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

struct Moments {
  double mean = 0, var = 0, min = 1e300, max = -1e300;
};
template <class F>
Moments moments(std::size_t n, F value) {
  Moments m;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = value(i);
    m.mean += v;
    m.min = std::fmin(m.min, v);
    m.max = std::fmax(m.max, v);
  }
  m.mean /= double(n);
  for (std::size_t i = 0; i < n; ++i) m.var += (value(i) - m.mean) * (value(i) - m.mean);
  m.var /= double(n - 1);
  return m;
}

bool near(double got, double want, double tol) { return std::fabs(got - want) <= tol; }

std::string stats(const Moments& m) {
  char b[160];
  std::snprintf(b, sizeof b, "mean %.4f var %.4f range [%.4g, %.4g]", m.mean, m.var, m.min, m.max);
  return b;
}

// One distribution of one generator: generate kN values of `bytes_each` into device memory, copy
// them back, print their hash, check them with `ok` (their moments, given each value as a double).
struct Run {
  const char* distribution;
  std::size_t bytes_each;
  std::function<rocrand_status(rocrand_generator, void*)> generate;
  std::function<double(const std::vector<unsigned char>&, std::size_t)> value;
  std::function<bool(const Moments&)> ok;
};

float half_to_float(const std::vector<unsigned char>& b, std::size_t i) {
  __half h;
  std::memcpy(&h, b.data() + 2 * i, 2);
  return __half2float(h);
}
template <class T>
double as(const std::vector<unsigned char>& b, std::size_t i) {
  T v;
  std::memcpy(&v, b.data() + sizeof(T) * i, sizeof(T));
  return double(v);
}

std::vector<Run> runs() {
  const auto in01 = [](const Moments& m) {  // a uniform distribution on (0, 1]
    return near(m.mean, 0.5, 0.03) && near(m.var, 1.0 / 12, 0.01) && m.min > 0 && m.max <= 1;
  };
  const auto bits01 = [](double scale) {  // integers spread over their type's range
    return [scale](const Moments& m) { return near(m.mean / scale, 0.5, 0.03) && near(m.var / (scale * scale), 1.0 / 12, 0.01); };
  };
  const auto normal = [](double tol) {  // mean 1, standard deviation 2
    return [tol](const Moments& m) { return near(m.mean, 1.0, 0.15 + tol) && near(std::sqrt(m.var), 2.0, 0.15 + tol); };
  };
  const auto log_normal = [](const Moments& m) {  // exp(N(0, 0.5)): mean e^0.125, variance (e^0.25 - 1) e^0.25
    return near(m.mean, std::exp(0.125), 0.05) && near(m.var, (std::exp(0.25) - 1) * std::exp(0.25), 0.08) && m.min > 0;
  };
  return {
      {"uint", 4, [](rocrand_generator g, void* d) { return rocrand_generate(g, static_cast<unsigned*>(d), kN); },
       as<unsigned>, bits01(4294967296.0)},
      {"uchar", 1, [](rocrand_generator g, void* d) { return rocrand_generate_char(g, static_cast<unsigned char*>(d), kN); },
       as<unsigned char>, bits01(256.0)},
      {"ushort", 2, [](rocrand_generator g, void* d) { return rocrand_generate_short(g, static_cast<unsigned short*>(d), kN); },
       as<unsigned short>, bits01(65536.0)},
      {"uniform", 4, [](rocrand_generator g, void* d) { return rocrand_generate_uniform(g, static_cast<float*>(d), kN); },
       as<float>, in01},
      {"uniform_double", 8,
       [](rocrand_generator g, void* d) { return rocrand_generate_uniform_double(g, static_cast<double*>(d), kN); }, as<double>,
       in01},
      {"uniform_half", 2,
       [](rocrand_generator g, void* d) { return rocrand_generate_uniform_half(g, static_cast<half*>(d), kN); }, half_to_float,
       in01},
      {"normal", 4, [](rocrand_generator g, void* d) { return rocrand_generate_normal(g, static_cast<float*>(d), kN, 1.f, 2.f); },
       as<float>, normal(0)},
      {"normal_double", 8,
       [](rocrand_generator g, void* d) { return rocrand_generate_normal_double(g, static_cast<double*>(d), kN, 1.0, 2.0); },
       as<double>, normal(0)},
      {"normal_half", 2,
       [](rocrand_generator g, void* d) {
         return rocrand_generate_normal_half(g, static_cast<half*>(d), kN, __float2half(1.f), __float2half(2.f));
       },
       half_to_float, normal(0.05)},
      {"log_normal", 4,
       [](rocrand_generator g, void* d) { return rocrand_generate_log_normal(g, static_cast<float*>(d), kN, 0.f, 0.5f); },
       as<float>, log_normal},
      {"log_normal_double", 8,
       [](rocrand_generator g, void* d) { return rocrand_generate_log_normal_double(g, static_cast<double*>(d), kN, 0.0, 0.5); },
       as<double>, log_normal},
      {"log_normal_half", 2,
       [](rocrand_generator g, void* d) {
         return rocrand_generate_log_normal_half(g, static_cast<half*>(d), kN, __float2half(0.f), __float2half(0.5f));
       },
       half_to_float, log_normal},
      {"poisson", 4, [](rocrand_generator g, void* d) { return rocrand_generate_poisson(g, static_cast<unsigned*>(d), kN, 10.0); },
       as<unsigned>, [](const Moments& m) { return near(m.mean, 10.0, 0.4) && near(m.var, 10.0, 1.5); }},
  };
}

void make(const Generator& gen, rocrand_generator* g) {
  check(rocrand_create_generator(g, gen.type) == ROCRAND_STATUS_SUCCESS, std::string("rocrand_create_generator ") + gen.name);
  if (!gen.quasi) rocrand_set_seed(*g, kSeed);
}
}  // namespace

int main() {
  void* d = nullptr;
  if (!HIP(hipMalloc(&d, kN * 8))) return hip_checks::finish("rocrand_test");
  std::vector<unsigned char> host(kN * 8);
  for (const Generator& gen : kGenerators) {
    // One generator per type, its distributions in turn: making one sets up its states (a
    // skip-ahead per state for XORWOW), the longest kernel of all under the interpreter.
    rocrand_generator g = nullptr;
    make(gen, &g);
    for (const Run& r : runs()) {
      const rocrand_status s = r.generate(g, d);
      const std::string what = std::string(gen.name) + " " + r.distribution;
      if (s == ROCRAND_STATUS_TYPE_ERROR) {
        std::printf("skip %s: the library does not offer it (status %d)\n", what.c_str(), int(s));
        continue;
      }
      if (!HIP(hipDeviceSynchronize())) continue;
      check(s == ROCRAND_STATUS_SUCCESS, what + ": generated (status " + std::to_string(int(s)) + ")");
      if (!HIP(hipMemcpy(host.data(), d, kN * r.bytes_each, hipMemcpyDeviceToHost))) continue;
      std::printf("hash %s %s 0x%016llx\n", gen.name, r.distribution,
                  static_cast<unsigned long long>(fnv(host.data(), kN * r.bytes_each)));
      // The half-precision normals come from Box-Muller pairs whose sine half is NaN whatever
      // the input: Debian's rocm-device-libs 5.2.3 (ocml.bc) compiles __ocml_sin_f16 to
      // select(class(|x|, finite), NaN, s), so every finite argument gives NaN (cos is right).
      // That is the machine code's own answer, which an AMD GPU running it gives too: counted
      // exactly (every even value), the odd values checked as the distribution. rocRAND 3 (ROCm 6,
      // Debian sid's 6.4.3) was built with device libraries whose sine is right: no NaN there.
      std::size_t nans = 0, nans_at_even = 0;
      std::vector<double> values;
      for (std::size_t i = 0; i < kN; ++i) {
        const double v = r.value(host, i);
        if (std::isnan(v)) ++nans, nans_at_even += i % 2 == 0;
        else values.push_back(v);
      }
      const bool sin_f16_broken = ROCRAND_VERSION < 300000 && !gen.quasi &&
                                  std::strstr(r.distribution, "normal_half") != nullptr;  // quasi: erfinv
      if (sin_f16_broken) {
        check(nans == kN / 2 && nans_at_even == kN / 2,
              what + ": " + std::to_string(nans) + " NaN, all of them sine halves (ocml's sin_f16)");
      } else {
        check(nans == 0, what + ": no NaN (" + std::to_string(nans) + ")");
      }
      const Moments m = moments(values.size(), [&](std::size_t i) { return values[i]; });
      check(r.ok(m), what + ": " + stats(m));
    }
    rocrand_destroy_generator(g);
  }
  // hipRAND over rocRAND: the same generator and seed give the same numbers.
  std::vector<unsigned char> other(kN * 4);
  for (const Generator& gen : kGenerators) {
    rocrand_generator g = nullptr;
    make(gen, &g);
    rocrand_generate_uniform(g, static_cast<float*>(d), kN);
    rocrand_destroy_generator(g);
    HIP(hipMemcpy(host.data(), d, kN * 4, hipMemcpyDeviceToHost));
    hiprandGenerator_t h = nullptr;
    check(hiprandCreateGenerator(&h, gen.hip) == HIPRAND_STATUS_SUCCESS, std::string("hiprandCreateGenerator ") + gen.name);
    if (!gen.quasi) hiprandSetPseudoRandomGeneratorSeed(h, kSeed);
    const hiprandStatus_t s = hiprandGenerateUniform(h, static_cast<float*>(d), kN);
    hiprandDestroyGenerator(h);
    HIP(hipMemcpy(other.data(), d, kN * 4, hipMemcpyDeviceToHost));
    check(s == HIPRAND_STATUS_SUCCESS && std::memcmp(host.data(), other.data(), kN * 4) == 0,
          std::string("hipRAND ") + gen.name + " uniform: rocRAND's numbers");
  }
  HIP(hipFree(d));
  return hip_checks::finish("rocrand_test");
}
