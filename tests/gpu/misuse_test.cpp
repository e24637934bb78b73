// What a careless application does, on a GPU (tests/cpu/misuse_test.cpp has the cpu agent's
// cases): a Kernel and a Module kept past their Runtime, overlapping copies, a device-run loop on
// the smallest queue, a trace callback that throws at a submit.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "error_text.hpp"
#include "gpu_backend.hpp"
#include "hsad/hsad.hpp"

using namespace hsad;

namespace {
std::string app_module_path(const Device& d) {
  return test::modules_dir() + (d.info().backend == "cuda" ? "/app.fatbin" : "/app.hsaco");
}

// n floats of 0.
Buffer zeros(const Device& d, std::size_t n) {
  Buffer b = d.alloc(n * sizeof(float));
  const std::vector<float> z(n, 0.0f);
  d.copy_to_device(b, z.data(), n * sizeof(float));
  return b;
}

std::vector<float> read(const Device& d, const Buffer& b, std::size_t n) {
  std::vector<float> v(n);
  d.copy_to_host(v.data(), b, n * sizeof(float));
  return v;
}
}  // namespace

// Kept past the Runtime they came from, a Kernel and a Module hold their device (its code, its
// context on cuda) and run on another Runtime's device of the same GPU. Before, the Kernel held a
// raw pointer to the freed device.
TEST(GpuMisuse, AKernelAndAModuleKeptPastTheirRuntimeStillRun) {
  REQUIRE_GPU();
  if (test::runs_host_builds(device)) GTEST_SKIP() << "a module's kernel runs only as machine code";
  Kernel sort;
  Module app;
  {
    Runtime first = Runtime::open(device.info().backend);
    sort = first.device().kernel("bitonic_step");
    app = first.device().load_module(app_module_path(device));
  }
  const Kernel step = app.kernel("app_chain_step");  // asked of the Module after its Runtime went
  const std::uint32_t n = 4096;
  std::mt19937 gen(5);
  std::vector<std::uint32_t> keys(n);
  for (auto& k : keys) k = gen();
  Buffer d = device.alloc(n * 4), x = zeros(device, n);
  device.copy_to_device(d, keys.data(), n * 4);
  Batch b;
  for (std::uint32_t stage = 0; (2u << stage) <= n; ++stage) {
    for (std::uint32_t pass = 0; pass <= stage; ++pass) b.exec(sort, Dim3{n / 2}, Dim3{256}, {d, stage, pass, 1u, n});
  }
  b.exec(step, Dim3{n}, Dim3{256}, {x, n});
  device.create_queue().run(b, Options::all());
  std::vector<std::uint32_t> got(n);
  device.copy_to_host(got.data(), d, n * 4);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(got, keys);
  EXPECT_EQ(read(device, x, n), std::vector<float>(n, 1.0f));
}

// No backend's copy is a memmove: refused when recorded, on every backend alike.
TEST(GpuMisuse, OverlappingCopiesAreRefusedWhenRecorded) {
  REQUIRE_GPU();
  Buffer a = device.alloc(1 << 20);
  Batch b;
  EXPECT_NE(test::error_text([&] { b.copy(a, a, 4096, 256, 0); }).find("overlap"), std::string::npos);
  EXPECT_NE(test::error_text([&] { b.copy(a, a, 16, 0, 4); }).find("overlap"), std::string::npos);
  EXPECT_EQ(b.size(), 0u);
  b.copy(a, a, 4096, 4096, 0);  // ranges that touch
  device.create_queue().run(b);
}

// A trace callback must not throw. One that did at a submit dropped the submission with its work
// in flight (the cpu agent's queue then timed out on its next run): the work is waited for, the
// exception reaches the caller, and the queue goes on.
TEST(GpuMisuse, ATraceCallbackThatThrowsAtASubmitLeavesItsQueueWorking) {
  REQUIRE_GPU();
  if (test::runs_host_builds(device)) GTEST_SKIP() << "a module's kernel runs only as machine code";
  const Module app = device.load_module(app_module_path(device));
  const Kernel step = app.kernel("app_chain_step");
  const std::uint32_t n = 1000;
  Buffer x = zeros(device, n);
  Batch b;
  b.exec(step, Dim3{n}, Dim3{256}, {x, n});
  const int queues = 8;
  for (int i = 0; i < queues; ++i) {
    for (const bool replay : {false, true}) {
      Options o;
      o.replay = replay;
      Queue q = device.create_queue();
      device.set_trace([](const TraceEvent& e) {
        if (e.kind == TraceEvent::Kind::submit) throw std::runtime_error("the trace callback threw");
      });
      EXPECT_THROW((void)q.submit(b, o), std::runtime_error);
      device.set_trace(nullptr);
      ASSERT_NO_THROW(q.run(b, o, std::chrono::seconds(60))) << "queue " << i << (replay ? ", replayed" : "");
    }
  }
  EXPECT_EQ(read(device, x, n), std::vector<float>(n, float(4 * queues)));
}

// A queue of the fewest packets create_queue takes: a device-run loop still runs (on the AQL
// backends its control kernel needs a ring of 4; it had 2 and spun on).
TEST(GpuMisuse, ADeviceRunLoopRunsOnTheSmallestQueue) {
  REQUIRE_GPU();
  if (test::runs_host_builds(device)) GTEST_SKIP() << "a module's kernel runs only as machine code";
  const Module app = device.load_module(app_module_path(device));
  const Kernel step = app.kernel("app_chain_step");
  const std::uint32_t n = 256;
  Buffer x = zeros(device, n), cond = zeros(device, 16);  // a condition of 0: the body runs once
  Batch b;
  b.loop_begin();
  b.exec(step, Dim3{n}, Dim3{64}, {x, n});
  b.exec(step, Dim3{n}, Dim3{64}, {x, n});
  b.exec(step, Dim3{n}, Dim3{64}, {x, n});
  b.loop_while(cond, 10);
  Queue q = device.create_queue(2);
  Submission s = q.submit(b);
  s.wait(std::chrono::seconds(60));
  EXPECT_EQ(s.loop_iterations(), 1u);
  EXPECT_EQ(read(device, x, n), std::vector<float>(n, 3.0f));
}
