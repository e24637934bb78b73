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
std::atomic<bool> release_second{false};
std::atomic<bool> release_gate{false};

void spin(const WorkGroup&) {
  // Never looks at cancelled(): the agent must cope with a work-group that does not return.
  while (!release_spin.load(std::memory_order_acquire)) std::this_thread::sleep_for(1ms);
}
void spin_second(const WorkGroup&) {
  while (!release_second.load(std::memory_order_acquire)) std::this_thread::sleep_for(1ms);
}
// Work in flight that is not stuck: it ends when the test says so.
void gate(const WorkGroup&) {
  while (!release_gate.load(std::memory_order_acquire)) std::this_thread::sleep_for(1ms);
}

const Device& device() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_host_kernel(make_host_kernel("stuck_memory_spin", &spin));
    register_host_kernel(make_host_kernel("stuck_memory_spin_second", &spin_second));
    register_host_kernel(make_host_kernel("stuck_memory_gate", &gate));
  });
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

// Memory freed while one submission is stuck waits for that, and also for the other work in flight
// then: once nothing is stuck it still waits for the rest. (It was given back as soon as nothing
// was stuck, under a batch of another queue that still ran; the load test's sorts then read other
// threads' keys, tests/load.)
TEST(CpuStuckMemory, MemoryFreedWhileStuckAlsoWaitsForTheWorkInFlight) {
  detail::DeviceImpl& impl = device().impl();
  Queue stuck_queue = device().create_queue(), busy = device().create_queue();
  Submission stuck = stuck_queue.submit(Batch{}.exec(device().kernel("stuck_memory_spin_second"), Dim3{1}, Dim3{1}, {}),
                                        Options{}, 1s);
  EXPECT_THROW(stuck.wait(200ms), Error);  // abandoned: the device is stuck
  Submission running = busy.submit(Batch{}.exec(device().kernel("stuck_memory_gate"), Dim3{1}, Dim3{1}, {}));
  const std::size_t before = impl.parked_bytes();
  { Buffer x = device().alloc(4096); }  // freed while stuck and while `running` runs
  EXPECT_EQ(impl.parked_bytes() - before, 4096u);

  release_second.store(true, std::memory_order_release);
  stuck.wait(10s);
  EXPECT_EQ(impl.stuck(), "");
  {
    Buffer c = device().alloc(64);  // an allocation looks at what is parked
    EXPECT_EQ(impl.parked_bytes() - before, 4096u) << "given back while the gate's batch still runs";
  }

  release_gate.store(true, std::memory_order_release);
  running.wait(10s);
  { Buffer d = device().alloc(64); }
  EXPECT_EQ(impl.parked_bytes(), before) << "given back once the work that was in flight ended";
}
