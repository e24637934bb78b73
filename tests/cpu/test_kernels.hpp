// Host kernels that exist only for the tests: they record order, sleep, throw, or add.
#pragma once

#include <atomic>
#include <cstdint>

namespace hsad::test {

// A logical clock each work-group of a "test_record" dispatch reads when it starts and ends.
struct Timeline {
  std::atomic<std::uint64_t> clock{1};
  std::atomic<std::uint64_t> first_start[16];
  std::atomic<std::uint64_t> last_end[16];
  Timeline() {
    for (auto& s : first_start) s = UINT64_MAX;
    for (auto& e : last_end) e = 0;
  }
};

struct RecordArgs {
  Timeline* timeline;
  std::uint32_t tag;       // which slot of the timeline this dispatch records in
  std::uint32_t sleep_us;  // per work-group
};

struct SleepArgs {
  std::uint32_t ms;
};

struct AddArgs {
  std::uint32_t* data;
  std::uint32_t value;
  std::uint32_t n;  // elements: the items of the last, rounded-up work-group past n do nothing
};

// Registers test_record, test_sleep, test_throw and test_add once per process.
void register_test_kernels();

}  // namespace hsad::test
