// The recovery tests, the same on every backend: each case runs tests/fault/fault_probe.cpp in a
// child process with a generous bound that only a hang reaches, and checks what it printed. What
// each backend can recover from differs (docs/api.md, "Recovering from a stuck or faulting
// kernel"), and so do a few expectations here: said where they do.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>

#include "child_process.hpp"

namespace hsad::test {

inline std::string fault_probe() {
  const char* path = std::getenv("HSAD_FAULT_PROBE");  // where the build's path does not exist (the GPU machine)
  return path && *path ? path : HSAD_FAULT_PROBE;
}

inline constexpr std::chrono::seconds kHangBound{90};  // only a hang takes this long
inline constexpr std::uint64_t kExitBoundNs = 5'000'000'000ull;  // the issue's: exit within 5 s

// The milliseconds a probe step took: its value ends in "(N ms)"; -1 where it does not.
inline long step_ms(const std::string& value) {
  const std::size_t open = value.rfind('(');
  if (open == std::string::npos || value.size() < open + 5 || value.compare(value.size() - 4, 4, " ms)") != 0) return -1;
  return std::strtol(value.c_str() + open + 1, nullptr, 10);
}

inline ChildResult run_probe(const std::string& backend, const std::string& what,
                             const std::vector<std::pair<std::string, std::string>>& env = {}) {
  ChildResult r = run_child({fault_probe(), backend, what}, kHangBound, env);
  EXPECT_FALSE(r.timed_out) << "hsad-fault-probe " << what << " did not end in " << kHangBound.count() << " s:\n" << r.output;
  return r;
}

// main() returned 3 while the kernel may still run, and the process ended within the bound.
inline void expect_normal_exit(const ChildResult& r, const std::string& what) {
  EXPECT_TRUE(r.exited && r.exit_code == 3) << what << ": exit " << r.exit_code << ", signal " << r.signal << "\n" << r.output;
  const std::string at = line_value(r.output, "main-returns-at-ns");
  ASSERT_FALSE(at.empty()) << r.output;
  const std::uint64_t returned = std::strtoull(at.c_str(), nullptr, 10);
  const std::uint64_t delay = r.ended_ns > returned ? r.ended_ns - returned : 0;
  EXPECT_LT(delay, kExitBoundNs) << what << ": the process took " << delay / 1e6 << " ms to exit after main returned";
  std::cout << "[ measured ] " << what << ": exit " << delay / 1e6 << " ms after main returned\n";
}

inline void expect_error(const ChildResult& r, const std::string& key, const std::string& contains) {
  const std::string v = line_value(r.output, key);
  EXPECT_EQ(v.rfind("error: ", 0), 0u) << key << " should fail: " << v << "\n" << r.output;
  EXPECT_NE(v.find(contains), std::string::npos) << key << " should say '" << contains << "': " << v;
}

inline void expect_ok(const ChildResult& r, const std::string& key, long bound_ms) {
  const std::string v = line_value(r.output, key);
  EXPECT_EQ(v.rfind("ok", 0), 0u) << key << ": " << v << "\n" << r.output;
  EXPECT_LE(step_ms(v), bound_ms) << key << ": " << v;
}

inline void check_stuck_exit(const std::string& backend) {
  const ChildResult r = run_probe(backend, "stuck-exit");
  expect_error(r, "stuck-run", "timed out");
  expect_error(r, "stuck-run", "submission 1 of the queue (probe_spin) is abandoned");
  expect_normal_exit(r, backend + " stuck-exit");
}

inline void check_stuck_later(const std::string& backend) {
  const ChildResult r = run_probe(backend, "stuck-later");
  expect_error(r, "stuck-run", "timed out");
  // The same queue refuses at once, naming the stuck submission.
  expect_error(r, "same-queue", "submission 1 of the queue (probe_spin) timed out and still runs");
  EXPECT_LT(step_ms(line_value(r.output, "same-queue")), 1000);
  // Everything else works, or fails at once, within its own deadline (3 s) and a margin.
  expect_ok(r, "create-queue", 3000);
  expect_ok(r, "new-queue", 5000);
  expect_ok(r, "new-queue-baseline", 5000);
  expect_ok(r, "alloc-free", 5000);
  if (backend == "cuda") {
    expect_error(r, "load-module", "would wait for it");  // cuModuleLoadData waits for the kernel
    EXPECT_LT(step_ms(line_value(r.output, "load-module")), 1000);
  } else {
    expect_ok(r, "load-module", 5000);
  }
  expect_error(r, "abandoned-wait-again", "still runs");
  EXPECT_LT(step_ms(line_value(r.output, "abandoned-wait-again")), 5000);
  expect_normal_exit(r, backend + " stuck-later");
}

inline void check_reset(const std::string& backend) {
  const ChildResult r = run_probe(backend, "reset");
  expect_error(r, "stuck-run", "timed out");
  if (backend == "cuda") {
    // The driver's reset waits for running kernels: refused at once, naming the kernel; once
    // it ended, the reset works.
    expect_error(r, "reset", "probe_spin");
    EXPECT_LT(step_ms(line_value(r.output, "reset")), 1000);
    expect_ok(r, "stuck-ends", 10000);
    expect_ok(r, "reset-after-release", 5000);
  } else {
    expect_ok(r, "reset", 5000);
  }
  expect_error(r, "old-queue", "made before the device was reset");
  expect_ok(r, "after-reset", 10000);
  expect_normal_exit(r, backend + " reset");
}

inline void check_fault(const std::string& backend, bool trap) {
  const ChildResult r = run_probe(backend, trap ? "trap" : "fault");
  const std::string kernel = trap ? "probe_trap" : "probe_store";
  expect_error(r, "faulting-run", kernel);
  if (backend != "cuda") expect_error(r, "faulting-run", "command 2 of 3 (" + kernel + ")");  // AQL: exact
  if (backend == "rocr" && !trap) {
    expect_error(r, "faulting-run", "GPU memory fault");
    expect_error(r, "faulting-run", "address 0x1000");
    expect_error(r, "faulting-run", "page not present");
  }
  expect_error(r, "same-queue-after", "");
  expect_normal_exit(r, backend + (trap ? " trap" : " fault"));
}

// A trap on a cooperative queue is an error naming its command, as on any queue, and never ends
// the process (ROCr's own handler for its shared cooperative queue prints and aborts).
inline void check_cooperative_trap(const std::string& backend) {
  const ChildResult r = run_probe(backend, "cooperative-trap");
  expect_ok(r, "create-cooperative", 5000);
  expect_error(r, "faulting-run", "probe_trap");
  if (backend != "cuda") expect_error(r, "faulting-run", "command 2 of 3 (probe_trap)");  // AQL: exact
  expect_error(r, "same-queue-after", "");
  if (backend == "rocr") {
    // ROCr hands out the same stopped queue while one is held: refused, saying what to do.
    expect_error(r, "second-cooperative-while-held", "destroy every cooperative Queue");
  }
  if (backend == "cuda") {
    // The context is unusable after a kernel's trap, for every stream (docs/api.md).
    expect_error(r, "plain-queue-works", "");
  } else {
    if (backend == "cpu") expect_ok(r, "second-cooperative-while-held", 5000);
    expect_ok(r, "plain-queue-works", 10000);
    expect_ok(r, "fresh-cooperative", 10000);
  }
  expect_normal_exit(r, backend + " cooperative-trap");
}

inline void check_fault_reset(const std::string& backend) {
  const ChildResult r = run_probe(backend, "fault-reset");
  expect_error(r, "faulting-run", "probe_store");
  if (backend == "cuda") {
    expect_error(r, "reset", "refuses a new one");  // the driver keeps the fault for the process
  } else {
    expect_ok(r, "reset", 5000);
    expect_ok(r, "after-reset", 10000);
  }
  expect_normal_exit(r, backend + " fault-reset");
}

// A second Runtime while the first's kernel is stuck: every step works within its bound, or on
// cuda the open is refused at once, naming the stuck submission; once it ended, a third opens.
inline void check_stuck_new_runtime(const std::string& backend) {
  const ChildResult r = run_probe(backend, "stuck-new-runtime");
  expect_error(r, "stuck-run", "timed out");
  if (backend == "cuda") {
    expect_error(r, "second-open", "submission 1 of the queue (probe_spin) timed out and still runs");
    expect_error(r, "second-open", "would wait for it");
    EXPECT_LT(step_ms(line_value(r.output, "second-open")), 1000);
  } else {
    expect_ok(r, "second-open", 5000);
    expect_ok(r, "second-alloc-free", 5000);
    expect_ok(r, "second-create-queue", 5000);
    expect_ok(r, "second-load-module", 5000);
    expect_ok(r, "second-works", 10000);
  }
  expect_ok(r, "stuck-ends", 10000);
  expect_ok(r, "third-open", 20000);
  expect_normal_exit(r, backend + " stuck-new-runtime");
}

}  // namespace hsad::test

