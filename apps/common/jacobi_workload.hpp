// The Jacobi solver of the Poisson equation (kernels/jacobi.hpp) as an application runs it with
// the library: one iteration is two sweeps (u to v, v back to u, the second reducing the norm of
// its update) and the check that sets the loop's condition while the norm is above the
// tolerance. Three ways to iterate: a device-run loop (Batch::loop_begin, one submit and one
// wait), and host-driven loops that check the condition after every iteration or every k.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hsad/hsad.hpp"

namespace hsad::bench {

struct JacobiProblem {
  int n = 64;                            // points per side, boundary included
  double tolerance = 1e-4;               // on the 2-norm of the second sweep's update
  std::uint64_t max_iterations = 100000; // the device loop's guard; the host loops' too
};

struct JacobiRun {
  std::uint64_t iterations = 0;
  double norm = 0;           // the last check's 2-norm
  double seconds = 0;        // wall time of the whole solve
  double cpu_seconds = 0;    // the calling thread's CPU time over it (submits and waits)
  bool at_guard = false;     // stopped at max_iterations with the norm still above the tolerance
};

class JacobiSolver {
 public:
  JacobiSolver(const Device& device, const JacobiProblem& problem);

  // u = v = 0 (the boundary too), f = 1: the solve starts from the same state every time.
  void reset();
  // The device-run loop: one submit, one wait. A loop stopped at its guard (Errc::loop_limit) is
  // a result here (at_guard), as the host loops' is. `check_every` k: the device reads the
  // condition after every k-th iteration (Batch::loop_while), as run_host_loop(k) does from the
  // host: the same iterations, the same result; the guard is max_iterations rounded up to k.
  JacobiRun run_device_loop(Queue& q, const Options& o, unsigned check_every = 1);
  // The host-driven loop: `k` iterations per submit, then a wait and a look at the condition.
  JacobiRun run_host_loop(Queue& q, const Options& o, unsigned k);
  std::vector<double> solution() const;  // u, all n^3 points
  const JacobiProblem& problem() const { return p_; }

 private:
  void record_iteration(Batch& b) const;

  Device d_;  // a handle: the solver keeps the device open
  JacobiProblem p_;
  std::uint64_t points_;
  unsigned groups_;  // of a sweep
  Buffer u_, v_, f_, partials_, state_;  // state: the condition (uint32) at 0, the squared norm (double) at 8
  Buffer pinned_;    // the host loops' copy of the state
  std::vector<double> zeros_;  // what reset() copies into u and v
};

// The guard of a loop that checks every k iterations: max_iterations rounded up to a multiple of k.
std::uint64_t guard_for(const JacobiProblem& p, unsigned k);

// The host-driven loop both solvers run: `step` submits k iterations and waits for them; after
// each step the condition (a uint32 at 0 of `state`, host memory the batches copy it to) says
// whether to go on, up to the problem's max_iterations; the squared norm is the double at 8.
JacobiRun drive_from_host(const JacobiProblem& p, unsigned k, const unsigned char* state,
                          const std::function<void()>& step);

// The same iteration on the host, in plain C++ (the sweeps' arithmetic, the norm in the order
// the kernels sum it), for --verify and the tests. `devices`: the norm summed as JacobiSlabs sums
// it over that many slabs (the points' values do not depend on the split).
std::vector<double> host_jacobi(const JacobiProblem& p, std::uint64_t* iterations, double* norm, int devices = 1);

}  // namespace hsad::bench
