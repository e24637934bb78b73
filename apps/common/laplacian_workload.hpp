// The Laplacian sequences: one application of the operator is `split` dispatches (Kernel 7's
// subdomains; one dispatch for Kernels 5 and 6); `iters` applications are one batch with
// barrier bits and one wait under the same Options as the bitonic sort.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hsad/hsad.hpp"

namespace hsad::bench {

struct LaplacianConfig {
  int nx = 512, ny = 512, nz = 512;
  int kernel = 7;  // 5, 6, 7 or 8
  int split = 1;   // Kernel 7 only: y-subdomains dispatched in sequence
  int m = 8;       // tiling factor in y (5-7): 4, 8 or 16; planes per chunk in z (8): also 32
  std::array<std::uint32_t, 3> block = {256, 1, 1};
  int iters = 10;  // applications per batch
};

// Checks sizes and that the grid fits the device; throws hsad::Error naming what is wrong.
void validate(const LaplacianConfig& c, const DeviceInfo& device);
// The split that keeps three xy-planes of a subdomain in half the last-level cache (the seed
// keeps them in all of it; half is what the H100 measured, docs/results.md).
// Cache size unknown: 1, no split (nothing to fit the subdomains to; Kernel 7 is then Kernel 5).
int auto_split(int nx, int ny, std::optional<std::uint64_t> last_level_cache_bytes);
// Kernel 8's planes per work-item (--m auto): 4 where sixteen xy-planes fit in the last-level
// cache (the two planes a chunk re-reads are then still cached, and short chunks give more
// work-groups), else 32 (re-reads from memory then cost 2 planes in 34). Measured on the H100
// at the four sizes of docs/results.md. Cache size unknown: 32, the choice that is right at
// every size (at 512^3, where 4 is best, 32 gave 0.935 of the copy bandwidth against 0.976).
int auto_zmarch_planes(int nx, int ny, std::optional<std::uint64_t> last_level_cache_bytes);

// The operator's four coefficients, as the kernels take them.
struct LaplacianCoefficients {
  double x, y, z, centre;
};
// The lab notes' Laplacian on a grid of nx x ny x nz points, unit cube: 1/h^2 per axis.
LaplacianCoefficients laplacian_coefficients(int nx, int ny, int nz);
// The grid's starting values: a cheap deterministic hash of the point's global index, in [0, 1).
double laplacian_initial_u(std::size_t global_index);

// Records one application of `k` (config's kernel, split and block) that computes the planes
// [first, first + planes) of an array of nx x ny x (any) points whose plane 0 is at f and u; it
// reads planes first - 1 to first + planes. The kernels only ever see an array of planes + 2
// planes starting at plane first - 1, so a slab of a larger grid, or one plane of it, computes
// exactly what the whole grid's dispatch computes at those points.
// Addresses::unchecked passes f and u as they are (Arg::unchecked): for an injected fault.
enum class Addresses { checked, unchecked };
void record_laplacian(Batch& batch, const Kernel& k, const LaplacianConfig& c, double* f, const double* u, int first,
                      int planes, const LaplacianCoefficients& co, Addresses addresses = Addresses::checked);

// "laplacian7_m8": the kernel a configuration dispatches.
std::string laplacian_kernel_name(const LaplacianConfig& c);

class LaplacianWorkload {
 public:
  LaplacianWorkload(const Device& device, const LaplacianConfig& config, const Options& options);

  void run();            // one batch: config.iters applications, one wait
  // The same batch with Options::profile: when each dispatch ran on the device.
  std::vector<CommandTime> run_profiled();
  double copy_run();     // one batch of config.iters device copies of the same grid; returns bytes per copy
  // Copies f back and compares it with the CPU reference: the largest absolute error on the
  // interior, and whether every boundary point still holds its sentinel.
  struct Check {
    double max_abs_error = 0;
    bool boundary_untouched = true;
  };
  Check verify();

  const LaplacianConfig& config() const { return c_; }
  std::size_t dispatches_per_application() const { return std::size_t(c_.kernel == 7 ? c_.split : 1); }

  static constexpr double kSentinel = -12345.0;

 private:
  Device device_;
  LaplacianConfig c_;
  Options options_;
  Queue queue_;
  std::size_t points_;
  Buffer u_, f_, scratch_;
  Batch batch_, copies_;
  std::vector<double> host_u_;
  double invhx2_, invhy2_, invhz2_, invhxyz2_;
};

}  // namespace hsad::bench
