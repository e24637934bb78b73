// The Laplacian finite-difference kernels of the AMD lab notes (Kernels 5, 6, 7), double
// precision. One work-item computes a column of M points in y (loop tiling, register reuse of
// the centre values). Kernel 6 only reorders the grid's indices; Kernel 7 computes the rows
// [sy, ey) of one y-subdomain, so that a sweep is several dispatches in sequence. Kernel 8 is
// this project's: a work-item marches in z instead (laplacian_zmarch_item).
#pragma once

#include <cstddef>
#include <cstdint>

#include "portability.hpp"

namespace hsad::kernels {

struct LaplacianArgs {
  double* f;
  const double* u;
  int nx, ny, nz;
  double invhx2, invhy2, invhz2, invhxyz2;
  int sy, ey;  // Kernel 7: the subdomain's rows; 0 and ny for Kernels 5 and 6
};

// Kernels 5, 6 and 8 take the seed's arguments: the same layout without sy and ey.
struct LaplacianSeedArgs {
  double* f;
  const double* u;
  int nx, ny, nz;
  double invhx2, invhy2, invhz2, invhxyz2;
};

// The column of M points (i, j..j+M-1, k); rows [1, yend) are stored, yend = min(ey, ny - 1).
// INTERIOR: every row exists and is stored (0 < j, j + M <= yend), so the tile makes no test per
// row; that is all tiles but the first and last of a sweep or subdomain. Otherwise (an edge tile)
// each row is tested, and a tile cut at the array's edge (the seed's kernel assumes ny % M == 0)
// reads the last row that exists in place of rows past the edge, never stores them, and their
// centre gives the row below nothing. So every loop has a trip count known at compile time and
// every Lu index is a constant once unrolled: a trip count of `rows` (an earlier form of this
// function) made nvcc keep Lu in local memory, a 64-byte stack frame that held Kernels 5-7 to half
// the plain kernel's speed on the H100 (docs/results.md). The per-row tests themselves held
// Kernel 5 to 0.95 of the plain kernel at 512^3 there (docs/measurements/h100-laplacian-k5-explore.cu).
template <int M, bool INTERIOR>
HSAD_HD void laplacian_tile(const LaplacianArgs& a, int i, int j, int k, int yend) {
  const int nx = a.nx, ny = a.ny;
  const std::size_t slice = std::size_t(nx) * ny;
  const std::size_t pos = std::size_t(i) + std::size_t(nx) * j + slice * k;
  const int rows = INTERIOR ? M : (ny - j < M ? ny - j : M);
  const double* u = a.u;
  double Lu[M];
  HSAD_UNROLL
  for (int n = 0; n < M; n++) Lu[n] = 0;

  HSAD_UNROLL
  for (int n = 0; n < M; n++) {  // z - 1
    const int r = INTERIOR || n < rows ? n : rows - 1;
    Lu[n] += u[pos - slice + std::size_t(r) * nx] * a.invhz2;
  }
  if (INTERIOR || j > 0) Lu[0] += u[pos - nx] * a.invhy2;  // y - 1 of the first row
  HSAD_UNROLL
  for (int n = 0; n < M; n++) {
    const int r = INTERIOR || n < rows ? n : rows - 1;
    const std::size_t p = pos + std::size_t(r) * nx;
    Lu[n] += u[p - 1] * a.invhx2;
    const double center = u[p];  // kept for the rows above and below
    Lu[n] += center * a.invhxyz2;
    Lu[n] += u[p + 1] * a.invhx2;
    if (n > 0) Lu[n - 1] += center * (INTERIOR || n < rows ? a.invhy2 : 0.0);
    if (n < M - 1) Lu[n + 1] += center * a.invhy2;
  }
  // y + 1 of the last row: an interior tile ends below ny - 1; a cut tile's last row is the edge.
  if (INTERIOR || j + M < ny) Lu[M - 1] += u[pos + std::size_t(M) * nx] * a.invhy2;
  HSAD_UNROLL
  for (int n = 0; n < M; n++) {  // z + 1
    const int r = INTERIOR || n < rows ? n : rows - 1;
    Lu[n] += u[pos + slice + std::size_t(r) * nx] * a.invhz2;
  }

  HSAD_UNROLL
  for (int n = 0; n < M; n++) {
    const int y = j + n;
    if (INTERIOR || (y > 0 && y < yend)) HSAD_STORE_NT(&a.f[pos + std::size_t(n) * nx], Lu[n]);
  }
}

// One work-item of any of the three kernels, given its (i, j, k). A tile starts at or after sy.
template <int M>
HSAD_HD void laplacian_item(const LaplacianArgs& a, int i, int j, int k) {
  const int yend = a.ey < a.ny - 1 ? a.ey : a.ny - 1;
  if (i == 0 || i >= a.nx - 1 || k == 0 || k >= a.nz - 1 || j >= yend) return;
  if (j > 0 && j + M <= yend) laplacian_tile<M, true>(a, i, j, k, yend);
  else laplacian_tile<M, false>(a, i, j, k, yend);
}

// Kernel 8 (this project's, not the seed's): a work-item marches up to M planes in z at one
// (i, j), from plane 1 + M * chunk, keeping the z-1, z and z+1 values of its column in registers.
// Only the z+1 value is new at each step; the x and y neighbours lie in the plane that the
// work-group's other items (and, for the halo rows, the neighbouring group running at the same
// time) load in the same step, so they come from the caches. A chunk re-reads the two planes
// below and above it, so long chunks (M = 32) keep that extra traffic to 2 in 34 reads, while
// there are still enough chunks for every compute unit. Measured on the H100 (docs/results.md):
// this plain loop beats issuing a chunk's loads up front, which needs a short chunk to fit in
// registers and then re-reads more.
template <int M>
HSAD_HD void laplacian_zmarch_item(const LaplacianArgs& a, int i, int j, int chunk) {
  const int nx = a.nx, ny = a.ny, nz = a.nz;
  const int k0 = 1 + M * chunk;
  if (i == 0 || i >= nx - 1 || j == 0 || j >= ny - 1 || k0 >= nz - 1) return;
  const int kend = k0 + M < nz - 1 ? k0 + M : nz - 1;
  const std::size_t slice = std::size_t(nx) * ny;
  std::size_t pos = std::size_t(i) + std::size_t(nx) * j + slice * k0;
  // Plain pointers, not HSAD_RESTRICT: on the H100, the read-only path that restrict lets nvcc
  // use (ld.global.nc) ran this loop 2% slower than ordinary loads through L1 (docs/results.md).
  const double* u = a.u;
  double* f = a.f;
  double below = u[pos - slice];
  double center = u[pos];
  for (int k = k0; k < kend; ++k) {
    const double above = u[pos + slice];
    // The reference's order of operations: x pair, y pair, z pair, centre.
    const double Lu = (u[pos - 1] + u[pos + 1]) * a.invhx2 + (u[pos - nx] + u[pos + nx]) * a.invhy2 +
                      (below + above) * a.invhz2 + center * a.invhxyz2;
    HSAD_STORE_NT(&f[pos], Lu);
    below = center;
    center = above;
    pos += slice;
  }
}

// The z-chunks of Kernel 8: the grid's third dimension, one work-group deep each, so that the
// work-groups of one chunk (x-tile fastest, then y-tile) run before those of the next.
inline std::uint32_t laplacian8_chunks(int nz, int m) { return (std::uint32_t(nz - 2) + m - 1) / m; }

// The grid (in work-items, full work-groups) each kernel is launched with.
struct LaunchShape {
  std::uint32_t grid[3];
};
// kernel: 5, 6, 7 or 8; rows: the y-rows one dispatch covers (ny, or a subdomain's).
inline LaunchShape laplacian_shape(int kernel, int m, const std::uint32_t block[3], int nx, int rows, int nz) {
  const std::uint32_t bx = (nx + block[0] - 1) / block[0];
  const std::uint32_t by = (rows + block[1] * m - 1) / (block[1] * m);
  const std::uint32_t bz = (nz + block[2] - 1) / block[2];
  if (kernel == 6) return {{by * block[0], bz * block[1], bx * block[2]}};  // blocks: (y, z, x)
  if (kernel == 8) {  // one item per (x, y), one work-group layer per z-chunk
    const std::uint32_t gy = (rows + block[1] - 1) / block[1];
    return {{bx * block[0], gy * block[1], laplacian8_chunks(nz, m)}};
  }
  return {{bx * block[0], by * block[1], bz * block[2]}};
}

// The figure of merit's bytes (the seed's formula): every point fetched once but the 8
// corners and 4 edges of each direction, every interior point written once.
inline double laplacian_bytes(double nx, double ny, double nz) {
  const double fetch = (nx * ny * nz - 8 - 4 * (nx - 2) - 4 * (ny - 2) - 4 * (nz - 2)) * sizeof(double);
  const double write = (nx - 2) * (ny - 2) * (nz - 2) * sizeof(double);
  return fetch + write;
}

struct CopyArgs {
  double* dst;
  const double* src;
  std::uint64_t count;
};

HSAD_HD void copy_item(const CopyArgs& a, std::uint64_t i) {
  if (i < a.count) HSAD_STORE_NT(&a.dst[i], a.src[i]);
}

}  // namespace hsad::kernels
