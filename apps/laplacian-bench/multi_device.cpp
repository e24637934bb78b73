// laplacian-bench --devices N: medians of the one-device and the N-device runs of the heat step,
// the figure of merit (the lab notes' bytes over the time of one step), the aggregate copy
// bandwidth, the parallel efficiency FOM(N) / (N FOM(1)), and the bit-exact check.
#include "multi_device.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "laplacian.hpp"
#include "summary.hpp"

namespace hsad::bench {

namespace {
std::string slab_list(const std::vector<Slab>& slabs) {
  std::string s;
  for (const Slab& x : slabs) s += (s.empty() ? "" : "+") + std::to_string(x.planes);
  return s;
}

struct Measured {
  double seconds_per_step = 0, copy_gbs = 0;
};

Measured measure(LaplacianSlabs& w, const LaplacianConfig& c, int reps) {
  w.run();  // warm-up
  Measured m;
  m.seconds_per_step = median_seconds(reps, [&] { w.run(); }) / c.iters;
  double bytes = 0;
  w.copy_run();
  const double t_copy = median_seconds(reps, [&] { bytes = w.copy_run(); }) / c.iters;
  m.copy_gbs = bytes / t_copy / 1e9;
  return m;
}
}  // namespace

std::vector<Row> run_multi_device(const std::string& backend, const std::vector<Device>& devices,
                                  const MultiDeviceRun& run, bool& verified) {
  const int n = int(devices.size());
  LaplacianConfig one = run.config, all = run.config;
  if (run.weak) all.nz = n * (run.config.nz - 2) + 2;
  split_planes(all.nz, n);  // more devices than planes: refused before anything is allocated

  // --verify: the N-device result after --iters steps against the one-device run of the same
  // grid, bit for bit, and (small grids) against the host's steps.
  std::string verdict = "null", error = "null";
  verified = true;
  if (run.verify) {
    LaplacianSlabs many(devices, all, run.options, run.route), single({devices.front()}, all, run.options);
    many.run();
    single.run();
    const std::vector<double> got = many.gather(), want = single.gather();
    const bool same = std::memcmp(got.data(), want.data(), got.size() * sizeof(double)) == 0;
    double max_error = 0;
    const bool small = double(got.size()) * all.iters <= 6e7;
    if (small) {
      const std::vector<double> ref = LaplacianSlabs::reference(all, all.iters);
      for (std::size_t i = 0; i < ref.size(); ++i) max_error = std::max(max_error, std::abs(want[i] - ref[i]));
      error = fixed(max_error, 15);
    }
    verified = same && max_error < 1e-12;
    verdict = verified ? "true" : "false";
  }

  std::vector<Row> rows;
  double fom_one = 0;
  for (int count : {1, n}) {
    const LaplacianConfig& c = count == 1 ? one : all;
    const std::vector<Device> used(devices.begin(), devices.begin() + count);
    LaplacianSlabs w(used, c, run.options, run.route);
    const Measured m = measure(w, c, run.reps);
    const double fom = kernels::laplacian_bytes(c.nx, c.ny, c.nz) / m.seconds_per_step / 1e9;
    if (count == 1) fom_one = fom;
    rows.push_back(Row{{"backend", backend},
                       {"device", used.front().info().name},
                       {"devices", std::to_string(count), true},
                       {"slabs", slab_list(w.slabs())},
                       {"nx", std::to_string(c.nx), true},
                       {"ny", std::to_string(c.ny), true},
                       {"nz", std::to_string(c.nz), true},
                       {"kernel", std::to_string(c.kernel), true},
                       {"split", std::to_string(c.split), true},
                       {"m", std::to_string(c.m), true},
                       {"halo", w.halo_path()},
                       {"halo_bytes_per_step", std::to_string(w.halo_bytes_per_step()), true},
                       {"dispatches_per_step", std::to_string(w.dispatches_per_step()), true},
                       {"ms_per_step", fixed(m.seconds_per_step * 1e3, 4), true},
                       {"fom_gbs", fixed(fom, 1), true},
                       {"fom_gbs_per_device", fixed(fom / count, 1), true},
                       {"copy_gbs", fixed(m.copy_gbs, 1), true},
                       {"ratio", fixed(fom / m.copy_gbs, 3), true},
                       {"efficiency", fixed(fom / (count * fom_one), 3), true},
                       {"max_abs_error", count == n ? error : "null", true},
                       {"verified", count == n ? verdict : "null", true}});
    if (n == 1) break;
  }
  return rows;
}

}  // namespace hsad::bench
