// What the Laplacian kernels compute, rounded as hipcc 5.2's code for them rounds it (read from
// its disassembly): HIP contracts `a += b * c` into fused multiply-adds, in the source's order.
// The ISA interpreter's results must equal this bit for bit; the cpu agent's host builds, which
// x86-64 compiles without fma, differ from it in the last bits.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace hsad::testing {

struct LaplacianGrid {
  int nx, ny, nz;
  double invhx2, invhy2, invhz2, invhxyz2;
};

// Kernels 5, 6 and 7 (laplacian_tile): whatever the tile and m, a point's terms arrive in the
// order z-1, y-1, x-1, centre, x+1, y+1, z+1, each one fma. (While full tiles tested their rows
// one by one, hipcc computed an in-tile centre's product with hy once for the rows above and below
// it, rounded on its own, at m >= 8; the interior tile that makes no tests fuses every term.)
inline double fused_tile_point(const double* u, std::size_t p, const LaplacianGrid& g) {
  const std::size_t nx = std::size_t(g.nx), slice = nx * std::size_t(g.ny);
  double lu = std::fma(u[p - slice], g.invhz2, 0.0);
  lu = std::fma(u[p - nx], g.invhy2, lu);
  lu = std::fma(u[p - 1], g.invhx2, lu);
  lu = std::fma(u[p], g.invhxyz2, lu);
  lu = std::fma(u[p + 1], g.invhx2, lu);
  lu = std::fma(u[p + nx], g.invhy2, lu);
  return std::fma(u[p + slice], g.invhz2, lu);
}

// Kernel 8 (laplacian_zmarch_item): (x pair) * hx + (y pair) * hy + (z pair) * hz + centre * hxyz,
// where the compiler fuses the x product into the first addition (the y product is rounded), then
// the z and centre products into the next two.
inline double fused_zmarch_point(const double* u, std::size_t p, const LaplacianGrid& g) {
  const std::size_t nx = std::size_t(g.nx), slice = nx * std::size_t(g.ny);
  double lu = (u[p - nx] + u[p + nx]) * g.invhy2;
  lu = std::fma(u[p - 1] + u[p + 1], g.invhx2, lu);
  lu = std::fma(u[p - slice] + u[p + slice], g.invhz2, lu);
  return std::fma(u[p], g.invhxyz2, lu);
}

// f over the whole grid after one application of `kernel` (5, 6, 7 or 8), at any tile size: the
// interior points (of rows [sy, ey) for Kernel 7) computed, every other point left at `untouched`.
// The same on every target hipcc builds for (gfx1030 once differed in a cut tile, while that tile
// was a loop of `rows` iterations).
inline std::vector<double> fused_laplacian(int kernel, const std::vector<double>& u,
                                           const LaplacianGrid& g, double untouched, int sy = 0, int ey = -1) {
  if (ey < 0) ey = g.ny;
  std::vector<double> f(u.size(), untouched);
  const std::size_t nx = std::size_t(g.nx), slice = nx * std::size_t(g.ny);
  for (int k = 1; k < g.nz - 1; ++k) {
    for (int j = 1; j < g.ny - 1; ++j) {
      if (j < sy || j >= ey) continue;
      for (int i = 1; i < g.nx - 1; ++i) {
        const std::size_t p = std::size_t(i) + nx * std::size_t(j) + slice * std::size_t(k);
        f[p] = kernel == 8 ? fused_zmarch_point(u.data(), p, g) : fused_tile_point(u.data(), p, g);
      }
    }
  }
  return f;
}

}  // namespace hsad::testing
