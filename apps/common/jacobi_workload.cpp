// The Jacobi workload: buffers made once per solver, batches recorded per solve.
#include "jacobi_workload.hpp"

#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "jacobi.hpp"
#include "laplacian_slabs.hpp"
#include "run_timer.hpp"

namespace hsad::bench {

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

std::uint64_t guard_for(const JacobiProblem& p, unsigned k) { return (p.max_iterations + k - 1) / k * k; }

JacobiRun JacobiSolver::run_device_loop(Queue& q, const Options& o, unsigned check_every) {
  Batch b;
  b.loop_begin();
  record_iteration(b);
  b.loop_while(state_, guard_for(p_, check_every), 0, check_every);
  b.copy_to_host(pinned_.host_ptr(), state_, 16);
  JacobiRun r;
  const RunTimer t;
  Submission s = q.submit(b, o, std::chrono::milliseconds(600000));
  try {
    s.wait(kWaitForever);
  } catch (const Error& e) {
    if (e.code() != Errc::loop_limit) throw;
    r.at_guard = true;  // the commands after the loop (the copy of the state) still ran
  }
  t.stop(r.seconds, r.cpu_seconds);
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
  return drive_from_host(p_, k, static_cast<const unsigned char*>(pinned_.host_ptr()),
                         [&] { q.run(b, o, std::chrono::milliseconds(600000)); });
}

JacobiRun drive_from_host(const JacobiProblem& p, unsigned k, const unsigned char* state,
                          const std::function<void()>& step) {
  JacobiRun r;
  const RunTimer t;
  for (;;) {
    step();
    r.iterations += k;
    std::uint32_t condition = 0;
    std::memcpy(&condition, state, 4);
    if (condition == 0) break;
    if (r.iterations >= p.max_iterations) {
      r.at_guard = true;
      break;
    }
  }
  t.stop(r.seconds, r.cpu_seconds);
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

namespace {
// One group's fixed-order tree (kernels/jacobi.cu's group_sum), and the check's: each of
// kJacobiGroup work-items sums its stride of the partials in order, then the tree.
double group_tree(std::array<double, kernels::kJacobiGroup>& s) {
  for (unsigned step = kernels::kJacobiGroup / 2; step > 0; step /= 2) {
    for (unsigned t = 0; t < step; ++t) s[t] += s[t + step];
  }
  return s[0];
}

double check_tree(const std::vector<double>& partials) {
  std::array<double, kernels::kJacobiGroup> s{};
  for (unsigned t = 0; t < kernels::kJacobiGroup; ++t) {
    for (std::size_t i = t; i < partials.size(); i += kernels::kJacobiGroup) s[t] += partials[i];
  }
  return group_tree(s);
}
}  // namespace

std::vector<double> host_jacobi(const JacobiProblem& p, std::uint64_t* iterations, double* norm, int devices) {
  const int n = p.n;
  const std::uint64_t plane = std::uint64_t(n) * n;
  const std::uint64_t points = plane * n;
  std::vector<double> u(points, 0.0), v(points, 0.0), f(points, 1.0), d2(points, 0.0);
  const double h = 1.0 / double(n - 1);
  // A point's update does not depend on the split: only the norm's order of summation does. Each
  // device sums its slab and ghost planes (local index q is global index q + (first - 1) plane) in
  // work-groups, then its partials, and every device adds the devices' norms in rank order.
  const std::vector<Slab> slabs = devices == 1 ? std::vector<Slab>{Slab{1, n - 2}} : split_planes(n, devices);
  const auto sweep = [&](std::vector<double>& out, const std::vector<double>& in) {
    const kernels::JacobiArgs a{out.data(), in.data(), f.data(), n, n, n, h * h, nullptr};
    for (std::uint64_t i = 0; i < points; ++i) d2[i] = kernels::jacobi_point(a, i);
  };
  const auto slab_norm2 = [&](const Slab& s) {
    const std::uint64_t local = plane * std::uint64_t(s.planes + 2);
    const std::uint64_t offset = plane * std::uint64_t(s.first - 1);
    const std::uint64_t groups = (local + kernels::kJacobiGroup - 1) / kernels::kJacobiGroup;
    std::vector<double> partials(groups);
    for (std::uint64_t g = 0; g < groups; ++g) {
      std::array<double, kernels::kJacobiGroup> s2{};
      for (unsigned t = 0; t < kernels::kJacobiGroup; ++t) {
        const std::uint64_t q = g * kernels::kJacobiGroup + t;
        const bool ghost = q < plane || q >= local - plane;  // the slab's ghost planes: 0 on the device
        s2[t] = q < local && !ghost ? d2[q + offset] : 0.0;
      }
      partials[g] = group_tree(s2);
    }
    return check_tree(partials);
  };
  *iterations = 0;
  for (;;) {
    sweep(v, u);
    sweep(u, v);
    ++*iterations;
    double total = 0.0;
    for (const Slab& s : slabs) total += slab_norm2(s);
    *norm = std::sqrt(total);
    if (total <= p.tolerance * p.tolerance || *iterations >= p.max_iterations) break;
  }
  return u;
}

}  // namespace hsad::bench
