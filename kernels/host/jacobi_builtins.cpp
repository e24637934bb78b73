// Host builds of the Jacobi solver's kernels (kernels/jacobi.hpp) for the cpu agent: each
// work-group's items through jacobi_point, then the GPU build's tree over their values, so the
// norm is the same sum in the same order.
#include <array>

#include "hsad/host_kernel.hpp"
#include "jacobi.hpp"

namespace hsad::host_kernels {
namespace {
using kernels::JacobiArgs;
using kernels::JacobiCheckArgs;
using kernels::kJacobiGroup;

double tree(std::array<double, kJacobiGroup>& s) {
  for (unsigned step = kJacobiGroup / 2; step > 0; step /= 2) {
    for (unsigned t = 0; t < step; ++t) s[t] += s[t + step];
  }
  return s[0];
}

void jacobi_sweep(const WorkGroup& wg) {
  const JacobiArgs& a = wg.args<JacobiArgs>();
  std::array<double, kJacobiGroup> s{};
  const std::uint64_t first = std::uint64_t(wg.id.x) * wg.size.x;
  for (unsigned t = 0; t < wg.size.x; ++t) s[t] = kernels::jacobi_point(a, first + t);
  if (a.partials) a.partials[wg.id.x] = tree(s);
}

void jacobi_check(const WorkGroup& wg) {
  const JacobiCheckArgs& a = wg.args<JacobiCheckArgs>();
  std::array<double, kJacobiGroup> s{};
  for (unsigned t = 0; t < kJacobiGroup; ++t) {
    for (unsigned i = t; i < a.count; i += kJacobiGroup) s[t] += a.partials[i];
  }
  const double total = tree(s);
  *a.norm2 = total;
  *a.condition = total > a.tolerance2 ? 1u : 0u;
}
}  // namespace

void register_jacobi_builtins() {
  register_host_kernel(make_host_kernel<JacobiArgs>(
      "jacobi_sweep", &jacobi_sweep,
      {host_arg("out", &JacobiArgs::out), host_arg("in", &JacobiArgs::in), host_arg("rhs", &JacobiArgs::rhs),
       host_arg("nx", &JacobiArgs::nx), host_arg("ny", &JacobiArgs::ny), host_arg("nz", &JacobiArgs::nz),
       host_arg("h2", &JacobiArgs::h2), host_arg("partials", &JacobiArgs::partials)}));
  register_host_kernel(make_host_kernel<JacobiCheckArgs>(
      "jacobi_check", &jacobi_check,
      {host_arg("partials", &JacobiCheckArgs::partials), host_arg("count", &JacobiCheckArgs::count),
       host_arg("tolerance2", &JacobiCheckArgs::tolerance2), host_arg("condition", &JacobiCheckArgs::condition),
       host_arg("norm2", &JacobiCheckArgs::norm2)}));
}

}  // namespace hsad::host_kernels
