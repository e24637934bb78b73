// The Jacobi solver over several devices: a slab, a team and a mailbox per device, batches
// recorded per solve as the one-device solver's are.
#include "jacobi_slabs.hpp"

#include <cmath>
#include <cstring>
#include <string>

#include "jacobi.hpp"
#include "run_timer.hpp"

namespace hsad::bench {

using kernels::JacobiMailbox;
using kernels::JacobiTeam;
using kernels::kJacobiGroup;
using kernels::kJacobiMaxDevices;

struct JacobiSlabs::Part {
  Device device;
  Slab slab;
  int nz = 0;  // the slab's planes and its two ghost planes
  std::uint64_t points = 0;
  unsigned groups = 0;  // of a sweep
  Buffer u, v, f, partials;
  Buffer state;    // the loop's condition (uint32) at 0, the squared norm (double) at 8
  Buffer team;     // JacobiTeam
  Buffer mailbox;  // JacobiMailbox, written by every device
  Buffer pinned;   // after a submission: the state (16 bytes), then the team's first 16 bytes
};

namespace {
constexpr std::size_t kTeamHead = 16;  // JacobiTeam's rank, size, epoch, failed

double* plane_of(const Buffer& b, int nx, int z) {
  return static_cast<double*>(b.device_ptr()) + std::size_t(z) * std::size_t(nx) * std::size_t(nx);
}
}  // namespace

JacobiSlabs::JacobiSlabs(const std::vector<Device>& devices, const JacobiProblem& problem) : p_(problem) {
  const int count = int(devices.size());
  if (count < 1 || count > int(kJacobiMaxDevices)) {
    throw Error(Errc::invalid_argument, "jacobi", "--devices",
                std::to_string(count) + " devices: the solver's team holds 1 to " + std::to_string(kJacobiMaxDevices));
  }
  if (problem.n < 3) throw Error(Errc::invalid_argument, "jacobi", "--size", "the grid needs at least 3 points per side");
  if (count > problem.n - 2) {
    throw Error(Errc::invalid_argument, "jacobi", "--devices",
                std::to_string(count) + " devices for " + std::to_string(problem.n - 2) +
                    " interior planes: every device needs at least one",
                "use at most " + std::to_string(problem.n - 2) + " devices, or a larger grid");
  }
  // Every device reads every other's norm (the mailboxes), and neighbours store into each other's
  // ghost planes: each pair must reach the other's memory.
  for (int i = 0; i < count; ++i) {
    for (int j = 0; j < count; ++j) {
      if (i != j && !devices[i].can_access_peer(devices[j])) {
        throw Error(Errc::unsupported, "jacobi", "--devices",
                    "device " + std::to_string(i) + " (" + devices[i].info().name + ") cannot reach the memory of device " +
                        std::to_string(j) + " (" + devices[j].info().name +
                        "): the devices meet through each other's memory (Device::can_access_peer)",
                    "use devices with peer access between every pair (NVLink, XGMI or PCIe peer to peer)");
      }
    }
  }
  slabs_ = split_planes(problem.n, count);
  const std::uint64_t plane = std::uint64_t(problem.n) * problem.n;
  for (int d = 0; d < count; ++d) {
    auto part = std::make_unique<Part>();
    Part& p = *part;
    p.device = devices[d];
    p.slab = slabs_[d];
    p.nz = slabs_[d].planes + 2;
    p.points = plane * std::uint64_t(p.nz);
    p.groups = unsigned((p.points + kJacobiGroup - 1) / kJacobiGroup);
    // What the other devices write while the loops run (the ghost planes, inside the slabs; the
    // mailbox, polled) is fine-grained: on AMD GPUs plain device memory is coarse-grained, reached
    // by other devices' stores only at a packet's system-scope fences, which the loops' packets do
    // not have (hsad-sim's cache model hung and went stale on this; docs/api.md, "Memory").
    const Memory shared = count > 1 ? Memory::device_fine_grained : Memory::device;
    p.u = p.device.alloc(p.points * 8, shared);
    p.v = p.device.alloc(p.points * 8, shared);
    p.f = p.device.alloc(p.points * 8);
    p.partials = p.device.alloc(std::size_t(p.groups) * 8);
    p.state = p.device.alloc(16);
    p.team = p.device.alloc(sizeof(JacobiTeam));
    p.mailbox = p.device.alloc(sizeof(JacobiMailbox), shared);
    p.pinned = p.device.alloc(16 + kTeamHead, Memory::pinned_host);
    const std::vector<double> ones(p.points, 1.0);
    p.device.copy_to_device(p.f, ones.data(), p.points * 8);
    parts_.push_back(std::move(part));
  }
  reset();
}

JacobiSlabs::~JacobiSlabs() = default;

std::vector<Queue> JacobiSlabs::make_queues() const {
  std::vector<Queue> q;
  for (const auto& p : parts_) q.push_back(p->device.create_queue());
  return q;
}

void JacobiSlabs::reset() {
  const std::size_t count = parts_.size();
  for (std::size_t d = 0; d < count; ++d) {
    Part& p = *parts_[d];
    const std::vector<double> zeros(p.points, 0.0);
    p.device.copy_to_device(p.u, zeros.data(), p.points * 8);
    p.device.copy_to_device(p.v, zeros.data(), p.points * 8);
    const unsigned char state[16] = {1};
    p.device.copy_to_device(p.state, state, 16);
    const JacobiMailbox empty{};
    p.device.copy_to_device(p.mailbox, &empty, sizeof empty);
    JacobiTeam team{};
    team.rank = unsigned(d);
    team.size = unsigned(count);
    team.guard_polls = guard_polls_;
    for (std::size_t r = 0; r < count; ++r) team.mailbox[r] = static_cast<JacobiMailbox*>(parts_[r]->mailbox.device_ptr());
    p.device.copy_to_device(p.team, &team, sizeof team);
  }
}

void JacobiSlabs::record_iteration(std::size_t d, Batch& b) const {
  const Part& me = *parts_[d];
  const Part* lower = d > 0 ? parts_[d - 1].get() : nullptr;
  const Part* upper = d + 1 < parts_.size() ? parts_[d + 1].get() : nullptr;
  const Kernel sweep = me.device.kernel("jacobi_sweep_slab");
  const Kernel exchange = me.device.kernel("jacobi_exchange");
  const int n = p_.n;
  const double h = 1.0 / double(n - 1);
  const Dim3 grid{me.groups * kJacobiGroup}, group{kJacobiGroup};
  auto* state = static_cast<unsigned char*>(me.state.device_ptr());
  auto* condition = reinterpret_cast<unsigned*>(state);
  auto* norm2 = reinterpret_cast<double*>(state + 8);
  const double tolerance2 = p_.tolerance * p_.tolerance;
  // The lower neighbour's upper ghost plane and the upper neighbour's ghost plane 0, in the
  // neighbour's copy of the array this sweep writes.
  const auto ghosts = [&](Buffer Part::*array) {
    return std::pair<double*, double*>{lower ? plane_of(lower->*array, n, lower->nz - 1) : nullptr,
                                       upper ? plane_of(upper->*array, n, 0) : nullptr};
  };
  const auto [v_below, v_above] = ghosts(&Part::v);
  const auto [u_below, u_above] = ghosts(&Part::u);
  b.exec(sweep, grid, group, {me.v, me.u, me.f, n, n, me.nz, h * h, static_cast<double*>(nullptr), v_below, v_above});
  b.exec(exchange, group, group, {me.team, static_cast<const double*>(nullptr), 0u, tolerance2, condition, norm2});
  b.exec(sweep, grid, group, {me.u, me.v, me.f, n, n, me.nz, h * h, me.partials, u_below, u_above});
  b.exec(exchange, group, group, {me.team, me.partials, me.groups, tolerance2, condition, norm2});
}

namespace {
// The devices meet on the devices: every device's submission must be in flight before any waits.
void require_nosync(const Options& o) {
  if (o.nosync || o.replay) return;
  throw Error(Errc::invalid_argument, "jacobi", "options",
              "the devices meet on the devices, so every device's submission must be in flight at once; without "
              "nosync a submit waits on the host after each command and the first device would wait for the others alone",
              "use Options{} or any set with nosync (or replay)");
}
}  // namespace

void JacobiSlabs::check_team() const {
  for (std::size_t d = 0; d < parts_.size(); ++d) {
    JacobiTeam head{};
    std::memcpy(&head, static_cast<const unsigned char*>(parts_[d]->pinned.host_ptr()) + 16, kTeamHead);
    if (head.failed == 0) continue;
    throw Error(Errc::timeout, "jacobi", "exchange",
                "device " + std::to_string(d) + " (" + parts_[d]->device.info().name + ") waited for device " +
                    std::to_string(head.failed - 1) + " at its exchange " + std::to_string(head.epoch) + " and gave up after " +
                    std::to_string(guard_polls_) + " looks: that device's loop never got there",
                "submit every device's batch before waiting for any (each device's loop meets the others on the device)");
  }
}

JacobiRun JacobiSlabs::run_device_loop(std::vector<Queue>& queues, const Options& o, unsigned check_every) {
  require_nosync(o);
  if (queues.size() != parts_.size()) {
    throw Error(Errc::invalid_argument, "jacobi", "run", std::to_string(queues.size()) + " queues for " +
                                                             std::to_string(parts_.size()) + " devices");
  }
  std::vector<Batch> batches(parts_.size());
  for (std::size_t d = 0; d < parts_.size(); ++d) {
    Batch& b = batches[d];
    b.loop_begin();
    record_iteration(d, b);
    b.loop_while(parts_[d]->state, guard_for(p_, check_every), 0, check_every);
    b.copy_to_host(parts_[d]->pinned.host_ptr(), parts_[d]->state, 16);
    b.copy_to_host(static_cast<unsigned char*>(parts_[d]->pinned.host_ptr()) + 16, parts_[d]->team, kTeamHead);
  }
  JacobiRun r;
  const RunTimer t;
  std::vector<Submission> subs;
  for (std::size_t d = 0; d < parts_.size(); ++d) subs.push_back(queues[d].submit(batches[d], o, std::chrono::milliseconds(600000)));
  for (Submission& s : subs) {
    try {
      s.wait(kWaitForever);
    } catch (const Error& e) {
      if (e.code() != Errc::loop_limit) throw;
      r.at_guard = true;  // the commands after the loop (the copies) still ran
    }
  }
  t.stop(r.seconds, r.cpu_seconds);
  check_team();
  r.iterations = subs[0].loop_iterations(0);
  for (std::size_t d = 1; d < subs.size(); ++d) {
    if (subs[d].loop_iterations(0) != r.iterations) {
      throw Error(Errc::runtime, "jacobi", "run", "device 0 ran " + std::to_string(r.iterations) + " iterations, device " +
                                                      std::to_string(d) + " " + std::to_string(subs[d].loop_iterations(0)));
    }
  }
  double norm2 = 0;
  std::memcpy(&norm2, static_cast<const unsigned char*>(parts_[0]->pinned.host_ptr()) + 8, 8);
  r.norm = std::sqrt(norm2);
  return r;
}

JacobiRun JacobiSlabs::run_host_loop(std::vector<Queue>& queues, const Options& o, unsigned k) {
  require_nosync(o);
  if (k == 0) throw std::invalid_argument("jacobi: a host loop checks every k >= 1 iterations");
  if (queues.size() != parts_.size()) {
    throw Error(Errc::invalid_argument, "jacobi", "run", std::to_string(queues.size()) + " queues for " +
                                                             std::to_string(parts_.size()) + " devices");
  }
  std::vector<Batch> batches(parts_.size());
  for (std::size_t d = 0; d < parts_.size(); ++d) {
    for (unsigned i = 0; i < k; ++i) record_iteration(d, batches[d]);
    batches[d].copy_to_host(parts_[d]->pinned.host_ptr(), parts_[d]->state, 16);
    batches[d].copy_to_host(static_cast<unsigned char*>(parts_[d]->pinned.host_ptr()) + 16, parts_[d]->team, kTeamHead);
  }
  return drive_from_host(p_, k, static_cast<const unsigned char*>(parts_[0]->pinned.host_ptr()), [&] {
    std::vector<Submission> subs;
    for (std::size_t d = 0; d < parts_.size(); ++d) subs.push_back(queues[d].submit(batches[d], o, std::chrono::milliseconds(600000)));
    for (Submission& s : subs) s.wait(kWaitForever);
    check_team();
  });
}

std::vector<double> JacobiSlabs::solution() const {
  const std::size_t plane = std::size_t(p_.n) * std::size_t(p_.n);
  std::vector<double> out(plane * std::size_t(p_.n), 0.0);  // the boundary planes stay 0
  for (const auto& part : parts_) {
    std::vector<double> local(part->points);
    part->device.copy_to_host(local.data(), part->u, part->points * 8);
    std::memcpy(out.data() + std::size_t(part->slab.first) * plane, local.data() + plane,
                std::size_t(part->slab.planes) * plane * 8);
  }
  return out;
}

}  // namespace hsad::bench
