// The targets hsad-sim presents. The numbers are the real parts' as public datasheets and the
// amdgpu driver give them (compute units, SIMDs, LDS, L2); what the simulator does with them is
// in sim/README.md.
#include "sim_target.hpp"

namespace hsad::sim {

const std::vector<Target>& targets() {
  //                          name      gfx version  device  family wave  CUs SIMD waves LDS  L2 KiB SEs fw  SDMA count
  static const std::vector<Target> all = {
      {"gfx90a", 9, 0, 10, 0x740f, 141, 64, 104, 4, 8, 64, 8192, 8, 500, 30},   // MI210
      {"gfx908", 9, 0, 8, 0x738c, 141, 64, 120, 4, 8, 64, 8192, 8, 500, 22},    // MI100
      {"gfx1030", 10, 3, 0, 0x73bf, 143, 32, 80, 2, 16, 64, 4096, 4, 500, 30},  // RX 6900 XT
  };
  return all;
}

const Target* find_target(const std::string& name) {
  for (const Target& t : targets()) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

std::string target_names() {
  std::string names;
  for (const Target& t : targets()) names += (names.empty() ? "" : ", ") + std::string(t.name);
  return names;
}

}  // namespace hsad::sim
