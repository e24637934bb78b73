// The reference for the cooperative tests' kernels (the interpreter's, ROCr's and the HIP
// program's): `rounds` times, every element becomes itself plus the element `block` places on
// (wrapping), so each work-group reads what the next one wrote the round before.
#pragma once

#include <cstdint>
#include <vector>

namespace hsad::test {

inline std::vector<std::uint32_t> grid_rounds(std::vector<std::uint32_t> a, std::uint32_t block, std::uint32_t rounds) {
  for (std::uint32_t r = 0; r < rounds; ++r) {
    std::vector<std::uint32_t> b(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) b[i] = a[i] + a[(i + block) % a.size()];
    a = std::move(b);
  }
  return a;
}

}  // namespace hsad::test
