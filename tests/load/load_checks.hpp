// What every load test asserts of a run, on any backend: something of each kind ran, nothing was
// wrong, no error came, and (outside the sanitizer builds, whose allocators keep freed memory in
// quarantine) the process did not grow after its warm-up.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

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
  if (r.config.enqueue_percent) {
    EXPECT_GT(r.enqueued, 0u) << text;
  }
  if (r.config.loops) {
    EXPECT_GT(r.device_loops + r.host_loops, 0u) << text;
  }
  if (!sanitized()) {
    EXPECT_LT(r.growth_kib(), kMaxGrowthKib) << text;
  }
}

// docs/api.md, "Ownership and threads": once recorded, a Batch may be submitted by several threads
// at once. Eight threads submit one batch of empty dispatches to their own queues and to one shared
// queue, plain and replayed, `rounds` times each; every submission completes without an error.
inline void expect_one_batch_from_many_threads(const Device& device, int rounds) {
  Batch b;
  const Kernel empty = device.kernel("hsad_empty");
  for (int i = 0; i < 16; ++i) b.exec(empty, Dim3{64}, Dim3{64}, {});
  Queue shared = device.create_queue();
  std::atomic<int> errors{0}, done{0};
  std::string first;
  std::mutex m;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      try {
        Queue own = device.create_queue();
        for (int r = 0; r < rounds; ++r) {
          Options o = (r + t) % 2 ? Options::all() : Options{};
          (r % 3 == 0 ? shared : own).run(b, o, std::chrono::seconds(120));
          done.fetch_add(1);
        }
      } catch (const std::exception& e) {
        errors.fetch_add(1);
        std::lock_guard<std::mutex> lock(m);
        if (first.empty()) first = e.what();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0) << first;
  EXPECT_EQ(done.load(), 8 * rounds);
  EXPECT_GE(shared.submissions(), std::uint64_t(8 * ((rounds + 2) / 3)));
}

}  // namespace hsad::load
