// The reference for the cooperative tests' kernels (the interpreter's, ROCr's and the HIP
// program's): `rounds` times, every element becomes itself plus the element its work-group's
// size (blockDim.x) places on, wrapping, so each work-group reads what the next one wrote the
// round before. A partial last work-group's size is its own (ockl's local size, as OpenCL's).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace hsad::test {

inline std::vector<std::uint32_t> grid_rounds(std::vector<std::uint32_t> a, std::uint32_t block, std::uint32_t rounds) {
  for (std::uint32_t r = 0; r < rounds; ++r) {
    std::vector<std::uint32_t> b(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::size_t size = std::min<std::size_t>(block, a.size() - i / block * block);
      b[i] = a[i] + a[(i + size) % a.size()];
    }
    a = std::move(b);
  }
  return a;
}

}  // namespace hsad::test
