// laplacian-bench --mpi: the heat step's slabs over MPI ranks (mpirun -n R), and within each rank
// over its --devices. The planes between ranks travel by MPI_Isend/MPI_Irecv; the library itself
// knows nothing of MPI (LaplacianSlabs sees an ExternalHalos).
#pragma once

#include <functional>
#include <string>

#include "hsad/hsad.hpp"
#include "laplacian_slabs.hpp"

namespace hsad::bench {

struct MpiRun {
  std::string backend = "auto";
  LaplacianConfig config;  // kernel, m, block and split still "auto" (0) where the device decides
  int devices_per_rank = 1;
  bool weak = false;       // weak: every device has config.nz - 2 planes of its own
  HaloRoute route = HaloRoute::automatic;  // between the devices of one rank
  std::string mpi_halo = "auto";          // auto | staged | direct
  Options options;
  int reps = 5;
  bool verify = false;
  std::string format = "table";
  int inject_fault_rank = -1;  // that rank's device runs a faulting batch in the middle of the run
  // Resolves the config's automatic choices for a device (as the one-process run does).
  std::function<void(LaplacianConfig&, const Device&)> resolve;
};

// Whether this laplacian-bench was built with MPI.
bool mpi_built();
// Initializes MPI, runs, finalizes; returns the process's exit status. An error on one rank is
// printed with that rank, told to every other rank (each prints it too), and ends the job
// (MPI_Abort); a refusal every rank reaches alike (more ranks than planes) ends each with it.
int run_mpi(int& argc, char**& argv, MpiRun run);

}  // namespace hsad::bench