// The cases as tests of `Suite`, for the backend `backend` (an expression run in each test).
#define HSAD_RECOVERY_TESTS(Suite, backend)                                                        \
  TEST(Suite, AStuckKernelTimesOutAndTheProcessExitsNormally) { hsad::test::check_stuck_exit(backend); } \
  TEST(Suite, LaterWorkFailsAtOnceOrHonoursItsDeadline) { hsad::test::check_stuck_later(backend); }       \
  TEST(Suite, AResetStopsTheStuckKernelAndTheDeviceWorksAgain) { hsad::test::check_reset(backend); }    \
  TEST(Suite, AMemoryFaultIsAnErrorNamingItsCommand) { hsad::test::check_fault(backend, false); }      \
  TEST(Suite, ATrapIsAnErrorNamingItsCommand) { hsad::test::check_fault(backend, true); }              \
  TEST(Suite, AfterAFaultAResetRecoversWhereTheBackendCan) { hsad::test::check_fault_reset(backend); } \
  TEST(Suite, ATrapOnACooperativeQueueIsAnErrorAndOtherQueuesGoOn) { hsad::test::check_cooperative_trap(backend); } \
  TEST(Suite, ANewRuntimeWorksOrRefusesAtOnceWhileAKernelIsStuck) { hsad::test::check_stuck_new_runtime(backend); }
