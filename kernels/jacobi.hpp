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

// ---------------------------------------------------------------------------------------------
// The same solver over several devices (apps/common/jacobi_slabs.hpp): the grid split along z
// into slabs, each device's slab with a ghost plane on either side, and every device running its
// own device-run loop. Nothing goes through the host per iteration: a sweep stores its outermost
// planes straight into the neighbours' ghost planes (peer memory), and an exchange kernel makes
// the devices meet on the device, each announcing its arrival in the others' mailboxes and waiting
// for theirs. The second exchange of an iteration also shares each device's squared norm, so every
// device sums the same values in the same order and takes the same decision.

constexpr unsigned kJacobiMaxDevices = 8;

// In each device's own memory: slot r is written by device r alone (over the interconnect), and
// read by this device alone. The norms alternate between two rows, by the norm exchange's parity:
// with three devices or more, one that is not this device's neighbour passes the barrier between
// the sweeps without waiting for this device, and may share its next norm while this device still
// reads the last one; it cannot get two ahead (every device meets every other at each norm
// exchange, and this device arrives at the next one only once it has read).
struct JacobiMailbox {
  unsigned arrived[kJacobiMaxDevices];     // device r's latest arrival: its epoch
  double norm2[2][kJacobiMaxDevices];      // device r's squared norm at its norm exchanges, by parity
};

// Device `rank`'s view of the team, in its own memory: written by the host before a solve, then
// `epoch` and `failed` by that device's exchange kernel alone.
struct JacobiTeam {
  unsigned rank;
  unsigned size;
  unsigned epoch;   // the arrivals this device made
  unsigned failed;  // 0, or 1 + the rank of a device that did not arrive within the guard
  unsigned shared;  // the norm exchanges this device made: their parity picks the mailboxes' row
  unsigned pad;
  std::uint64_t guard_polls;  // how many looks at a mailbox before a wait gives up
  JacobiMailbox* mailbox[kJacobiMaxDevices];  // every device's, this one's at [rank]
};

struct JacobiSlabArgs {  // jacobi_sweep_slab: JacobiArgs' fields, then where the outer planes go
  double* out;
  const double* in;
  const double* rhs;
  int nx, ny, nz;     // the slab's planes and its two ghost planes
  double h2;
  double* partials;
  double* lower;      // the lower neighbour's upper ghost plane, in its copy of `out`; or null
  double* upper;      // the upper neighbour's ghost plane 0, in its copy of `out`; or null
};

struct JacobiExchangeArgs {  // jacobi_exchange
  JacobiTeam* team;
  const double* partials;  // null: meet the neighbours along z only, no norm
  unsigned count;
  double tolerance2;
  unsigned* condition;     // the loop's: 0 once the norm is small enough, or the team failed
  double* norm2;
};

// A slab's point: the sweep, then its planes next to a ghost plane copied into the neighbour's.
HSAD_HD double jacobi_slab_point(const JacobiSlabArgs& s, std::uint64_t p) {
  const JacobiArgs a{s.out, s.in, s.rhs, s.nx, s.ny, s.nz, s.h2, nullptr};
  const double d2 = jacobi_point(a, p);
  const std::uint64_t plane = std::uint64_t(s.nx) * s.ny;
  if (p >= plane * std::uint64_t(s.nz)) return d2;
  const int x = int(p % std::uint64_t(s.nx));
  const int y = int((p / std::uint64_t(s.nx)) % std::uint64_t(s.ny));
  const int z = int(p / plane);
  if (x == 0 || y == 0 || x == s.nx - 1 || y == s.ny - 1) return d2;  // fixed boundary: never written
  if (z == 1 && s.lower) s.lower[p % plane] = s.out[p];
  if (z == s.nz - 2 && s.upper) s.upper[p % plane] = s.out[p];
  return d2;
}

// Whom device t.rank meets at an exchange: every device when norms are shared, else its neighbours.
HSAD_HD bool jacobi_meets(const JacobiTeam& t, unsigned r, bool all) {
  return all || r == t.rank || r + 1 == t.rank || r == t.rank + 1;
}

// One work-item's exchange. Ops: release() and acquire() (fences at system scope: the other
// devices), store() and load() (32-bit, system scope), pause(). false: the team failed (now, or at
// an earlier exchange), and nothing is waited for.
template <class Ops>
HSAD_HD bool jacobi_team_exchange(JacobiTeam& t, bool share_norm, double norm2) {
  if (t.failed != 0) return false;
  const unsigned epoch = t.epoch + 1;
  t.epoch = epoch;
  if (share_norm) {
    const unsigned row = t.shared % 2;
    for (unsigned r = 0; r < t.size; ++r) t.mailbox[r]->norm2[row][t.rank] = norm2;
  }
  Ops::release();  // this device's halo stores (the sweep before) and its norm, before its arrival
  for (unsigned r = 0; r < t.size; ++r) {
    if (jacobi_meets(t, r, share_norm)) Ops::store(&t.mailbox[r]->arrived[t.rank], epoch);
  }
  JacobiMailbox* mine = t.mailbox[t.rank];
  for (unsigned r = 0; r < t.size; ++r) {
    if (r == t.rank || !jacobi_meets(t, r, share_norm)) continue;
    for (std::uint64_t polls = 0; int(Ops::load(&mine->arrived[r]) - epoch) < 0; ++polls) {
      if (polls >= t.guard_polls) {
        t.failed = 1 + r;
        return false;
      }
      Ops::pause();
    }
  }
  Ops::acquire();  // what the others stored before they arrived: their halos in this device's ghosts
  return true;
}

// After a norm exchange: the row the devices' norms are in, and the next exchange takes the other.
HSAD_HD unsigned jacobi_team_take_row(JacobiTeam& t) {
  const unsigned row = t.shared % 2;
  t.shared += 1;
  return row;
}

// The norm every device computes alike: the shared squared norms in rank order. Read through
// volatile: the other devices stored them over the interconnect, after this kernel started.
HSAD_HD double jacobi_team_norm2(const JacobiTeam& t, unsigned row) {
  const volatile double* norms = t.mailbox[t.rank]->norm2[row];
  double total = 0.0;
  for (unsigned r = 0; r < t.size; ++r) total += norms[r];
  return total;
}

}  // namespace hsad::kernels
