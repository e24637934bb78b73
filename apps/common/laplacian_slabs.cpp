// LaplacianSlabs: the slabs, their arrays and halos, the two recorded batches per device and
// parity (boundary + pushes, interior), and the timeline waits that order them.
//
// Step i reads array X (A on even steps, B on odd) and writes Y. On device d, whose slab has L
// planes at local planes 1..L (0 and L + 1 are halos):
//   boundary queue: waits for its own interior of step i-1 (which wrote X planes 2..L-1 and read
//     Y planes 1..L) and for both neighbours' boundary queues of step i-1 (their pushes into X's
//     halos have landed, and they have read the Y halos this step overwrites); computes Y planes
//     1 and L; pushes them into the neighbours' Y halos.
//   interior queue: waits for its own boundary queue of step i-1 (which wrote X planes 1 and L
//     and read Y planes 2 and L-1); computes Y planes 2..L-1, while the pushes run.
// All four waits name "the other queue's previous step": offset 0 on lockstep queues.
// A neighbour in another process (ExternalHalos) takes the staged form on that side, and the host
// stands in for the waits on its queues: after each step's boundary planes are complete it
// exchanges them, and the next step is submitted only once the neighbours' planes have arrived.
#include "laplacian_slabs.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace hsad::bench {

namespace {
constexpr auto kTimeout = std::chrono::minutes(10);

// The heat step the kernels compute: u + dt L u = dt/h^2 (neighbours) + (1 - 2 dt sum 1/h^2) u.
LaplacianCoefficients heat_step(const LaplacianConfig& c) {
  const LaplacianCoefficients l = laplacian_coefficients(c.nx, c.ny, c.nz);
  const double dt = 1.0 / (4.0 * (l.x + l.y + l.z));
  return {dt * l.x, dt * l.y, dt * l.z, 1.0 + dt * l.centre};
}
}  // namespace

std::vector<Slab> split_planes(int nz, int devices) {
  const int planes = nz - 2;
  if (devices < 1 || devices > planes) {
    throw Error("laplacian", "--devices",
                std::to_string(devices) + " devices for " + std::to_string(planes) + " interior planes (nz = " +
                    std::to_string(nz) + "): every device needs at least one",
                "use at most " + std::to_string(planes) + " devices, or a larger --nz");
  }
  return split_range(Slab{1, planes}, devices);
}

std::vector<Slab> split_range(const Slab& range, int devices) {
  const int planes = range.planes;
  if (devices < 1 || devices > planes) {
    throw Error("laplacian", "--devices",
                std::to_string(devices) + " devices for " + std::to_string(planes) + " planes (" +
                    std::to_string(range.first) + "-" + std::to_string(range.first + planes - 1) +
                    "): every device needs at least one");
  }
  std::vector<Slab> s(devices);
  int first = range.first;
  for (int d = 0; d < devices; ++d) {
    s[d] = {first, planes / devices + (d < planes % devices ? 1 : 0)};
    first += s[d].planes;
  }
  return s;
}

HaloRoute parse_halo_route(const std::string& text) {
  if (text == "auto") return HaloRoute::automatic;
  if (text == "peer") return HaloRoute::peer;
  if (text == "staged") return HaloRoute::staged;
  throw Error("laplacian", "--halo", "unknown halo route '" + text + "'", "valid: auto, peer, staged");
}

struct LaplacianSlabs::Part {
  Device device;
  Slab slab;
  Buffer a, b, scratch;  // the two arrays (slab + halos) and the copy measurement's target
  // Staged route, by parity of the step that wrote them: this slab's plane L for the device above,
  // and plane 1 for the device below, in pinned host memory of this device.
  Buffer up[2], down[2];
  // From another process (ExternalHalos, not direct), by the parity of the step that wrote them:
  // its plane next to this slab's plane 1 and plane L.
  Buffer from_below[2], from_above[2];
  bool external_below = false, external_above = false;
  Queue boundary, interior, copier;
  Batch bnd[2], inner[2], last[2], copies;
  std::vector<Submission> in_flight;
  double* plane(const Buffer& buf, int local) const {
    return static_cast<double*>(buf.device_ptr()) + std::size_t(local) * plane_points;
  }
  std::size_t plane_points = 0;
};

