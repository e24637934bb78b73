// Host builds of the built-in kernels, for the cpu agent: each loops over one work-group's
// items and calls the same per-item function the GPU build calls.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "bitonic.hpp"
#include "laplacian.hpp"
#include "hsad/host_kernel.hpp"

namespace hsad::host_kernels {
namespace {
using kernels::BitonicArgs;

// Pairs [begin, end) of one pass. Consecutive pairs within one block compare two contiguous runs
// of keys in one direction; looping over such a run lets the compiler vectorize the same
// compare-and-swap.
void order_pairs(std::uint32_t* keys, std::uint32_t stage, std::uint32_t pass, std::uint32_t ascending,
                 std::uint32_t begin, std::uint32_t end) {
  const std::uint32_t run = 1u << (stage - pass);
  for (std::uint32_t i = begin; i < end;) {
    const kernels::BitonicPair p = kernels::bitonic_pair(stage, pass, ascending, i);
    const std::uint32_t n = std::min(run - (i & (run - 1)), end - i);
    // The two runs never overlap (n <= distance), which the compiler needs to be told.
    std::uint32_t* __restrict x = keys + p.left;
    std::uint32_t* __restrict y = keys + p.right;
    if (p.up) {
      for (std::uint32_t j = 0; j < n; ++j) kernels::bitonic_order(x[j], y[j], true);
    } else {
      for (std::uint32_t j = 0; j < n; ++j) kernels::bitonic_order(x[j], y[j], false);
    }
    i += n;
  }
}

void bitonic_step(const WorkGroup& wg) {
  const BitonicArgs& a = wg.args<BitonicArgs>();
  const std::uint32_t end = std::min(wg.end_x(), a.n / 2);
  if (wg.first_x() < end) order_pairs(a.keys, a.stage, a.pass, a.ascending, wg.first_x(), end);
}

// The short passes of one chunk, pass after pass over all its pairs, in place (the chunk stays in
// this core's cache as it would in LDS): the same passes as kernels::bitonic_local_item, in runs.
void bitonic_local(const WorkGroup& wg) {
  const kernels::BitonicLocalArgs& a = wg.args<kernels::BitonicLocalArgs>();
  const std::uint32_t pairs = 1u << (a.chunk_log2 - 1), first = wg.id.x * pairs;
  if ((std::uint64_t(wg.id.x) << a.chunk_log2) >= a.n) return;
  for (std::uint32_t stage = a.first_stage; stage <= a.last_stage; ++stage) {
    for (std::uint32_t pass = kernels::bitonic_local_first_pass(stage, a.chunk_log2); pass <= stage; ++pass) {
      order_pairs(a.keys, stage, pass, a.ascending, first, first + pairs);
    }
  }
}

void bitonic_long(const WorkGroup& wg) {
  const kernels::BitonicLongArgs& a = wg.args<kernels::BitonicLongArgs>();
  for (std::uint32_t i = wg.first_x(), end = std::min(wg.end_x(), a.n >> a.passes); i < end; ++i) {
    if (a.passes == 3) kernels::bitonic_long_item<3>(a, i);
    else if (a.passes == 2) kernels::bitonic_long_item<2>(a, i);
    else kernels::bitonic_long_item<1>(a, i);
  }
}

void empty(const WorkGroup&) {}

using kernels::LaplacianArgs;
using kernels::LaplacianSeedArgs;

// Kernel 5/6/7/8 index mappings, as the GPU builds compute them from block and thread ids.
enum class Mapping { xyz, yzx, xyz_offset, zmarch };

template <int M, Mapping MAP>
void laplacian(const WorkGroup& wg) {
  LaplacianArgs a;
  if constexpr (MAP == Mapping::xyz_offset) {
    a = wg.args<LaplacianArgs>();
  } else {
    const LaplacianSeedArgs& s = wg.args<LaplacianSeedArgs>();
    a = LaplacianArgs{s.f, s.u, s.nx, s.ny, s.nz, s.invhx2, s.invhy2, s.invhz2, s.invhxyz2, 0, s.ny};
  }
  for (std::uint32_t tz = 0; tz < wg.size.z; ++tz) {
    for (std::uint32_t ty = 0; ty < wg.size.y; ++ty) {
      for (std::uint32_t tx = 0; tx < wg.size.x; ++tx) {
        int i, j, k;
        if constexpr (MAP == Mapping::zmarch) {  // (x, y), and the work-group's layer is the z-chunk
          kernels::laplacian_zmarch_item<M>(a, int(tx + wg.id.x * wg.size.x), int(ty + wg.id.y * wg.size.y), int(wg.id.z));
          continue;
        } else if constexpr (MAP == Mapping::yzx) {
          i = int(tx + wg.id.z * wg.size.x);
          j = M * int(ty + wg.id.x * wg.size.y);
          k = int(tz + wg.id.y * wg.size.z);
        } else {
          i = int(tx + wg.id.x * wg.size.x);
          j = (MAP == Mapping::xyz_offset ? a.sy : 0) + M * int(ty + wg.id.y * wg.size.y);
          k = int(tz + wg.id.z * wg.size.z);
        }
        kernels::laplacian_item<M>(a, i, j, k);
      }
    }
  }
}

void copy_f64(const WorkGroup& wg) {
  const kernels::CopyArgs& a = wg.args<kernels::CopyArgs>();
  const std::uint64_t begin = wg.first_x();
  const std::uint64_t end = std::min<std::uint64_t>(wg.end_x(), a.count);
  if (begin < end) std::memcpy(a.dst + begin, a.src + begin, (end - begin) * sizeof(double));
}

std::vector<ArgInfo> seed_args() {
  return {host_arg("f", &LaplacianSeedArgs::f),          host_arg("u", &LaplacianSeedArgs::u),
          host_arg("nx", &LaplacianSeedArgs::nx),        host_arg("ny", &LaplacianSeedArgs::ny),
          host_arg("nz", &LaplacianSeedArgs::nz),        host_arg("invhx2", &LaplacianSeedArgs::invhx2),
          host_arg("invhy2", &LaplacianSeedArgs::invhy2), host_arg("invhz2", &LaplacianSeedArgs::invhz2),
          host_arg("invhxyz2", &LaplacianSeedArgs::invhxyz2)};
}

template <int M>
void register_zmarch() {
  const std::string name = "laplacian8_m" + std::to_string(M);
  register_host_kernel(make_host_kernel<LaplacianSeedArgs>(name, &laplacian<M, Mapping::zmarch>, seed_args()));
}

template <int M>
void register_laplacians() {
  const std::string m = "_m" + std::to_string(M);
  register_host_kernel(make_host_kernel<LaplacianSeedArgs>("laplacian5" + m, &laplacian<M, Mapping::xyz>, seed_args()));
  register_host_kernel(make_host_kernel<LaplacianSeedArgs>("laplacian6" + m, &laplacian<M, Mapping::yzx>, seed_args()));
  register_zmarch<M>();
  auto args = seed_args();
  // LaplacianArgs extends the seed's layout: the same offsets, then sy and ey.
  args.push_back(host_arg("sy", &LaplacianArgs::sy));
  args.push_back(host_arg("ey", &LaplacianArgs::ey));
  register_host_kernel(make_host_kernel<LaplacianArgs>("laplacian7" + m, &laplacian<M, Mapping::xyz_offset>, args));
}
}  // namespace

void register_memory_builtins();  // memory_builtins.cpp
void register_jacobi_builtins();  // jacobi_builtins.cpp

void register_builtins() {
  register_host_kernel(make_host_kernel<BitonicArgs>(
      "bitonic_step", &bitonic_step,
      {host_arg("keys", &BitonicArgs::keys), host_arg("stage", &BitonicArgs::stage),
       host_arg("pass", &BitonicArgs::pass), host_arg("ascending", &BitonicArgs::ascending),
       host_arg("n", &BitonicArgs::n)}));
  register_host_kernel(make_host_kernel<kernels::BitonicLocalArgs>(
      "bitonic_local", &bitonic_local,
      {host_arg("keys", &kernels::BitonicLocalArgs::keys), host_arg("first_stage", &kernels::BitonicLocalArgs::first_stage),
       host_arg("last_stage", &kernels::BitonicLocalArgs::last_stage),
       host_arg("ascending", &kernels::BitonicLocalArgs::ascending),
       host_arg("chunk_log2", &kernels::BitonicLocalArgs::chunk_log2), host_arg("n", &kernels::BitonicLocalArgs::n)}));
  register_host_kernel(make_host_kernel<kernels::BitonicLongArgs>(
      "bitonic_long", &bitonic_long,
      {host_arg("keys", &kernels::BitonicLongArgs::keys), host_arg("stage", &kernels::BitonicLongArgs::stage),
       host_arg("first_pass", &kernels::BitonicLongArgs::first_pass),
       host_arg("passes", &kernels::BitonicLongArgs::passes),
       host_arg("ascending", &kernels::BitonicLongArgs::ascending), host_arg("n", &kernels::BitonicLongArgs::n)}));
  register_host_kernel(make_host_kernel("hsad_empty", &empty));
  register_laplacians<4>();
  register_laplacians<8>();
  register_laplacians<16>();
  register_zmarch<32>();  // Kernel 8 only: its measured chunk length (docs/results.md)
  register_host_kernel(make_host_kernel<kernels::CopyArgs>(
      "hsad_copy_f64", &copy_f64,
      {host_arg("dst", &kernels::CopyArgs::dst), host_arg("src", &kernels::CopyArgs::src),
       host_arg("count", &kernels::CopyArgs::count)}));
  register_memory_builtins();
  register_jacobi_builtins();
}

}  // namespace hsad::host_kernels
