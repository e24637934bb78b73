// Every memory-bench workload on odd sizes against the CPU's sums, at several work-group sizes
// (partial wavefronts, one item, a size that divides nothing): shared by the cpu agent's and the
// simulated GPU's tests.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>

#include "hsad/hsad.hpp"
#include "memory_workload.hpp"

namespace hsad::test {

// 37 x 53 matrices (neither a multiple of anything), 29 sites of 35 doubles in passes of 7.
inline bench::MemoryConfig odd_memory_config(bench::MemoryKind kind) {
  bench::MemoryConfig c;
  c.kind = kind;
  c.rows = 37, c.cols = 53, c.sites = 29, c.words = 35, c.width = 7, c.iters = 2;
  return c;
}

inline void expect_every_memory_workload_matches(const Device& device, std::initializer_list<std::uint32_t> blocks) {
  for (const auto& [name, kind] : bench::memory_workloads()) {
    bench::MemoryWorkload w(device, odd_memory_config(kind), Options{});
    for (std::uint32_t block : blocks) {
      SCOPED_TRACE(name + " at block " + std::to_string(block));
      w.set_block(block);
      const auto check = w.verify();
      EXPECT_EQ(check.wrong, 0u) << "largest error " << check.max_abs_error;
      EXPECT_GT(check.checked, 0u);
    }
  }
}

}  // namespace hsad::test