LaplacianSlabs::LaplacianSlabs(const std::vector<Device>& devices, const LaplacianConfig& config,
                               const Options& options, HaloRoute route, ProcessPart part)
    : c_(config),
      options_(options),
      range_(part.range.planes ? part.range : Slab{1, config.nz - 2}),
      halos_(part.halos),
      slabs_(part.range.planes ? split_range(range_, int(devices.size())) : split_planes(config.nz, int(devices.size()))) {
  if (devices.empty()) throw Error("laplacian", "--devices", "no device given");
  if (range_.first < 1 || range_.first + range_.planes > c_.nz - 1) {
    throw Error("laplacian", "slabs", "planes " + std::to_string(range_.first) + "-" +
                                          std::to_string(range_.first + range_.planes - 1) + " lie outside the grid's interior");
  }
  {
    LaplacianConfig largest = c_;  // each device holds its slab and halos, not the grid
    largest.nz = slabs_.front().planes + 2;
    validate(largest, devices.front().info());
  }
  const std::size_t n = devices.size();
  bool peers = true;
  for (std::size_t d = 0; d + 1 < n; ++d) {
    peers = peers && devices[d].can_access_peer(devices[d + 1]) && devices[d + 1].can_access_peer(devices[d]);
  }
  if (route == HaloRoute::peer && !peers && n > 1) {
    throw Error("laplacian", "--halo", "--halo peer: neighbouring devices cannot reach each other's memory",
                "use --halo auto or staged");
  }
  staged_ = n > 1 && (route == HaloRoute::staged || !peers);
  const bool external_below = halos_ && halos_->below(), external_above = halos_ && halos_->above();
  const bool direct = halos_ && halos_->direct();
  split_ = n > 1 || external_below || external_above;

  const std::size_t plane = std::size_t(c_.nx) * c_.ny;
  for (std::size_t d = 0; d < n; ++d) parts_.push_back(std::make_unique<Part>());
  for (std::size_t d = 0; d < n; ++d) {
    Part& p = *parts_[d];
    p.device = devices[d];
    p.slab = slabs_[d];
    p.plane_points = plane;
    p.external_below = d == 0 && external_below;
    p.external_above = d + 1 == n && external_above;
    const std::size_t local = std::size_t(p.slab.planes + 2) * plane;
    p.a = p.device.alloc(local * sizeof(double));
    p.b = p.device.alloc(local * sizeof(double));
    p.scratch = p.device.alloc(std::size_t(p.slab.planes) * plane * sizeof(double));
    // Both arrays start as the grid's values at planes first - 1 .. first + L (the boundary
    // planes of the grid never change: they are the heat equation's fixed values).
    std::vector<double> host(local);
    const std::size_t base = std::size_t(p.slab.first - 1) * plane;
    for (std::size_t i = 0; i < local; ++i) host[i] = laplacian_initial_u(base + i);
    p.device.copy_to_device(p.a, host.data(), local * sizeof(double));
    p.device.copy_to_device(p.b, host.data(), local * sizeof(double));
    // Step 0 uploads what "step -1" left: the starting planes, which the halos already hold.
    auto pinned_plane = [&](Buffer& b, std::size_t local_plane) {
      b = p.device.alloc(plane * sizeof(double), Memory::pinned_host);
      std::memcpy(b.host_ptr(), host.data() + local_plane * plane, plane * sizeof(double));
    };
    for (int parity = 0; parity < 2; ++parity) {
      if (staged_ || (p.external_above && !direct)) pinned_plane(p.up[parity], std::size_t(p.slab.planes));
      if (staged_ || (p.external_below && !direct)) pinned_plane(p.down[parity], 1);
      if (p.external_below && !direct) pinned_plane(p.from_below[parity], 0);
      if (p.external_above && !direct) pinned_plane(p.from_above[parity], std::size_t(p.slab.planes) + 1);
    }
    if (split_) p.boundary = p.device.create_queue(0, Priority::high);  // boundary first: others wait for it
    p.interior = p.device.create_queue();
    p.copier = p.device.create_queue();
  }
  for (std::size_t d = 0; d < n; ++d) {
    for (int parity = 0; parity < 2; ++parity) record(d, parity);
    const Kernel copy = parts_[d]->device.kernel("hsad_copy_f64");
    const std::uint64_t points = std::uint64_t(parts_[d]->slab.planes) * plane;
    for (int it = 0; it < c_.iters; ++it) {
      parts_[d]->copies.exec(copy, Dim3{std::uint32_t((points + 255) / 256 * 256)}, Dim3{256},
                            {parts_[d]->scratch, parts_[d]->plane(parts_[d]->a, 1), static_cast<unsigned long long>(points)});
    }
  }
  dispatches_per_step_ = 0;
  for (const auto& p : parts_) {
    dispatches_per_step_ += p->bnd[0].dispatch_count() + p->inner[0].dispatch_count();
  }
}

LaplacianSlabs::~LaplacianSlabs() = default;

