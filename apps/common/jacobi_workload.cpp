// The Jacobi workload: buffers made once per solver, batches recorded per solve.
#include "jacobi_workload.hpp"

#include <time.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "jacobi.hpp"

namespace hsad::bench {
namespace {
// The calling thread's CPU time: what the application's own thread spends submitting and
// waiting. Not the process's: under hsad-sim that would count the simulated GPU's threads.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

struct Timer {
  std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
  double cpu = thread_cpu_seconds();
  void stop(JacobiRun& r) const {
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
    r.cpu_seconds = thread_cpu_seconds() - cpu;
  }
};
}  // namespace

JacobiSolver::JacobiSolver(const Device& device, const JacobiProblem& problem)
    : d_(device), p_(problem), points_(std::uint64_t(problem.n) * problem.n * problem.n),
      groups_(unsigned((points_ + kernels::kJacobiGroup - 1) / kernels::kJacobiGroup)),
      u_(device.alloc(points_ * 8)), v_(device.alloc(points_ * 8)), f_(device.alloc(points_ * 8)),
      partials_(device.alloc(std::size_t(groups_) * 8)), state_(device.alloc(16)),
      pinned_(device.alloc(16, Memory::pinned_host)) {
  if (problem.n < 3) throw std::invalid_argument("jacobi: the grid needs at least 3 points per side");
  reset();
}

void JacobiSolver::reset() {
  if (zeros_.size() != points_) {  // first use: f is set once
    zeros_.assign(points_, 0.0);
    const std::vector<double> ones(points_, 1.0);
    d_.copy_to_device(f_, ones.data(), points_ * 8);
  }
  d_.copy_to_device(u_, zeros_.data(), points_ * 8);
  d_.copy_to_device(v_, zeros_.data(), points_ * 8);
  const unsigned char state[16] = {1};
  d_.copy_to_device(state_, state, 16);
}

void JacobiSolver::record_iteration(Batch& b) const {
  const Kernel sweep = d_.kernel("jacobi_sweep");
  const Kernel check = d_.kernel("jacobi_check");
  const double h = 1.0 / double(p_.n - 1);
  const int n = p_.n;
  const Dim3 grid{groups_ * kernels::kJacobiGroup}, group{kernels::kJacobiGroup};
  const auto* no_partials = static_cast<double*>(nullptr);
  b.exec(sweep, grid, group, {v_, u_, f_, n, n, n, h * h, no_partials});
  b.exec(sweep, grid, group, {u_, v_, f_, n, n, n, h * h, partials_});
  auto* state = static_cast<unsigned char*>(state_.device_ptr());
  b.exec(check, Dim3{kernels::kJacobiGroup}, group,
         {partials_, groups_, p_.tolerance * p_.tolerance, Arg::unchecked(state), Arg::unchecked(state + 8)});
}

JacobiRun JacobiSolver::run_device_loop(Queue& q, const Options& o) {
  Batch b;
  b.loop_begin();
  record_iteration(b);
  b.loop_while(state_, p_.max_iterations, 0);
  b.copy_to_host(pinned_.host_ptr(), state_, 16);
  JacobiRun r;
  const Timer t;
  Submission s = q.submit(b, o, std::chrono::milliseconds(600000));
  try {
    s.wait(kWaitForever);
  } catch (const Error& e) {
    if (e.code() != Errc::loop_limit) throw;
    r.at_guard = true;  // the commands after the loop (the copy of the state) still ran
  }
  t.stop(r);
  r.iterations = s.loop_iterations(0);
  double norm2 = 0;
  std::memcpy(&norm2, static_cast<unsigned char*>(pinned_.host_ptr()) + 8, 8);
  r.norm = std::sqrt(norm2);
  return r;
}

JacobiRun JacobiSolver::run_host_loop(Queue& q, const Options& o, unsigned k) {
  if (k == 0) throw std::invalid_argument("jacobi: a host loop checks every k >= 1 iterations");
  Batch b;
  for (unsigned i = 0; i < k; ++i) record_iteration(b);
  b.copy_to_host(pinned_.host_ptr(), state_, 16);
  JacobiRun r;
  const Timer t;
  const auto* state = static_cast<const unsigned char*>(pinned_.host_ptr());
  for (;;) {
    q.run(b, o, std::chrono::milliseconds(600000));
    r.iterations += k;
    std::uint32_t condition = 0;
    std::memcpy(&condition, state, 4);
    if (condition == 0) break;
    if (r.iterations >= p_.max_iterations) {
      r.at_guard = true;
      break;
    }
  }
  t.stop(r);
  double norm2 = 0;
  std::memcpy(&norm2, state + 8, 8);
  r.norm = std::sqrt(norm2);
  return r;
}

std::vector<double> JacobiSolver::solution() const {
  std::vector<double> out(points_);
  d_.copy_to_host(out.data(), u_, points_ * 8);
  return out;
}

std::vector<double> host_jacobi(const JacobiProblem& p, std::uint64_t* iterations, double* norm) {
  const int n = p.n;
  const std::uint64_t points = std::uint64_t(n) * n * n;
  const unsigned groups = unsigned((points + kernels::kJacobiGroup - 1) / kernels::kJacobiGroup);
  std::vector<double> u(points, 0.0), v(points, 0.0), f(points, 1.0), partials(groups);
  const double h = 1.0 / double(n - 1);
  const auto sweep = [&](std::vector<double>& out, const std::vector<double>& in, bool reduce) {
    const kernels::JacobiArgs a{out.data(), in.data(), f.data(), n, n, n, h * h, nullptr};
    for (unsigned g = 0; g < groups; ++g) {
      std::array<double, kernels::kJacobiGroup> s{};
      for (unsigned t = 0; t < kernels::kJacobiGroup; ++t) s[t] = kernels::jacobi_point(a, std::uint64_t(g) * kernels::kJacobiGroup + t);
      if (!reduce) continue;
      for (unsigned step = kernels::kJacobiGroup / 2; step > 0; step /= 2) {
        for (unsigned t = 0; t < step; ++t) s[t] += s[t + step];
      }
      partials[g] = s[0];
    }
  };
  *iterations = 0;
  for (;;) {
    sweep(v, u, false);
    sweep(u, v, true);
    ++*iterations;
    std::array<double, kernels::kJacobiGroup> s{};
    for (unsigned t = 0; t < kernels::kJacobiGroup; ++t) {
      for (unsigned i = t; i < groups; i += kernels::kJacobiGroup) s[t] += partials[i];
    }
    for (unsigned step = kernels::kJacobiGroup / 2; step > 0; step /= 2) {
      for (unsigned t = 0; t < step; ++t) s[t] += s[t + step];
    }
    *norm = std::sqrt(s[0]);
    if (s[0] <= p.tolerance * p.tolerance || *iterations >= p.max_iterations) break;
  }
  return u;
}

}  // namespace hsad::bench
