// Host builds of the Jacobi solver's kernels (kernels/jacobi.hpp) for the cpu agent: each
// work-group's items through jacobi_point, then the GPU build's tree over their values, so the
// norm is the same sum in the same order.
#include <array>
#include <atomic>
#include <thread>

#include "hsad/host_kernel.hpp"
#include "jacobi.hpp"

namespace hsad::host_kernels {
namespace {
using kernels::JacobiArgs;
using kernels::JacobiCheckArgs;
using kernels::JacobiExchangeArgs;
using kernels::JacobiSlabArgs;
using kernels::kJacobiGroup;

double tree(std::array<double, kJacobiGroup>& s) {
  for (unsigned step = kJacobiGroup / 2; step > 0; step /= 2) {
    for (unsigned t = 0; t < step; ++t) s[t] += s[t + step];
  }
  return s[0];
}

// A sweep's work-group, its points through `point`: the whole grid's (jacobi_sweep) or a slab's,
// whose outer planes also go to the neighbours (jacobi_sweep_slab).
template <class Args, double (*point)(const Args&, std::uint64_t)>
void sweep(const WorkGroup& wg) {
  const Args& a = wg.args<Args>();
  std::array<double, kJacobiGroup> s{};
  const std::uint64_t first = std::uint64_t(wg.id.x) * wg.size.x;
  for (unsigned t = 0; t < wg.size.x; ++t) s[t] = point(a, first + t);
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

// The other agents are other threads of this process. The arrival is itself a release store and
// its look an acquire load (the fences alone would do, but ThreadSanitizer does not see fences); a
// wait gives its core away between looks.
struct HostOps {
#if defined(__SANITIZE_THREAD__)
  // ThreadSanitizer models no fences (GCC warns so, -Wtsan); the release store and the acquire
  // load below order alone, which is what the sanitizer checks.
  static void release() {}
  static void acquire() {}
#else
  static void release() { std::atomic_thread_fence(std::memory_order_release); }
  static void acquire() { std::atomic_thread_fence(std::memory_order_acquire); }
#endif
  static void store(unsigned* p, unsigned v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
  static unsigned load(const unsigned* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
  static void pause() { std::this_thread::yield(); }
};

void jacobi_exchange(const WorkGroup& wg) {
  const JacobiExchangeArgs& a = wg.args<JacobiExchangeArgs>();
  double local = 0.0;
  if (a.partials) {
    std::array<double, kJacobiGroup> s{};
    for (unsigned t = 0; t < kJacobiGroup; ++t) {
      for (unsigned i = t; i < a.count; i += kJacobiGroup) s[t] += a.partials[i];
    }
    local = tree(s);
  }
  if (!kernels::jacobi_team_exchange<HostOps>(*a.team, a.partials != nullptr, local)) {
    *a.condition = 0u;
    return;
  }
  if (!a.partials) return;
  const double total = kernels::jacobi_team_norm2(*a.team, kernels::jacobi_team_take_row(*a.team));
  *a.norm2 = total;
  *a.condition = total > a.tolerance2 ? 1u : 0u;
}
}  // namespace

void register_jacobi_builtins() {
  register_host_kernel(make_host_kernel<JacobiArgs>(
      "jacobi_sweep", &sweep<JacobiArgs, &kernels::jacobi_point>,
      {host_arg("out", &JacobiArgs::out), host_arg("in", &JacobiArgs::in), host_arg("rhs", &JacobiArgs::rhs),
       host_arg("nx", &JacobiArgs::nx), host_arg("ny", &JacobiArgs::ny), host_arg("nz", &JacobiArgs::nz),
       host_arg("h2", &JacobiArgs::h2), host_arg("partials", &JacobiArgs::partials)}));
  register_host_kernel(make_host_kernel<JacobiCheckArgs>(
      "jacobi_check", &jacobi_check,
      {host_arg("partials", &JacobiCheckArgs::partials), host_arg("count", &JacobiCheckArgs::count),
       host_arg("tolerance2", &JacobiCheckArgs::tolerance2), host_arg("condition", &JacobiCheckArgs::condition),
       host_arg("norm2", &JacobiCheckArgs::norm2)}));
  register_host_kernel(make_host_kernel<JacobiSlabArgs>(
      "jacobi_sweep_slab", &sweep<JacobiSlabArgs, &kernels::jacobi_slab_point>,
      {host_arg("out", &JacobiSlabArgs::out), host_arg("in", &JacobiSlabArgs::in), host_arg("rhs", &JacobiSlabArgs::rhs),
       host_arg("nx", &JacobiSlabArgs::nx), host_arg("ny", &JacobiSlabArgs::ny), host_arg("nz", &JacobiSlabArgs::nz),
       host_arg("h2", &JacobiSlabArgs::h2), host_arg("partials", &JacobiSlabArgs::partials),
       host_arg("lower", &JacobiSlabArgs::lower), host_arg("upper", &JacobiSlabArgs::upper)}));
  register_host_kernel(make_host_kernel<JacobiExchangeArgs>(
      "jacobi_exchange", &jacobi_exchange,
      {host_arg("team", &JacobiExchangeArgs::team), host_arg("partials", &JacobiExchangeArgs::partials),
       host_arg("count", &JacobiExchangeArgs::count), host_arg("tolerance2", &JacobiExchangeArgs::tolerance2),
       host_arg("condition", &JacobiExchangeArgs::condition), host_arg("norm2", &JacobiExchangeArgs::norm2)}));
}

}  // namespace hsad::host_kernels
