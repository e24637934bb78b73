// The grid a dispatch is encoded with, one rule for every backend: a grid that is not a whole
// number of work-groups along a dimension is rounded up to whole work-groups there (the CUDA and
// HIP convention: a kernel checks its index against its size), unless the dispatch asked for
// HSA's partial work-groups. Pure: the device's limits in, the grid or an hsad::Error naming the
// limit out.
#pragma once

#include <string>

#include "hsad/device.hpp"
#include "hsad/kernel.hpp"

namespace hsad::detail {

enum class GroupShape : std::uint8_t {
  whole,    // the grid is rounded up to whole work-groups (every backend)
  partial,  // HSA's own: the last work-group of a dimension holds the remainder (AQL backends only)
};

// The grid to encode for `grid` work-items in work-groups of `group`, checked against the limits
// of `device` (nullptr, a kernel of no device: a GPU's work-group limits and the packet's 32-bit
// fields). Throws hsad::Error naming the kernel, the dimension, the value and the limit.
Dim3 dispatch_grid(const std::string& kernel, Dim3 grid, Dim3 group, GroupShape shape, const DeviceInfo* device);

}  // namespace hsad::detail
