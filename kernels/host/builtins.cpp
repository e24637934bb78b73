// Host builds of the built-in kernels, for the cpu agent: each loops over one work-group's
// items and calls the same per-item function the GPU build calls.
#include <algorithm>

#include "bitonic.hpp"
#include "hsad/host_kernel.hpp"

namespace hsad::host_kernels {
namespace {
using kernels::BitonicArgs;

void bitonic_step(const WorkGroup& wg) {
  const BitonicArgs& a = wg.args<BitonicArgs>();
  // Consecutive items whose pairs lie in one block compare two contiguous runs of keys in one
  // direction; looping over such a run lets the compiler vectorize the same compare-and-swap.
  const std::uint32_t run = 1u << (a.stage - a.pass);
  for (std::uint32_t i = wg.first_x(), end = wg.end_x(); i < end;) {
    const kernels::BitonicPair p = kernels::bitonic_pair(a.stage, a.pass, a.ascending, i);
    const std::uint32_t n = std::min(run - (i & (run - 1)), end - i);
    // The two runs never overlap (n <= distance), which the compiler needs to be told.
    std::uint32_t* __restrict x = a.keys + p.left;
    std::uint32_t* __restrict y = a.keys + p.right;
    if (p.up) {
      for (std::uint32_t j = 0; j < n; ++j) kernels::bitonic_order(x[j], y[j], true);
    } else {
      for (std::uint32_t j = 0; j < n; ++j) kernels::bitonic_order(x[j], y[j], false);
    }
    i += n;
  }
}

void empty(const WorkGroup&) {}
}  // namespace

void register_builtins() {
  register_host_kernel(make_host_kernel<BitonicArgs>(
      "bitonic_step", &bitonic_step,
      {host_arg("keys", &BitonicArgs::keys), host_arg("stage", &BitonicArgs::stage),
       host_arg("pass", &BitonicArgs::pass), host_arg("ascending", &BitonicArgs::ascending)}));
  register_host_kernel(make_host_kernel("hsad_empty", &empty));
}

}  // namespace hsad::host_kernels
