// Memory freed while a host kernel is stuck is kept (the kernel may still use it), and released
// once that kernel has returned, even when the queue it ran on went away meanwhile. Every wait
// here is bounded: the kernel is released by the test itself.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "backends/backend.hpp"
#include "hsad/hsad.hpp"

using namespace hsad;
using namespace std::chrono_literals;

namespace {
std::atomic<bool> release_spin{false};

void spin(const WorkGroup&) {
  // Never looks at cancelled(): the agent must cope with a work-group that does not return.
  while (!release_spin.load(std::memory_order_acquire)) std::this_thread::sleep_for(1ms);
}

const Device& device() {
  static std::once_flag once;
  std::call_once(once, [] { register_host_kernel(make_host_kernel("stuck_memory_spin", &spin)); });
  static Runtime rt = Runtime::open("cpu");
  return rt.device();
}
}  // namespace

TEST(CpuStuckMemory, FreedMemoryIsReleasedOnceTheStuckKernelReturns) {
  detail::DeviceImpl& impl = device().impl();
  {
    Queue q = device().create_queue();
    Submission s = q.submit(Batch{}.exec(device().kernel("stuck_memory_spin"), Dim3{1}, Dim3{1}, {}), Options{}, 1s);
    EXPECT_THROW(s.wait(200ms), Error);  // abandoned
  }  // the queue goes away, leaving the work-group running on its thread
  EXPECT_FALSE(impl.stuck().empty());
  { Buffer b = device().alloc(1 << 20); }  // freed while stuck: kept
  EXPECT_EQ(impl.deferred_bytes(), std::size_t(1) << 20);

  release_spin.store(true, std::memory_order_release);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!impl.stuck().empty() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(impl.stuck(), "");
  { Buffer c = device().alloc(64); }  // the next allocation releases what was kept
  EXPECT_EQ(impl.deferred_bytes(), 0u);
}
