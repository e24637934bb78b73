// The test kernels' host builds.
#include "test_kernels.hpp"

#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "hsad/host_kernel.hpp"

namespace hsad::test {
namespace {
void record(const WorkGroup& wg) {
  const RecordArgs& a = wg.args<RecordArgs>();
  Timeline& t = *a.timeline;
  const std::uint64_t start = t.clock.fetch_add(1);
  std::uint64_t cur = t.first_start[a.tag].load();
  while (start < cur && !t.first_start[a.tag].compare_exchange_weak(cur, start)) {
  }
  if (a.sleep_us) std::this_thread::sleep_for(std::chrono::microseconds(a.sleep_us));
  const std::uint64_t end = t.clock.fetch_add(1);
  cur = t.last_end[a.tag].load();
  while (end > cur && !t.last_end[a.tag].compare_exchange_weak(cur, end)) {
  }
}

void sleep(const WorkGroup& wg) { std::this_thread::sleep_for(std::chrono::milliseconds(wg.args<SleepArgs>().ms)); }

void fail(const WorkGroup& wg) {
  throw std::runtime_error("deliberate failure in work-group " + std::to_string(wg.id.x));
}

void add(const WorkGroup& wg) {
  const AddArgs& a = wg.args<AddArgs>();
  for (std::uint32_t i = wg.first_x(); i < wg.end_x() && i < a.n; ++i) a.data[i] += a.value;
}
}  // namespace

void register_test_kernels() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_host_kernel(make_host_kernel<RecordArgs>(
        "test_record", &record,
        {host_arg("timeline", &RecordArgs::timeline), host_arg("tag", &RecordArgs::tag),
         host_arg("sleep_us", &RecordArgs::sleep_us)}));
    register_host_kernel(make_host_kernel<SleepArgs>("test_sleep", &sleep, {host_arg("ms", &SleepArgs::ms)}));
    register_host_kernel(make_host_kernel("test_throw", &fail));
    register_host_kernel(make_host_kernel<AddArgs>("test_add", &add,
                                                   {host_arg("data", &AddArgs::data), host_arg("value", &AddArgs::value),
                                                    host_arg("n", &AddArgs::n)}));
  });
}

}  // namespace hsad::test
