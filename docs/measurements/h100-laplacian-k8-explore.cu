// The standalone program that explored Kernel 8 on the H100 (docs/measurements/h100-laplacian-k8-2026-11-22.txt):
// chunks of M planes walked in sub-steps of S planes (S = 1: the plain per-plane loop that the library
// keeps), load styles, the grouped order, a 3-D against a flat grid, early launch. Not built by CMake.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)

struct Args { double* __restrict__ f; const double* u; int nx, ny, nz; double ihx, ihy, ihz, ihc; int M; int grouped; int G; };

template <int S, int STYLE, int U = 1, int P = 0, int G3 = 0>
__global__ void __launch_bounds__(256) k8(Args a) {
  if (P) { asm volatile("griddepcontrol.wait;" ::: "memory"); asm volatile("griddepcontrol.launch_dependents;" :::); }
  const unsigned bx = blockDim.x, by = blockDim.y;
  const unsigned tiles_x = (a.nx + bx - 1) / bx, tiles_y = (a.ny + by - 1) / by;
  const unsigned chunks = (unsigned(a.nz - 2) + a.M - 1) / a.M;
  unsigned r = blockIdx.x;
  unsigned tx = r % tiles_x; r /= tiles_x;
  unsigned ty, chunk;
  if (G3) { tx = blockIdx.x; ty = blockIdx.y; chunk = blockIdx.z; }
  else if (a.grouped) { unsigned g = r % a.G; r /= a.G; ty = r % tiles_y; chunk = (r / tiles_y) * a.G + g; }
  else { ty = r % tiles_y; chunk = r / tiles_y; }
  const int i = tx * bx + threadIdx.x, j = ty * by + threadIdx.y;
  const int nx = a.nx, ny = a.ny, nz = a.nz;
  if (chunk >= chunks) return;
  const int k0 = 1 + a.M * chunk;
  if (i == 0 || i >= nx - 1 || j == 0 || j >= ny - 1) return;
  const int kend = min(k0 + a.M, nz - 1);
  const size_t slice = size_t(nx) * ny;
  size_t pos = size_t(i) + size_t(nx) * j + slice * k0;
  const double* __restrict__ u = a.u;
  int k = k0;
  double c0 = u[pos - slice], c1 = u[pos];
#pragma unroll U
  for (; k + S <= kend; k += S) {
    double c[S + 2];
    if (STYLE == 2) { c[0] = u[pos - slice]; c[1] = u[pos]; } else { c[0] = c0; c[1] = c1; }
#pragma unroll
    for (int n = 2; n < S + 2; ++n) c[n] = u[pos + (size_t(n) - 1) * slice];
    if (STYLE == 1) {
      double L[S];
#pragma unroll
      for (int n = 0; n < S; ++n) {
        const size_t p = pos + size_t(n) * slice;
        L[n] = (u[p - 1] + u[p + 1]) * a.ihx + (u[p - nx] + u[p + nx]) * a.ihy + (c[n] + c[n + 2]) * a.ihz + c[n + 1] * a.ihc;
      }
#pragma unroll
      for (int n = 0; n < S; ++n) __stcs(&a.f[pos + size_t(n) * slice], L[n]);
    } else {
#pragma unroll
    for (int n = 0; n < S; ++n) {
      const size_t p = pos + size_t(n) * slice;
      const double Lu = (u[p - 1] + u[p + 1]) * a.ihx + (u[p - nx] + u[p + nx]) * a.ihy + (c[n] + c[n + 2]) * a.ihz + c[n + 1] * a.ihc;
      __stcs(&a.f[p], Lu);
    }
    }
    c0 = c[S]; c1 = c[S + 1];
    pos += S * slice;
  }
  for (; k < kend; ++k) {
    const double above = u[pos + slice];
    const double Lu = (u[pos - 1] + u[pos + 1]) * a.ihx + (u[pos - nx] + u[pos + nx]) * a.ihy + (c0 + above) * a.ihz + c1 * a.ihc;
    __stcs(&a.f[pos], Lu);
    c0 = c1; c1 = above; pos += slice;
  }
}

__global__ void copyk(double* d, const double* s, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) __stcs(&d[i], s[i]);
}

static double bytes_of(double nx, double ny, double nz) {
  return (nx * ny * nz - 8 - 4 * (nx - 2) - 4 * (ny - 2) - 4 * (nz - 2)) * 8 + (nx - 2) * (ny - 2) * (nz - 2) * 8;
}

