// The reference laplacian-bench --peers measures the project's kernels against, on the same GPU
// in the same run: the lab notes' Kernel 5 written straight for nvcc, as a CUDA user would write
// it (256x1x1 work-groups, m = 8, __launch_bounds__(256), size_t indices, streaming stores), the
// same kernel launched once per y-subdomain (the lab notes' Kernel 7 split), and in Kernel 6's
// order of work-groups. Launched through the vendor's runtime on its own stream, one
// synchronization per batch; built by nvcc and, as its HIP twin, by hipcc (vendor_runtime.hpp).
#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "vendor_plain.hpp"
#include "vendor_runtime.hpp"

namespace hsad::bench {
namespace {

constexpr int kM = 8;        // rows of y per work-item
constexpr int kBlock = 256;  // work-items per group, all in x

// Rows [sy, ey) of the grid (sy and the grid's ny multiples of kM: every tile is whole). K6: the
// lab notes' Kernel 6 order of work-groups, (blockIdx.x, y, z) to (y, z, x).
template <bool K6>
__global__ void __launch_bounds__(kBlock)
    plain_laplacian(double* f, const double* u, int nx, int ny, int nz, double invhx2, double invhy2, double invhz2,
                    double invhxyz2, int sy, int ey) {
  const int i = threadIdx.x + (K6 ? blockIdx.z : blockIdx.x) * blockDim.x;
  const int j = sy + kM * (threadIdx.y + (K6 ? blockIdx.x : blockIdx.y) * blockDim.y);
  const int k = threadIdx.z + (K6 ? blockIdx.y : blockIdx.z) * blockDim.z;
  if (i == 0 || i >= nx - 1 || k == 0 || k >= nz - 1 || j >= ey) return;
  const size_t slice = size_t(nx) * size_t(ny);
  const size_t pos = size_t(i) + size_t(nx) * size_t(j) + slice * size_t(k);
  double lu[kM] = {};
#pragma unroll
  for (int n = 0; n < kM; ++n) lu[n] += u[pos - slice + size_t(n) * nx] * invhz2;
  if (j > 0) lu[0] += u[pos - nx] * invhy2;
#pragma unroll
  for (int n = 0; n < kM; ++n) {
    const size_t p = pos + size_t(n) * nx;
    const double c = u[p];
    lu[n] += u[p - 1] * invhx2;
    lu[n] += c * invhxyz2;
    lu[n] += u[p + 1] * invhx2;
    if (n > 0) lu[n - 1] += c * invhy2;
    if (n < kM - 1) lu[n + 1] += c * invhy2;
  }
  if (j + kM < ny) lu[kM - 1] += u[pos + size_t(kM) * nx] * invhy2;
#pragma unroll
  for (int n = 0; n < kM; ++n) lu[n] += u[pos + slice + size_t(n) * nx] * invhz2;
#pragma unroll
  for (int n = 0; n < kM; ++n) {
    const int y = j + n;
    if (y > 0 && y < ny - 1 && y < ey) store_streaming(&f[pos + size_t(n) * nx], lu[n]);
  }
}

// The input: values that vary from point to point, as the project's workload uploads (not zeros,
// so that nothing the memory system might do with uniform data flatters the peer).
__global__ void fill(double* u, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    u[i] = double((i * 2654435761u) % 1000003u) * 1e-6;
}


// The peer's device memory and stream, released on every path out (a failed launch throws).
struct DeviceDoubles {
  double* p = nullptr;
  explicit DeviceDoubles(size_t n) {
    vendor_check(cudaMalloc(&p, n * sizeof(double)), "cudaMalloc");
    vendor_check(cudaMemset(p, 0, n * sizeof(double)), "cudaMemset");
  }
  ~DeviceDoubles() { vendor_release(cudaFree(p), "cudaFree"); }
  DeviceDoubles(const DeviceDoubles&) = delete;
  DeviceDoubles& operator=(const DeviceDoubles&) = delete;
};

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { vendor_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~Stream() { vendor_release(cudaStreamDestroy(s), "cudaStreamDestroy"); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::vector<PlainResult> run_plain(const PlainGrid& g, const std::vector<int>& splits, int iters, int reps) {
  if (g.ny % kM != 0) throw std::runtime_error("the plain kernel needs ny a multiple of 8");
  const size_t points = size_t(g.nx) * g.ny * g.nz;
  DeviceDoubles u(points), f(points);
  Stream stream;
  fill<<<1024, 256, 0, stream.s>>>(u.p, points);
  std::vector<PlainResult> out;
  auto measure = [&](auto&& apply) {
    auto batch = [&] {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < iters; ++i) apply();
      vendor_check(cudaStreamSynchronize(stream.s), "cudaStreamSynchronize");
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    batch();  // warm-up
    vendor_check(cudaGetLastError(), "plain_laplacian");
    std::vector<double> s;
    for (int r = 0; r < reps; ++r) s.push_back(batch());
    return median(s) / iters;
  };
  const int tiles = g.ny / kM, x_groups = (g.nx + kBlock - 1) / kBlock;
  for (int split : splits) {
    // Subdomains of whole tiles, swept in order as the lab notes' Kernel 7 launches them.
    const int per = std::max(1, (tiles + split - 1) / split);
    const double seconds = measure([&] {
      for (int t = 0; t < tiles; t += per) {
        const int sy = t * kM, ey = std::min(g.ny, (t + per) * kM);
        const dim3 grid(x_groups, (ey - sy + kM - 1) / kM, g.nz);
        plain_laplacian<false><<<grid, dim3(kBlock), 0, stream.s>>>(f.p, u.p, g.nx, g.ny, g.nz, g.invhx2, g.invhy2,
                                                                   g.invhz2, g.invhxyz2, sy, ey);
      }
    });
    out.push_back({split == 1 ? 5 : 7, split, seconds});
  }
  const double k6 = measure([&] {
    plain_laplacian<true><<<dim3(tiles, g.nz, x_groups), dim3(kBlock), 0, stream.s>>>(
        f.p, u.p, g.nx, g.ny, g.nz, g.invhx2, g.invhy2, g.invhz2, g.invhxyz2, 0, g.ny);
  });
  out.push_back({6, 1, k6});
  return out;
}
}  // namespace

#if defined(__HIPCC__)
}  // namespace hsad::bench

extern "C" __attribute__((visibility("default"))) int hsad_hip_plain_laplacian(
    const hsad::bench::PlainGrid* g, const std::vector<int>* splits, int iters, int reps,
    std::vector<hsad::bench::PlainResult>* out, std::string* why) {
  try {
    *out = hsad::bench::run_plain(*g, *splits, iters, reps);
    return 0;
  } catch (const std::exception& e) {
    *why = e.what();
    return 1;
  }
}
#else
std::vector<PlainResult> run_plain_laplacian(const PlainGrid& g, const std::vector<int>& splits, int iters, int reps) {
  return run_plain(g, splits, iters, reps);
}

}  // namespace hsad::bench
#endif
