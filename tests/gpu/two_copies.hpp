// Two batches that each copy 4096 doubles into their own destination, for the replay tests that
// submit batches in turn, change their arguments or record them again, and then check what each
// destination holds.
#pragma once

#include <cstdint>
#include <numeric>
#include <vector>

#include "hsad/hsad.hpp"

namespace hsad::test {

struct TwoCopies {
  static constexpr std::uint64_t kCount = 4096;
  const Device& device;
  std::vector<double> a = std::vector<double>(kCount), b = std::vector<double>(kCount);
  Buffer src_a, src_b, dst, dst2;
  Kernel copy;
  Batch one, other;  // one: src_a into dst; other: src_b into dst2

  explicit TwoCopies(const Device& d)
      : device(d),
        src_a(d.alloc(kCount * 8)),
        src_b(d.alloc(kCount * 8)),
        dst(d.alloc(kCount * 8)),
        dst2(d.alloc(kCount * 8)),
        copy(d.kernel("hsad_copy_f64")) {
    std::iota(a.begin(), a.end(), 0.5);
    std::iota(b.begin(), b.end(), -7.25);
    d.copy_to_device(src_a, a.data(), kCount * 8);
    d.copy_to_device(src_b, b.data(), kCount * 8);
    one.exec(copy, Dim3{kCount}, Dim3{256}, {dst, src_a, kCount});
    other.exec(copy, Dim3{kCount}, Dim3{256}, {dst2, src_b, kCount});
  }
  // Whether `buffer` holds `want`, read back to the host.
  bool holds(const Buffer& buffer, const std::vector<double>& want) const {
    std::vector<double> got(kCount);
    device.copy_to_host(got.data(), buffer, kCount * 8);
    return got == want;
  }
};

}  // namespace hsad::test
