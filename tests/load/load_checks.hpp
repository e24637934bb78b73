// What every load test asserts of a run, on any backend: something of each kind ran, nothing was
// wrong, no error came, and (outside the sanitizer builds, whose allocators keep freed memory in
// quarantine) the process did not grow after its warm-up.
#pragma once

#include <gtest/gtest.h>

#include "load_run.hpp"

namespace hsad::load {

inline constexpr long kMaxGrowthKib = 64 * 1024;

inline bool sanitized() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

inline void expect_clean(const LoadReport& r) {
  const std::string text = to_text(r);
  EXPECT_EQ(r.wrong, 0u) << text;
  EXPECT_EQ(r.errors, 0u) << text;
  EXPECT_GT(r.sorts, 0u) << text;
  EXPECT_GT(r.freed_in_flight, 0u) << text;
  if (r.config.loops) {
    EXPECT_GT(r.device_loops + r.host_loops, 0u) << text;
  }
  if (!sanitized()) {
    EXPECT_LT(r.growth_kib(), kMaxGrowthKib) << text;
  }
}

}  // namespace hsad::load