void LaplacianSlabs::record(std::size_t d, int parity) {
  Part& p = *parts_[d];
  const std::size_t n = parts_.size();
  const bool below = d > 0 || p.external_below, above = d + 1 < n || p.external_above;
  const bool staged_out = halos_ && !halos_->direct();  // the external sides' planes go through pinned memory
  const Buffer& x = parity == 0 ? p.a : p.b;  // read by this step
  const Buffer& y = parity == 0 ? p.b : p.a;  // written by it
  const int L = p.slab.planes;
  const std::size_t plane_bytes = p.plane_points * sizeof(double);
  const LaplacianCoefficients co = heat_step(c_);
  const Kernel k = p.device.kernel(laplacian_kernel_name(c_));
  double* yp = static_cast<double*>(y.device_ptr());
  const double* xp = static_cast<const double*>(x.device_ptr());

  // Planes with a neighbour on their side go first, on the boundary queue; the rest is interior.
  const int lo = below ? 2 : 1, hi = above ? L - 1 : L;
  Batch& bnd = p.bnd[parity];
  if (split_) {
    bnd.wait(p.interior, 0);
    if (d > 0) bnd.wait(parts_[d - 1]->boundary, 0);
    if (d + 1 < n) bnd.wait(parts_[d + 1]->boundary, 0);
    // The neighbours' planes of the step before, into X's halos (a direct exchange put them there).
    if (p.external_below && staged_out) bnd.copy_to_device(x, p.from_below[parity ^ 1].host_ptr(), plane_bytes, 0);
    if (d > 0 && staged_) bnd.copy_to_device(x, parts_[d - 1]->up[parity ^ 1].host_ptr(), plane_bytes, 0);
    const std::size_t top_halo = std::size_t(L + 1) * plane_bytes;
    if (p.external_above && staged_out) bnd.copy_to_device(x, p.from_above[parity ^ 1].host_ptr(), plane_bytes, top_halo);
    if (d + 1 < n && staged_) bnd.copy_to_device(x, parts_[d + 1]->down[parity ^ 1].host_ptr(), plane_bytes, top_halo);
    if (below) record_laplacian(bnd, k, c_, yp, xp, 1, 1, co);
    if (above && (L > 1 || !below)) record_laplacian(bnd, k, c_, yp, xp, L, 1, co);
    if (below && (d > 0 ? staged_ : staged_out)) bnd.copy_to_host(p.down[parity].host_ptr(), y, plane_bytes, plane_bytes);
    if (d > 0 && !staged_) {
      bnd.copy(parity == 0 ? parts_[d - 1]->b : parts_[d - 1]->a, y, plane_bytes,
               std::size_t(parts_[d - 1]->slab.planes + 1) * plane_bytes, plane_bytes);
    }
    if (above && (d + 1 < n ? staged_ : staged_out)) {
      bnd.copy_to_host(p.up[parity].host_ptr(), y, plane_bytes, std::size_t(L) * plane_bytes);
    }
    if (d + 1 < n && !staged_) bnd.copy(parity == 0 ? parts_[d + 1]->b : parts_[d + 1]->a, y, plane_bytes, 0, std::size_t(L) * plane_bytes);
  }
  auto interior = [&](Batch& inner) {
    if (split_) inner.wait(p.boundary, 0);
    record_laplacian(inner, k, c_, yp, xp, lo, hi - lo + 1, co);
  };
  interior(p.inner[parity]);
  if (d == 0 && split_) {
    // The last step's interior on the first device also waits for every other queue's same step
    // (submitted before it), after its own dispatches: the host's one wait covers all of them.
    interior(p.last[parity]);
    p.last[parity].wait(p.boundary, 1);
    for (std::size_t o = 1; o < n; ++o) p.last[parity].wait(parts_[o]->boundary, 1).wait(parts_[o]->interior, 1);
  }
}

