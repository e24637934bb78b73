// Rounding and limits of a dispatch's shape (dispatch_shape.hpp). Every message names the kernel,
// the axis and both numbers, because a shape that one device runs may exceed another's limit.
#include "dispatch_shape.hpp"

#include <cstdint>

#include "hsad/error.hpp"

namespace hsad::detail {
namespace {

constexpr const char* kAxis[3] = {"x", "y", "z"};

std::uint32_t axis(const Dim3& d, int i) { return i == 0 ? d.x : (i == 1 ? d.y : d.z); }
void set_axis(Dim3& d, int i, std::uint32_t v) { (i == 0 ? d.x : (i == 1 ? d.y : d.z)) = v; }

[[noreturn]] void refuse(const std::string& kernel, const std::string& what, const std::string& hint) {
  throw Error("batch", "exec " + kernel, what, hint);
}

}  // namespace

Dim3 dispatch_grid(const std::string& kernel, Dim3 grid, Dim3 group, GroupShape shape, const DeviceInfo* device) {
  static const DispatchLimits kDefaults;  // a kernel of no device: a GPU's work-group limits
  const DispatchLimits* limits = device ? &device->limits : &kDefaults;
  if (grid.volume() == 0 || group.volume() == 0) {
    refuse(kernel, "grid and work-group sizes must be at least 1 in every dimension", "a dimension not used is 1");
  }
  // Built only for a refusal: recording a dispatch allocates nothing here.
  const auto on = [device] { return device ? " on '" + device->name + "'" : std::string(); };
  for (int i = 0; i < 3; ++i) {
    if (axis(group, i) > axis(limits->max_group, i)) {
      refuse(kernel,
             "a work-group of " + std::to_string(axis(group, i)) + " work-items along " + kAxis[i] + " exceeds the " +
                 std::to_string(axis(limits->max_group, i)) + " the device allows" + on(),
             "use a smaller work-group along " + std::string(kAxis[i]));
    }
  }
  if (group.volume() > limits->max_group_size) {
    refuse(kernel,
           "a work-group of " + std::to_string(group.volume()) + " work-items exceeds the " +
               std::to_string(limits->max_group_size) + " the device allows" + on(),
           "use a smaller work-group");
  }
  Dim3 encoded = grid;
  for (int i = 0; i < 3; ++i) {
    const std::uint64_t items = axis(grid, i), size = axis(group, i);
    const std::uint64_t groups = (items + size - 1) / size;
    const std::uint64_t whole = groups * size;
    if (shape == GroupShape::whole) {
      if (whole > 0xffffffffu) {
        refuse(kernel,
               "a grid of " + std::to_string(items) + " work-items along " + kAxis[i] + " rounds up to " +
                   std::to_string(whole) + " (whole work-groups of " + std::to_string(size) +
                   "), past the 32-bit grid size of a dispatch",
               "use a grid of at most " + std::to_string(0xffffffffu / size * size) + " along " + kAxis[i]);
      }
      set_axis(encoded, i, std::uint32_t(whole));
    }
    if (axis(encoded, i) > axis(limits->max_grid, i)) {
      refuse(kernel,
             "a grid of " + std::to_string(axis(encoded, i)) + " work-items along " + kAxis[i] + " exceeds the " +
                 std::to_string(axis(limits->max_grid, i)) + " the device allows" + on(),
             "split the work into several dispatches");
    }
    if (groups > axis(limits->max_groups, i)) {
      refuse(kernel,
             "a grid of " + std::to_string(groups) + " work-groups along " + kAxis[i] + " exceeds the " +
                 std::to_string(axis(limits->max_groups, i)) + " the device allows" + on(),
             "use larger work-groups, another axis, or several dispatches");
    }
  }
  // x * y * z > limit, exactly, past 2^64 too (volume() stops there, which a limit of 2^64 - 1
  // would let through): x * y is below 2^64, and the axes are at least 1 here.
  if (std::uint64_t(encoded.x) * encoded.y > limits->max_grid_items / encoded.z) {
    refuse(kernel,
           "a grid of " + std::to_string(encoded.x) + " x " + std::to_string(encoded.y) + " x " +
               std::to_string(encoded.z) + " work-items exceeds the " +
               std::to_string(limits->max_grid_items) + " the device allows in one dispatch" + on(),
           "split the work into several dispatches");
  }
  return encoded;
}

}  // namespace hsad::detail
