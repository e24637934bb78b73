// The Jacobi solver (jacobi_workload.hpp) over several devices of one backend, each iterating in
// a device-run loop of its own: the grid split along z into slabs (split_planes), every device's
// slab with a ghost plane on either side. No host in the loop and no library command between the
// devices: a sweep stores its outermost planes into the neighbours' ghost planes (peer memory,
// Device::can_access_peer), and an exchange kernel (kernels/jacobi.hpp) makes the devices meet on
// the device after each sweep, the second time sharing their squared norms so that every device
// sums the same norms in the same order and stops after the same iteration.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "hsad/hsad.hpp"
#include "jacobi_workload.hpp"
#include "laplacian_slabs.hpp"

namespace hsad::bench {

class JacobiSlabs {
 public:
  // One slab per device, in order along z. Throws hsad::Error where there are more devices than
  // the kernels' team holds (8) or than interior planes, or a pair of devices does not reach
  // each other's memory (every device reads every other's norm).
  JacobiSlabs(const std::vector<Device>& devices, const JacobiProblem& problem);
  ~JacobiSlabs();
  JacobiSlabs(const JacobiSlabs&) = delete;
  JacobiSlabs& operator=(const JacobiSlabs&) = delete;

  // u = v = 0, f = 1, the team's arrivals and mailboxes cleared: the same start every time.
  void reset();
  // One device-run loop per device, submitted one after the other, then one wait each. A loop
  // stopped at its guard is a result (at_guard); a device that never met the others is an
  // hsad::Error naming it.
  JacobiRun run_device_loop(std::vector<Queue>& queues, const Options& o, unsigned check_every = 1);
  // From the host: `k` iterations per submit on every device, then the waits and a look at the
  // condition (the same on every device).
  JacobiRun run_host_loop(std::vector<Queue>& queues, const Options& o, unsigned k);
  std::vector<double> solution() const;  // u, all n^3 points, gathered from the slabs
  const std::vector<Slab>& slabs() const { return slabs_; }
  const JacobiProblem& problem() const { return p_; }
  // How many looks at a mailbox an exchange makes before it gives up on a device (the tests make
  // it small); applies from the next reset().
  void set_guard_polls(std::uint64_t polls) { guard_polls_ = polls; }
  std::vector<Queue> make_queues() const;  // one per device

 private:
  struct Part;  // one device's arrays, team and mailbox
  void record_iteration(std::size_t d, Batch& b) const;
  void check_team() const;  // throws naming a device that did not arrive

  JacobiProblem p_;
  std::vector<Slab> slabs_;
  std::vector<std::unique_ptr<Part>> parts_;
  std::uint64_t guard_polls_ = 1ull << 28;
};

}  // namespace hsad::bench