void LaplacianSlabs::run() {
  Part& first = *parts_.front();
  Part& top = *parts_.back();
  for (int it = 0; it < c_.iters; ++it) {
    const int parity = steps_ % 2;
    const bool last = it + 1 == c_.iters;
    // The boundary submissions whose planes go to other processes, as (part, index in in_flight).
    std::vector<std::pair<Part*, std::size_t>> outer;
    for (auto& part : parts_) {
      Part& p = *part;
      if (p.boundary) {
        p.in_flight.push_back(p.boundary.submit(p.bnd[parity], options_, kTimeout));
        if (p.external_below || p.external_above) outer.emplace_back(&p, p.in_flight.size() - 1);
      }
      if (&p != &first || !last) p.in_flight.push_back(p.interior.submit(p.inner[parity], options_, kTimeout));
    }
    // The first device's interior goes last in the last step: its batch waits for the rest of it.
    if (last) first.in_flight.push_back(first.interior.submit(split_ ? first.last[parity] : first.inner[parity],
                                                              options_, kTimeout));
    if (halos_) {
      // The interiors compute while the planes travel; the next step's boundary needs them.
      for (const auto& [p, index] : outer) p->in_flight[index].wait(kTimeout);
      const std::size_t plane = first.plane_points;
      const Buffer& y_first = parity == 0 ? first.b : first.a;
      const Buffer& y_top = parity == 0 ? top.b : top.a;
      if (halos_->direct()) {
        halos_->exchange(first.external_below ? first.plane(y_first, 1) : nullptr,
                         top.external_above ? top.plane(y_top, top.slab.planes) : nullptr,
                         first.external_below ? first.plane(y_first, 0) : nullptr,
                         top.external_above ? top.plane(y_top, top.slab.planes + 1) : nullptr, plane);
      } else {
        auto host = [](Buffer& b) { return static_cast<double*>(b.host_ptr()); };
        halos_->exchange(first.external_below ? host(first.down[parity]) : nullptr,
                         top.external_above ? host(top.up[parity]) : nullptr,
                         first.external_below ? host(first.from_below[parity]) : nullptr,
                         top.external_above ? host(top.from_above[parity]) : nullptr, plane);
      }
    }
    ++steps_;
  }
  first.in_flight.back().wait(kTimeout);  // the one host wait
  for (auto& p : parts_) p->in_flight.clear();  // complete: released without another wait
}

double LaplacianSlabs::copy_run() {
  std::vector<Submission> subs;
  for (auto& p : parts_) subs.push_back(p->copier.submit(p->copies, options_, kTimeout));
  for (Submission& s : subs) s.wait(kTimeout);
  double bytes = 0;
  for (const auto& p : parts_) bytes += 2.0 * double(p->slab.planes) * double(p->plane_points) * sizeof(double);
  return bytes;
}

int LaplacianSlabs::gather_first() const { return range_.first == 1 ? 0 : range_.first; }

std::vector<double> LaplacianSlabs::gather() const {
  const std::size_t plane = std::size_t(c_.nx) * c_.ny;
  const int first = gather_first();
  const int end = range_.first + range_.planes + (range_.first + range_.planes == c_.nz - 1 ? 1 : 0);
  std::vector<double> all(plane * std::size_t(end - first));
  for (std::size_t d = 0; d < parts_.size(); ++d) {
    const Part& p = *parts_[d];
    const Buffer& now = steps_ % 2 == 0 ? p.a : p.b;
    // Owned planes, and the grid's fixed boundary planes from the first and last slab's halos.
    const int from = p.slab.first == 1 ? 0 : 1, to = p.slab.first + p.slab.planes == c_.nz - 1 ? p.slab.planes + 1 : p.slab.planes;
    p.device.copy_to_host(all.data() + std::size_t(p.slab.first - 1 + from - first) * plane, now,
                          std::size_t(to - from + 1) * plane * sizeof(double), std::size_t(from) * plane * sizeof(double));
  }
  return all;
}

std::vector<double> LaplacianSlabs::reference(const LaplacianConfig& c, int steps) {
  const std::size_t nx = c.nx, ny = c.ny, nz = c.nz, slice = nx * ny;
  std::vector<double> cur(slice * nz), next;
  for (std::size_t i = 0; i < cur.size(); ++i) cur[i] = laplacian_initial_u(i);
  next = cur;
  const LaplacianCoefficients co = heat_step(c);
  for (int s = 0; s < steps; ++s) {
    for (std::size_t k = 1; k + 1 < nz; ++k) {
      for (std::size_t j = 1; j + 1 < ny; ++j) {
        for (std::size_t i = 1; i + 1 < nx; ++i) {
          const std::size_t p = i + nx * j + slice * k;
          next[p] = (cur[p - 1] + cur[p + 1]) * co.x + (cur[p - nx] + cur[p + nx]) * co.y +
                    (cur[p - slice] + cur[p + slice]) * co.z + cur[p] * co.centre;
        }
      }
    }
    cur.swap(next);
  }
  return cur;
}

const char* LaplacianSlabs::halo_path() const {
  if (parts_.size() < 2) return "none";
  return staged_ ? "staged" : "peer";
}

std::uint64_t LaplacianSlabs::halo_bytes_per_step() const {
  return 2ull * (parts_.size() - 1) * std::uint64_t(c_.nx) * std::uint64_t(c_.ny) * sizeof(double);
}

}  // namespace hsad::bench
