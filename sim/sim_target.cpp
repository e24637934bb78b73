// The targets hsad-sim presents. The numbers are the real parts' as public datasheets and the
// amdgpu driver give them (compute units, SIMDs, LDS, L2); what the simulator does with them is
// in sim/README.md.
#include "sim_target.hpp"

namespace hsad::sim {

const std::vector<Target>& targets() {
  //                          name      gfx version  device  family wave  CUs SIMD waves LDS  L2 KiB SEs fw  SDMA count XCCs
  static const std::vector<Target> all = {
      {"gfx90a", 9, 0, 10, 0x740f, 141, 64, 104, 4, 8, 64, 8192, 8, 500, 30, 1},   // MI210
      {"gfx908", 9, 0, 8, 0x738c, 141, 64, 120, 4, 8, 64, 8192, 8, 500, 22, 1},    // MI100
      {"gfx1030", 10, 3, 0, 0x73bf, 143, 32, 80, 2, 16, 64, 4096, 4, 500, 30, 1},  // RX 6900 XT
      // MI300X: 304 CUs over 8 XCCs (38 each, 4 shader engines each), 4 MiB of L2 per XCC (the
      // model has one L2: the 256 MiB Infinity Cache behind it is not modelled). ROCr 6.x only:
      // ROCr 5.2 predates gfx942.
      {"gfx942", 9, 4, 2, 0x74a1, 141, 64, 304, 4, 8, 64, 4096, 32, 500, 30, 8},
      // MI355X: 256 CUs over 8 XCCs (32 each), 160 KiB of LDS per CU, 4 MiB of L2 per XCC. ROCr 6.4+.
      {"gfx950", 9, 5, 0, 0x75a3, 141, 64, 256, 4, 8, 160, 4096, 32, 500, 30, 8},
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
