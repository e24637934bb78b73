// A Jacobi solver for the Poisson equation -lap(u) = f on the Laplacian's grid (the lab notes'
// seven-point stencil, spacing h, u fixed on the boundary): each sweep sets every interior point
// to the mean of its six neighbours plus h^2 f / 6. How far a sweep moved u, the squared norm of
// the update, is reduced on the device in a fixed order (one partial sum per work-group, then one
// work-group sums the partials), so that a loop that stops on it takes the same iterations on
// every run. Written once for hipcc, nvcc and the host builds.
#pragma once

#include <cstddef>
#include <cstdint>

#include "portability.hpp"

namespace hsad::kernels {

constexpr unsigned kJacobiGroup = 256;  // work-items per work-group of both kernels

struct JacobiArgs {
  double* out;
  const double* in;
  const double* rhs;
  int nx, ny, nz;
  double h2;          // the spacing squared
  double* partials;   // nullptr, or one sum of squared updates per work-group
};

struct JacobiCheckArgs {
  const double* partials;
  unsigned count;      // work-groups of the sweep that wrote them
  double tolerance2;   // the squared tolerance
  unsigned* condition; // 1 while the squared norm is above it
  double* norm2;       // the squared norm, for the host to read
};

// The sweep at point `p` (x fastest): its squared update, 0 on the boundary and past the grid.
HSAD_HD double jacobi_point(const JacobiArgs& a, std::uint64_t p) {
  const std::uint64_t plane = std::uint64_t(a.nx) * a.ny;
  if (p >= plane * std::uint64_t(a.nz)) return 0.0;
  const int x = int(p % std::uint64_t(a.nx));
  const int y = int((p / std::uint64_t(a.nx)) % std::uint64_t(a.ny));
  const int z = int(p / plane);
  if (x == 0 || y == 0 || z == 0 || x == a.nx - 1 || y == a.ny - 1 || z == a.nz - 1) return 0.0;
  const double* u = a.in;
  const double sum = u[p - 1] + u[p + 1] + u[p - a.nx] + u[p + a.nx] + u[p - plane] + u[p + plane];
  const double v = (sum + a.h2 * a.rhs[p]) * (1.0 / 6.0);
  a.out[p] = v;
  const double d = v - u[p];
  return d * d;
}

}  // namespace hsad::kernels
