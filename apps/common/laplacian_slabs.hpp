// The Laplacian over several devices: the grid split along z into slabs, one per device, each with
// a halo plane on either side. One application is one explicit heat-equation step (the Laplacian
// kernels with coefficients dt/h^2 and 1 - 2 dt (sum of 1/h^2), dt = 1 / (4 sum 1/h^2): the values
// stay in [0, 1) however many steps run), reading the array the step before wrote, so that the
// halos carry data each step needs. Every device computes its two boundary planes first on one
// queue and pushes them into its neighbours' halos (peer to peer, or through pinned host memory)
// while its interior computes on a second queue. Every batch is recorded once; the waits between
// queues and devices are on the devices (Batch::wait(queue, offset)); the host waits once per run.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hsad/hsad.hpp"
#include "laplacian_workload.hpp"

namespace hsad::bench {

// The interior planes [first, first + planes) of the global grid a device computes.
struct Slab {
  int first = 1;
  int planes = 0;
};
// The nz - 2 interior planes over `devices` slabs that differ by at most one plane (the larger
// ones first). Throws hsad::Error naming both numbers when there are more devices than planes.
std::vector<Slab> split_planes(int nz, int devices);

// The interior planes [range.first, range.first + range.planes) of the global grid over `devices`
// slabs, as split_planes does for the whole grid.
std::vector<Slab> split_range(const Slab& range, int devices);

enum class HaloRoute { automatic, peer, staged };
// "auto", "peer" or "staged"; throws hsad::Error naming the valid ones.
HaloRoute parse_halo_route(const std::string& text);

// Neighbours in other processes (MPI ranks, apps/laplacian-bench/mpi_run.cpp): this process owns a
// range of the grid's planes, and between steps its outermost planes go to the processes below and
// above it while their planes come back into its halos. Knows nothing of the transport.
class ExternalHalos {
 public:
  virtual ~ExternalHalos() = default;
  virtual bool below() const = 0;  // a process owns the planes below this one's range
  virtual bool above() const = 0;
  // true: exchange() is given the device arrays' planes themselves (memory the transport reaches);
  // false: pinned host copies, filled and read by the batches.
  virtual bool direct() const = 0;
  // Called once per step after this process's boundary planes of that step are complete: sends
  // `send_down` (plane 1, to the process below) and `send_up` (plane L, to above) and returns once
  // `recv_below` and `recv_above` hold theirs (pointers of the sides without a neighbour are null).
  virtual void exchange(const double* send_down, const double* send_up, double* recv_below, double* recv_above,
                        std::size_t points) = 0;
};

// This process's share of the grid: its planes, and who fills the halos at either end.
struct ProcessPart {
  Slab range;                       // planes == 0: the whole grid
  ExternalHalos* halos = nullptr;   // null: no other process
};

class LaplacianSlabs {
 public:
  // `devices`: one slab each, in order along z. `route`: automatic takes peer copies where every
  // pair of neighbours reaches each other's memory (Device::can_access_peer), staged otherwise.
  // `part`: the planes this process owns and its external halos (default: the whole grid).
  LaplacianSlabs(const std::vector<Device>& devices, const LaplacianConfig& config, const Options& options,
                 HaloRoute route = HaloRoute::automatic, ProcessPart part = {});
  ~LaplacianSlabs();
  LaplacianSlabs(const LaplacianSlabs&) = delete;
  LaplacianSlabs& operator=(const LaplacianSlabs&) = delete;

  // config.iters steps: 2 submissions per device and step, one host wait (with external halos, one
  // more per step: the boundary planes are complete before they are exchanged).
  void run();
  double copy_run(); // every device copies its slab config.iters times at once; returns bytes per step
  // The current state of this process's planes, gathered to the host: planes gather_first() ..
  // gather_first() + size / (nx ny) - 1 of the grid, the grid's fixed boundary planes included
  // where the range reaches them (one process: the whole grid, nx * ny * nz values).
  std::vector<double> gather() const;
  int gather_first() const;
  // The same number of steps from the starting values, on the host (exactly the kernels' order of
  // operations, but the compiler may contract differently, so compare with a tolerance).
  static std::vector<double> reference(const LaplacianConfig& config, int steps);

  const std::vector<Slab>& slabs() const { return slabs_; }
  const char* halo_path() const;  // "peer", "staged", or "none" (one device)
  std::uint64_t halo_bytes_per_step() const;  // between this process's devices
  std::size_t dispatches_per_step() const { return dispatches_per_step_; }

 private:
  struct Part;  // one device's arrays, queues and recorded batches
  void record(std::size_t d, int parity);

  LaplacianConfig c_;
  Options options_;
  Slab range_;
  ExternalHalos* halos_ = nullptr;
  std::vector<Slab> slabs_;
  bool staged_ = false;
  bool split_ = false;  // a boundary queue per device: there is a neighbour, here or in another process
  std::vector<std::unique_ptr<Part>> parts_;
  std::size_t dispatches_per_step_ = 0;
  int steps_ = 0;
};

}  // namespace hsad::bench
