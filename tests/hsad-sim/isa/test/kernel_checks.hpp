// What each kernel must compute, written once for every place that runs AMD machine code: the
// interpreter alone on host memory (isa_tests) and ROCr on the simulated GPU through the library
// (hsad_sim_tests). A check makes its inputs, runs the kernel through a Runner, and compares the
// results with a CPU reference; it reports through GoogleTest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "hsad/batch.hpp"
#include "hsad/kernel.hpp"

namespace hsad::isa::testing {

class Runner {
 public:
  virtual ~Runner() = default;
  virtual std::string processor() const = 0;  // "gfx90a": where hipcc's rounding choices differ
  virtual unsigned wave_size() const = 0;
  // False where kernels run as their host builds (hsad-sim --exec host): x86-64 without fma
  // rounds the Laplacian differently, so it is compared within a bound instead of exactly.
  virtual bool runs_machine_code() const { return true; }
  // Device memory, zeroed: its device address.
  virtual void* alloc(std::size_t bytes) = 0;
  virtual void upload(void* device, const void* host, std::size_t bytes) = 0;
  virtual void download(void* host, const void* device, std::size_t bytes) = 0;
  virtual void run(const std::string& kernel, Dim3 grid, Dim3 group, const std::vector<Arg>& args) = 0;
  // HSA's partial work-groups: the grid exactly as given. A runner that writes packets itself
  // encodes every grid so; the library's batches only when asked (Batch::exec_partial_groups).
  virtual void run_partial_groups(const std::string& kernel, Dim3 grid, Dim3 group, const std::vector<Arg>& args) {
    run(kernel, grid, group, args);
  }

  template <class T>
  T* upload(const std::vector<T>& v) {
    auto* p = static_cast<T*>(alloc(v.size() * sizeof(T)));
    upload(p, v.data(), v.size() * sizeof(T));
    return p;
  }
  template <class T>
  std::vector<T> download(const T* p, std::size_t n) {
    std::vector<T> v(n);
    download(v.data(), p, n * sizeof(T));
    return v;
  }
};

// The interpreter's own kernels (kernels/isa_test_kernels.hip; w64_* for gfx1030 in wave64).
void check_reduce(Runner& r, const char* kernel = "isa_reduce");
void check_histogram(Runner& r);
void check_waves_side_by_side(Runner& r);
void check_lds_double_sums(Runner& r);
void check_saturating(Runner& r);
void check_packed_int(Runner& r);
void check_wide_arith(Runner& r);
void check_wave_ops(Runner& r, const char* kernel = "isa_wave_ops");
void check_collatz(Runner& r);
void check_grids(Runner& r);
void check_dims(Runner& r);
void check_gpr_index(Runner& r);
void check_scratch(Runner& r);
void check_math(Runner& r);
void check_trig(Runner& r);
void check_buffer_bounds(Runner& r);
void check_scalar_buffer_bounds(Runner& r);
// The scalar float instructions of RDNA3.5 (s_add_f32 ... s_cmp_nge_f32) against the host.
void check_salu_float(Runner& r);
// RDNA3's WMMA (f16 into f32, f16 into the high f16 halves, signed by unsigned bytes) against the host.
void check_wmma(Runner& r);
// Packed f32 with inline constants (gfx90a and gfx94x; nothing on other targets).
void check_pk_f32_constants(Runner& r);
// The matrix instructions of gfx908 and gfx90a (matrix_checks.cpp); nothing on other targets.
void check_mfma(Runner& r);
// An 8-bit float's value from its format's definition: E4M3 or (e5m2) E5M2; CDNA3's FNUZ encodings
// or (ocp) OCP's.
double f8_value(std::uint32_t x, bool e5m2, bool ocp);
void check_mfma_partial_exec(Runner& r);
// The sparse matrix instructions of CDNA3 and CDNA4 (v_smfmac_*); nothing on other targets.
void check_smfmac(Runner& r);
// RDNA4's sparse WMMA (v_swmmac_*, wave32); nothing on other targets.
void check_swmmac(Runner& r);
// One sparse form of each family at partial EXEC (isa_smfmac_partial, isa_swmmac_partial).
void check_sparse_partial_exec(Runner& r);

// The project's kernels (the library's embedded code objects).
void check_bitonic(Runner& r);
void check_copy_and_empty(Runner& r);
void check_laplacian(Runner& r);

}  // namespace hsad::isa::testing
