// The targets hsad-sim presents. The numbers are the real parts' as public datasheets and the
// amdgpu driver give them (compute units, SIMDs, LDS, L2); what the simulator does with them is
// in sim/README.md.
#include "sim_target.hpp"

namespace hsad::sim {

const std::vector<Target>& targets() {
  //                          name      gfx version  device  family wave  CUs SIMD waves LDS  L2 KiB SEs fw  SDMA count XCCs
  // (libdrm's families: 141 AI (gfx9, CDNA), 143 NV (gfx10.3), 145 GC 11.0.0, 150 GC 11.5.0, 152 GC 12.0.0)
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
      // RX 7900 XTX (RDNA3, Navi 31): 96 CUs in 6 shader engines, 6 MiB of L2 (the 96 MiB Infinity
      // Cache behind it is not modelled). ROCr 6 only, as gfx942.
      {"gfx1100", 11, 0, 0, 0x744c, 145, 32, 96, 2, 16, 64, 6144, 6, 500, 30, 1},
      // Ryzen AI Max+ 395's Radeon 8060S (RDNA3.5, Strix Halo): 40 CUs in 2 shader engines, 2 MiB
      // of L2. ROCr 6 only; its scalar float instructions need LLVM 17's disassembler or later.
      {"gfx1151", 11, 5, 1, 0x1586, 150, 32, 40, 2, 16, 64, 2048, 2, 500, 30, 1},
      // RX 9070 XT (RDNA4, Navi 48): 64 CUs in 4 shader engines, 8 MiB of L2 (the 64 MiB
      // Infinity Cache not modelled). ROCr 6.4; its encodings need LLVM 18's disassembler or later.
      {"gfx1201", 12, 0, 1, 0x7550, 152, 32, 64, 2, 16, 64, 8192, 4, 500, 30, 1},
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
