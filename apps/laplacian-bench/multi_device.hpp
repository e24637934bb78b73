// laplacian-bench --devices N: the slab decomposition over N devices of one backend, beside the
// same workload on one device in the same run (the parallel efficiency's denominator).
#pragma once

#include <string>
#include <vector>

#include "device_choice.hpp"
#include "hsad/hsad.hpp"
#include "laplacian_slabs.hpp"
#include "report.hpp"

namespace hsad::bench {

struct MultiDeviceRun {
  LaplacianConfig config;  // the grid of one device (weak scaling) or of all of them (strong)
  bool weak = false;       // weak: the N-device grid has N times the interior planes
  HaloRoute route = HaloRoute::automatic;
  Options options;
  int reps = 5;
  bool verify = false;
};

// Two rows: one device, then all of `devices`. Sets `verified` false where --verify found a
// difference from the one-device run of the same grid.
std::vector<Row> run_multi_device(const std::string& backend, const std::vector<Device>& devices,
                                  const MultiDeviceRun& run, bool& verified);

}  // namespace hsad::bench
