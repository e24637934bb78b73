// The cpu agent as most cpu tests use it: its device with the test kernels registered, and a batch
// of test_add dispatches.
#pragma once

#include <cstdint>

#include "hsad/hsad.hpp"
#include "test_kernels.hpp"

namespace hsad::test {

// One Runtime per process, opened on first use (ctest runs each test in a process of its own).
inline Device cpu_device() {
  register_test_kernels();
  static Runtime rt = Runtime::open("cpu");
  return rt.device();
}

// `dispatches` test_add dispatches over the first n words of `buf`, each adding `value`.
inline Batch add_batch(const Device& d, const Buffer& buf, std::uint32_t n, int dispatches, std::uint32_t value = 1) {
  Batch b;
  const Kernel add = d.kernel("test_add");
  for (int i = 0; i < dispatches; ++i) b.exec(add, Dim3{n}, Dim3{64}, {buf, value, n});
  return b;
}

}  // namespace hsad::test
