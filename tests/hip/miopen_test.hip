// AMD's MIOpen, as Debian ships it (libmiopen1 6.4: its kernels are compiled at run time, through
// comgr), through its host API on the simulated GPU: a 2D convolution forward in float (NCHW), at
// odd sizes with padding, with a stride and with dilation, each by every algorithm MIOpen's find
// step returns, against a direct convolution on the host in double. No AMD number.
#include <hip/hip_runtime.h>
#include <miopen/miopen.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "hip_checks.hpp"

using hip_checks::check;

namespace {

bool ok(miopenStatus_t s, const char* what) {
  if (s == miopenStatusSuccess) return true;
  check(false, std::string(what) + ": " + miopenGetErrorString(s));
  return false;
}
#define MIOPEN(x) ok((x), #x)

struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(std::size_t bytes) { HIP(hipMalloc(&p, std::max<std::size_t>(bytes, 4))); }
  ~DeviceBuffer() { (void)hipFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

struct Tensor {
  miopenTensorDescriptor_t d = nullptr;
  Tensor(int n, int c, int h, int w) {
    MIOPEN(miopenCreateTensorDescriptor(&d));
    MIOPEN(miopenSet4dTensorDescriptor(d, miopenFloat, n, c, h, w));
  }
  ~Tensor() { miopenDestroyTensorDescriptor(d); }
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
};

struct Shape {
  int n, c, h, w, k, r, s, pad, stride, dilation;
  std::string name() const {
    return "N" + std::to_string(n) + " C" + std::to_string(c) + " " + std::to_string(h) + "x" + std::to_string(w) + " K" +
           std::to_string(k) + " " + std::to_string(r) + "x" + std::to_string(s) + " pad " + std::to_string(pad) +
           " stride " + std::to_string(stride) + " dilation " + std::to_string(dilation);
  }
};

// y[n][k][p][q] = sum over c, r, s of x[n][c][p*stride - pad + r*dilation][q*stride - pad + s*dilation] w[k][c][r][s]
void host_conv(const Shape& z, int oh, int ow, const std::vector<float>& x, const std::vector<float>& w, std::vector<double>& y,
               std::vector<double>& mag) {
  y.assign(std::size_t(z.n) * z.k * oh * ow, 0);
  mag.assign(y.size(), 0);
  for (int n = 0; n < z.n; ++n)
    for (int k = 0; k < z.k; ++k)
      for (int p = 0; p < oh; ++p)
        for (int q = 0; q < ow; ++q) {
          double sum = 0, m = 0;
          for (int c = 0; c < z.c; ++c)
            for (int r = 0; r < z.r; ++r)
              for (int s = 0; s < z.s; ++s) {
                const int ih = p * z.stride - z.pad + r * z.dilation, iw = q * z.stride - z.pad + s * z.dilation;
                if (ih < 0 || ih >= z.h || iw < 0 || iw >= z.w) continue;
                const double t = double(x[((std::size_t(n) * z.c + c) * z.h + ih) * z.w + iw]) *
                                 double(w[((std::size_t(k) * z.c + c) * z.r + r) * z.s + s]);
                sum += t;
                m += std::fabs(t);
              }
          const std::size_t o = ((std::size_t(n) * z.k + k) * oh + p) * ow + q;
          y[o] = sum;
          mag[o] = m;
        }
}

const char* algo_name(miopenConvFwdAlgorithm_t a) {
  switch (a) {
    case miopenConvolutionFwdAlgoGEMM: return "GEMM";
    case miopenConvolutionFwdAlgoDirect: return "Direct";
    case miopenConvolutionFwdAlgoFFT: return "FFT";
    case miopenConvolutionFwdAlgoWinograd: return "Winograd";
    case miopenConvolutionFwdAlgoImplicitGEMM: return "ImplicitGEMM";
    default: return "other";
  }
}

void convolution(miopenHandle_t h, std::mt19937& rng, const Shape& z) {
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> x(std::size_t(z.n) * z.c * z.h * z.w), w(std::size_t(z.k) * z.c * z.r * z.s);
  for (auto& v : x) v = d(rng);
  for (auto& v : w) v = d(rng);
  Tensor xd(z.n, z.c, z.h, z.w), wd(z.k, z.c, z.r, z.s);
  miopenConvolutionDescriptor_t conv = nullptr;
  if (!MIOPEN(miopenCreateConvolutionDescriptor(&conv))) return;
  int on = 0, oc = 0, oh = 0, ow = 0;
  const bool described =
      MIOPEN(miopenInitConvolutionDescriptor(conv, miopenConvolution, z.pad, z.pad, z.stride, z.stride, z.dilation, z.dilation)) &&
      MIOPEN(miopenGetConvolutionForwardOutputDim(conv, xd.d, wd.d, &on, &oc, &oh, &ow));
  if (!described) {
    miopenDestroyConvolutionDescriptor(conv);
    return;
  }
  Tensor yd(on, oc, oh, ow);
  std::vector<double> want, mag;
  host_conv(z, oh, ow, x, w, want, mag);
  DeviceBuffer dx(x.size() * 4), dw(w.size() * 4), dy(want.size() * 4);
  HIP(hipMemcpy(dx.p, x.data(), x.size() * 4, hipMemcpyHostToDevice));
  HIP(hipMemcpy(dw.p, w.data(), w.size() * 4, hipMemcpyHostToDevice));
  std::size_t ws = 0;
  MIOPEN(miopenConvolutionForwardGetWorkSpaceSize(h, wd.d, xd.d, conv, yd.d, &ws));
  DeviceBuffer work(ws);
  miopenConvAlgoPerf_t perf[8];
  int found = 0;
  if (MIOPEN(miopenFindConvolutionForwardAlgorithm(h, xd.d, dx.p, wd.d, dw.p, conv, yd.d, dy.p, 8, &found, perf, work.p, ws,
                                                   false))) {
    check(found > 0, z.name() + ": MIOpen found " + std::to_string(found) + " algorithms");
    for (int i = 0; i < found; ++i) {
      const float alpha = 1.0f, beta = 0.0f;
      HIP(hipMemset(dy.p, 0xff, want.size() * 4));  // NaN: a result never written shows
      if (!MIOPEN(miopenConvolutionForward(h, &alpha, xd.d, dx.p, wd.d, dw.p, conv, perf[i].fwd_algo, &beta, yd.d, dy.p, work.p,
                                           ws)) ||
          !HIP(hipDeviceSynchronize())) {
        continue;
      }
      std::vector<float> got(want.size());
      HIP(hipMemcpy(got.data(), dy.p, got.size() * 4, hipMemcpyDeviceToHost));
      // Each output within the classical bound of a sum of C*R*S products in float (terms times
      // epsilon times the sum of their magnitudes), four times over for the FFT and Winograd
      // algorithms' transforms.
      const double terms = double(z.c) * z.r * z.s;
      std::size_t bad = 0, first = 0;
      for (std::size_t o = 0; o < got.size(); ++o) {
        const bool close = std::fabs(double(got[o]) - want[o]) <= 4 * terms * 1.19e-7 * mag[o];
        if (!close && bad++ == 0) first = o;
      }
      check(bad == 0, z.name() + ", " + algo_name(perf[i].fwd_algo) + ": " + std::to_string(got.size() - bad) + " of " +
                          std::to_string(got.size()) + " outputs" +
                          (bad ? " (first wrong: " + std::to_string(first) + " = " + std::to_string(got[first]) + ", want " +
                                     std::to_string(want[first]) + ")"
                               : ""));
    }
  }
  miopenDestroyConvolutionDescriptor(conv);
}

}  // namespace

int main() {
  miopenHandle_t h = nullptr;
  if (!MIOPEN(miopenCreate(&h))) return hip_checks::finish("miopen_test");
  std::mt19937 rng(2711);
  convolution(h, rng, {2, 3, 13, 11, 4, 3, 3, 1, 1, 1});
  convolution(h, rng, {1, 5, 17, 16, 6, 3, 3, 1, 2, 1});
  convolution(h, rng, {1, 4, 12, 12, 3, 3, 3, 2, 1, 2});
  MIOPEN(miopenDestroy(h));
  return hip_checks::finish("miopen_test");
}
