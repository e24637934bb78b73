// LaplacianWorkload: grid set-up, the recorded batches, and the CPU reference.
#include "laplacian_workload.hpp"

#include <algorithm>
#include <cmath>

#include "laplacian.hpp"

namespace hsad::bench {

double laplacian_initial_u(std::size_t i) {
  // Neighbours differ, so a wrong index shows.
  std::uint64_t x = i * 0x9E3779B97F4A7C15ull;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 32;
  return double(x >> 11) * (1.0 / 9007199254740992.0);
}

LaplacianCoefficients laplacian_coefficients(int nx, int ny, int nz) {
  const double hx = 1.0 / (nx - 1), hy = 1.0 / (ny - 1), hz = 1.0 / (nz - 1);
  const double x = 1.0 / (hx * hx), y = 1.0 / (hy * hy), z = 1.0 / (hz * hz);
  return {x, y, z, -2.0 * (x + y + z)};
}

void record_laplacian(Batch& batch, const Kernel& k, const LaplacianConfig& c, double* f, const double* u, int first,
                      int planes, const LaplacianCoefficients& co, Addresses addresses) {
  if (planes < 1) return;
  const std::size_t offset = std::size_t(first - 1) * std::size_t(c.nx) * std::size_t(c.ny);
  const Arg fs = addresses == Addresses::unchecked ? Arg::unchecked(f + offset) : Arg(f + offset);
  const Arg us = addresses == Addresses::unchecked ? Arg::unchecked(u + offset) : Arg(u + offset);
  const int nz = planes + 2;
  const Dim3 group{c.block[0], c.block[1], c.block[2]};
  if (c.kernel == 7) {
    const int rows = (c.ny - 1) / c.split + 1;  // the seed's bny
    for (int s = 0; s < c.split; ++s) {
      const int sy = rows * s, ey = std::min(c.ny, sy + rows);
      if (sy >= ey) break;
      const auto shape = kernels::laplacian_shape(7, c.m, c.block.data(), c.nx, ey - sy, nz);
      batch.exec(k, Dim3{shape.grid[0], shape.grid[1], shape.grid[2]}, group,
                 {fs, us, c.nx, c.ny, nz, co.x, co.y, co.z, co.centre, sy, ey});
    }
  } else {
    const auto shape = kernels::laplacian_shape(c.kernel, c.m, c.block.data(), c.nx, c.ny, nz);
    batch.exec(k, Dim3{shape.grid[0], shape.grid[1], shape.grid[2]}, group,
               {fs, us, c.nx, c.ny, nz, co.x, co.y, co.z, co.centre});
  }
}

void validate(const LaplacianConfig& c, const DeviceInfo& device) {
  const char* names[] = {"--nx", "--ny", "--nz"};
  const int dims[] = {c.nx, c.ny, c.nz};
  for (int d = 0; d < 3; ++d) {
    if (dims[d] < 3) {
      throw Error("laplacian", names[d], std::string(names[d]) + " must be at least 3, got " + std::to_string(dims[d]));
    }
  }
  if (c.kernel != 5 && c.kernel != 6 && c.kernel != 7 && c.kernel != 8) {
    throw Error("laplacian", "--kernel", "kernel must be 5, 6, 7, 8 or auto, got " + std::to_string(c.kernel));
  }
  const bool kernel8 = c.kernel == 8;  // only Kernel 8 has a 32 variant (laplacian8_m32)
  if (c.m != 4 && c.m != 8 && c.m != 16 && !(kernel8 && c.m == 32)) {
    throw Error("laplacian", "--m",
                (kernel8 ? "Kernel 8's planes per work-item must be 4, 8, 16 or 32, got "
                         : "the tiling factor must be 4, 8 or 16, got ") + std::to_string(c.m));
  }
  if (c.split < 1 || c.split > c.ny) {
    throw Error("laplacian", "--split", "split must be from 1 to ny (" + std::to_string(c.ny) + "), got " + std::to_string(c.split));
  }
  if (c.kernel != 7 && c.split != 1) throw Error("laplacian", "--split", "only Kernel 7 splits the domain");
  if (c.kernel == 8 && c.block[2] != 1) {
    throw Error("laplacian", "--block", "Kernel 8 marches in z: its work-group must be one plane deep (--block X,Y,1)");
  }
  const std::uint64_t threads = std::uint64_t(c.block[0]) * c.block[1] * c.block[2];
  if (threads == 0 || threads > 1024) throw Error("laplacian", "--block", "the block must hold 1 to 1024 work-items");
  if (c.iters < 1) throw Error("laplacian", "--iters", "--iters must be at least 1");
  const double bytes = 3.0 * double(c.nx) * double(c.ny) * double(c.nz) * sizeof(double);  // u, f, copy scratch
  if (device.memory_bytes && bytes > 0.9 * double(device.memory_bytes)) {
    throw Error("laplacian", "grid",
                "a grid of " + std::to_string(c.nx) + " x " + std::to_string(c.ny) + " x " + std::to_string(c.nz) +
                    " needs " + std::to_string(bytes / double(1 << 30)).substr(0, 6) + " GiB (three arrays of doubles); " +
                    device.name + " has " + std::to_string(double(device.memory_bytes) / double(1 << 30)).substr(0, 6) +
                    " GiB",
                "reduce --nx, --ny or --nz");
  }
}

std::string laplacian_kernel_name(const LaplacianConfig& c) {
  return "laplacian" + std::to_string(c.kernel) + "_m" + std::to_string(c.m);
}

int auto_zmarch_planes(int nx, int ny, std::optional<std::uint64_t> llc) {
  if (!llc || *llc == 0) return 32;
  const double plane = double(nx) * ny * sizeof(double);
  return 16 * plane <= double(*llc) ? 4 : 32;
}

int auto_split(int nx, int ny, std::optional<std::uint64_t> llc) {
  if (!llc || *llc == 0) return 1;
  const double plane = double(nx) * ny * sizeof(double);
  // Three xy-planes of a subdomain in half the cache, not the whole of it (the seed's rule): on
  // the H100 (50 MB L2 in two partitions) Kernel 7 recovered at 2048^2 only from split 4 (three
  // 8 MiB band-planes) and at 4096^2 from split 16, not at 2 and 8 where the bands fill the L2
  // exactly (docs/results.md). Half also leaves room for the output stream and the ways a
  // set-associative cache loses to conflicts.
  const int split = int(std::ceil(6.0 * plane / double(*llc)));
  return std::clamp(split, 1, std::max(1, ny - 2));
}

LaplacianWorkload::LaplacianWorkload(const Device& device, const LaplacianConfig& config, const Options& options)
    : device_(device), c_(config), options_(options), queue_(device.create_queue()) {
  validate(c_, device.info());
  points_ = std::size_t(c_.nx) * c_.ny * c_.nz;
  u_ = device.alloc(points_ * sizeof(double));
  f_ = device.alloc(points_ * sizeof(double));
  scratch_ = device.alloc(points_ * sizeof(double));
  host_u_.resize(points_);
  for (std::size_t i = 0; i < points_; ++i) host_u_[i] = laplacian_initial_u(i);
  {
    // Both arrays in one submission: copies are commands of a batch like the dispatches.
    const std::vector<double> sentinel(points_, kSentinel);
    Batch setup;
    setup.copy_to_device(u_, host_u_.data(), points_ * sizeof(double))
        .copy_to_device(f_, sentinel.data(), points_ * sizeof(double));
    queue_.run(setup, options_, std::chrono::minutes(10));
  }
  const LaplacianCoefficients co = laplacian_coefficients(c_.nx, c_.ny, c_.nz);
  invhx2_ = co.x;
  invhy2_ = co.y;
  invhz2_ = co.z;
  invhxyz2_ = co.centre;

  const Kernel k = device.kernel(laplacian_kernel_name(c_));
  for (int it = 0; it < c_.iters; ++it) {
    record_laplacian(batch_, k, c_, static_cast<double*>(f_.device_ptr()), static_cast<const double*>(u_.device_ptr()),
                     1, c_.nz - 2, co);
  }
  const Kernel copy = device.kernel("hsad_copy_f64");
  const std::uint64_t groups = (points_ + 255) / 256;
  if (groups * 256 > 0xFFFFFFFFull) throw Error("laplacian", "grid", "the copy kernel's grid exceeds 2^32 work-items");
  for (int it = 0; it < c_.iters; ++it) {
    copies_.exec(copy, Dim3{static_cast<std::uint32_t>(groups * 256)}, Dim3{256},
                 {scratch_, u_, static_cast<unsigned long long>(points_)});
  }
}

void LaplacianWorkload::run() { queue_.run(batch_, options_, std::chrono::minutes(10)); }

std::vector<CommandTime> LaplacianWorkload::run_profiled() {
  Options o = options_;
  o.profile = true;
  Submission s = queue_.submit(batch_, o, std::chrono::minutes(10));
  s.wait(std::chrono::minutes(10));
  return s.timestamps();
}

double LaplacianWorkload::copy_run() {
  queue_.run(copies_, options_, std::chrono::minutes(10));
  return 2.0 * double(points_) * sizeof(double);
}

LaplacianWorkload::Check LaplacianWorkload::verify() {
  std::vector<double> f(points_);
  queue_.run(Batch{}.copy_to_host(f.data(), f_, points_ * sizeof(double)), options_, std::chrono::minutes(10));
  Check c;
  const std::size_t nx = c_.nx, ny = c_.ny, slice = nx * ny;
  const std::vector<double>& u = host_u_;
  for (std::size_t k = 0; k < std::size_t(c_.nz); ++k) {
    for (std::size_t j = 0; j < ny; ++j) {
      for (std::size_t i = 0; i < nx; ++i) {
        const std::size_t p = i + nx * j + slice * k;
        const bool boundary = i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == std::size_t(c_.nz) - 1;
        if (boundary) {
          c.boundary_untouched = c.boundary_untouched && f[p] == kSentinel;
          continue;
        }
        const double ref = (u[p - 1] + u[p + 1]) * invhx2_ + (u[p - nx] + u[p + nx]) * invhy2_ +
                           (u[p - slice] + u[p + slice]) * invhz2_ + u[p] * invhxyz2_;
        c.max_abs_error = std::max(c.max_abs_error, std::abs(f[p] - ref));
      }
    }
  }
  return c;
}

}  // namespace hsad::bench