int main(int argc, char** argv) {
  int nx = atoi(argv[1]), ny = atoi(argv[2]), nz = atoi(argv[3]);
  size_t n = size_t(nx) * ny * nz;
  double *u, *f, *s;
  CK(cudaMalloc(&u, n * 8)); CK(cudaMalloc(&f, n * 8)); CK(cudaMalloc(&s, n * 8));
  std::vector<double> h(n);
  for (size_t q = 0; q < n; ++q) h[q] = double((q * 2654435761u) % 1000) / 1000.0;
  CK(cudaMemcpy(u, h.data(), n * 8, cudaMemcpyHostToDevice));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  const int iters = 10;
  auto timeit = [&](auto launch) {
    launch(); CK(cudaDeviceSynchronize());
    std::vector<float> t;
    for (int rep = 0; rep < 3; ++rep) {
      cudaEventRecord(e0); for (int it = 0; it < iters; ++it) launch(); cudaEventRecord(e1); CK(cudaEventSynchronize(e1));
      float ms; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms / iters);
    }
    std::sort(t.begin(), t.end()); return t[1];
  };
  float cms = timeit([&] { copyk<<<(n + 255) / 256, 256>>>(s, u, n); });
  double copy_gbs = 2.0 * n * 8 / (cms * 1e6);
  printf("size %dx%dx%d copy %.1f GB/s\n", nx, ny, nz, copy_gbs);
  const double hx = 1.0 / (nx - 1), hy = 1.0 / (ny - 1), hz = 1.0 / (nz - 1);
  Args a{f, u, nx, ny, nz, 1 / (hx * hx), 1 / (hy * hy), 1 / (hz * hz), 0, 0, 0, 4};
  a.ihc = -2 * (a.ihx + a.ihy + a.ihz);
  struct V { int P, G3, M; };
  std::vector<V> vs;
  for (int M : {32, 4}) for (int P : {0, 1}) for (int G3 : {0, 1}) vs.push_back({P, G3, M});
  for (const V& v : vs) {
    const int b[2] = {64, 4};
    a.M = std::min(v.M, nz - 2); a.grouped = 0; a.G = 1;
    unsigned txs = (nx + b[0] - 1) / b[0], tys = (ny + b[1] - 1) / b[1];
    unsigned chunks = (nz - 2 + a.M - 1) / a.M;
    dim3 grid = v.G3 ? dim3(txs, tys, chunks) : dim3(txs * tys * chunks), block(b[0], b[1]);
    cudaLaunchAttribute attr{}; attr.id = cudaLaunchAttributeProgrammaticStreamSerialization; attr.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg{}; cfg.gridDim = grid; cfg.blockDim = block; cfg.attrs = &attr; cfg.numAttrs = 1; cfg.stream = 0;
    auto L = [&] {
      if (v.P) { if (v.G3) cudaLaunchKernelEx(&cfg, k8<1, 0, 1, 1, 1>, a); else cudaLaunchKernelEx(&cfg, k8<1, 0, 1, 1, 0>, a); }
      else { if (v.G3) k8<1, 0, 1, 0, 1><<<grid, block>>>(a); else k8<1, 0, 1, 0, 0><<<grid, block>>>(a); }
    };
    float ms = timeit(L);
    CK(cudaGetLastError());
    double fom = bytes_of(nx, ny, nz) / (ms * 1e6);
    printf("M=%2d pdl=%d grid3d=%d  %.3f ms  fom %.1f  ratio %.3f\n", a.M, v.P, v.G3, ms, fom, fom / copy_gbs);
    fflush(stdout);
  }
  // verify last configuration quickly on a few points
  std::vector<double> hf(n); CK(cudaMemcpy(hf.data(), f, n * 8, cudaMemcpyDeviceToHost));
  double err = 0; size_t slice = size_t(nx) * ny;
  for (size_t q = slice + nx + 1; q < n - slice - nx - 1; q += 9973) {
    size_t i = q % nx, j = (q / nx) % ny, k = q / slice;
    if (i == 0 || i == nx - 1 || j == 0 || j == ny - 1 || k == 0 || k == nz - 1) continue;
    double ref = (h[q - 1] + h[q + 1]) * a.ihx + (h[q - nx] + h[q + nx]) * a.ihy + (h[q - slice] + h[q + slice]) * a.ihz + h[q] * a.ihc;
    err = std::max(err, std::abs(ref - hf[q]) / std::abs(a.ihc));
  }
  printf("rel err %.3g\n", err);
}
