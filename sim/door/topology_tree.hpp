// KFD's topology as sysfs files (/sys/devices/virtual/kfd/kfd/topology/...), written from the
// simulated targets' descriptions into a folder of its own, where the door sends every path the
// thunk opens under the real one. The thunk reads it as it reads the kernel's: the system's
// properties, then per node its gpu_id and properties, memory banks, caches and IO links.
#pragma once

#include <cstdint>
#include <string>

namespace hsad::sim::door {

// KFD's folder, as the thunk names it.
inline constexpr const char* kKfdSysfs = "/sys/devices/virtual/kfd/kfd";
// The amdgpu module's folder, where tools (rocminfo 6 and later) look whether the driver is live.
inline constexpr const char* kAmdgpuModuleSysfs = "/sys/module/amdgpu";

// The gpu_id KFD gives GPU `node` (1..): unique and non-zero; 0 for the CPU node.
std::uint32_t gpu_id_of(std::uint32_t node);
// The node of a gpu_id; 0 where none has it.
std::uint32_t node_of(std::uint32_t gpu_id);
// The render node's minor of GPU `node` (/dev/dri/renderD<minor>).
inline std::uint32_t render_minor_of(std::uint32_t node) { return 127 + node; }

// The folder that stands for kKfdSysfs: written on first use (one per machine description,
// shared by every process that describes the same machine). Empty where it could not be written.
const std::string& kfd_sysfs_root();
// `path` with a leading kKfdSysfs replaced by kfd_sysfs_root(), or a leading kAmdgpuModuleSysfs by
// its folder there (module/amdgpu: initstate "live", version); `path` itself otherwise. Null where
// `path` is.
const char* redirect(const char* path, std::string& storage);

}  // namespace hsad::sim::door
