// One description per simulated target, from which every answer about it is made: the KFD
// topology files the thunk reads, the libdrm answers ROCr asks for, the interpreter's target and
// the occupancy the simulated device enforces. Add a target here and nowhere else.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hsad::sim {

struct Target {
  const char* name;               // "gfx90a": the processor, as LLVM and ROCr name it
  std::uint32_t major, minor, stepping;  // its gfx version: gfx_target_version = major*10000 + minor*100 + stepping
  std::uint16_t device_id;        // a PCI device id of the family (the thunk's table maps it to the same version)
  std::uint32_t family;           // libdrm's AMDGPU_FAMILY_* (141 AI: gfx9 and CDNA; 143 NV: gfx10.3; 145, 150: gfx11.0, 11.5)
  std::uint32_t wavefront;        // the default wave size
  std::uint32_t compute_units;    // ROCr's count (RDNA: CUs, not WGPs)
  std::uint32_t simds_per_cu;     // 4 (GCN, CDNA), 2 (RDNA)
  std::uint32_t max_waves_per_simd;
  std::uint32_t lds_kib;          // per work-group
  std::uint32_t l2_kib;
  std::uint32_t shader_engines;
  std::uint32_t fw_version;       // the MEC firmware version KFD reports (ROCr gates features on it)
  // The width of the SDMA linear copy's byte count: 22 bits on gfx9's engines, 30 on gfx90a's
  // (SDMA 4.4) and from gfx10.3 on, where ROCr 6 sends copies of up to 1 GiB in one packet.
  std::uint32_t sdma_copy_count_bits;
  // Compute dies (XCCs) the GPU's compute units are spread over: 8 on an MI300X, as KFD reports
  // them (num_xcc); ROCr sizes each queue's save area and scratch per XCC.
  std::uint32_t xccs = 1;
  // The marketing name says it, so no number taken under the simulator passes for an AMD one.
  std::string marketing_name() const { return std::string("hsadispatch simulated ") + name + " (not an AMD GPU)"; }
  std::uint32_t gfx_target_version() const { return major * 10000 + minor * 100 + stepping; }
  bool rdna() const { return major >= 10; }
};

// Every target the simulator presents, in the order hsad-sim lists them.
const std::vector<Target>& targets();
// The target of that name, or nullptr.
const Target* find_target(const std::string& name);
// "gfx90a, gfx908, gfx1030": for messages.
std::string target_names();

}  // namespace hsad::sim
