// What every GPU test file needs: the first GPU backend present (rocr, then cuda) or the reasons
// there is none, whether it is the simulated GPU, and where the tests' modules are.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "hsad/hsad.hpp"

namespace hsad::test {

// The first available GPU backend, or nullptr with the reasons in `why`.
inline const Runtime* gpu(std::string* why) {
  static std::string reasons;
  static std::unique_ptr<Runtime> rt = [] {
    for (const BackendStatus& b : Runtime::probe()) {
      if (b.name == "cpu") continue;
      if (b.available) return std::make_unique<Runtime>(Runtime::open(b.name));
      reasons += b.name + ": " + b.reason + "; ";
    }
    return std::unique_ptr<Runtime>();
  }();
  *why = reasons;
  return rt.get();
}

inline bool simulated(const Device& d) { return d.info().name.find("simulated") != std::string::npos; }

// hsad-sim --exec host runs the project's kernels as host builds: a module's kernels have none.
inline bool runs_host_builds(const Device& d) {
  const char* exec = std::getenv("HSAD_SIM_EXEC");
  return simulated(d) && exec && std::string(exec) == "host";
}

// RDNA4 (gfx12) has no GWS, so the driver reports none and ROCr no cooperative queue: there
// Device::create_cooperative_queue must refuse, naming why. Returns that refusal's text where the
// device is such an agent and refuses so (the caller skips, having checked it), else empty; any
// other refusal is thrown on, for the test to fail.
inline std::string cooperative_refused_without_gws(const Device& d) {
  if (d.info().backend != "rocr" || d.info().isa.rfind("gfx12", 0) != 0) return {};
  try {
    Queue q = d.create_cooperative_queue();
  } catch (const Error& e) {
    const std::string m = e.what();
    if (m.find("no cooperative queues") != std::string::npos && m.find("GWS") != std::string::npos) return m;
    throw;
  }
  ADD_FAILURE() << d.info().isa << " has no GWS, yet a cooperative queue was made";
  return "a cooperative queue where none should be";
}

// The tests' modules: tests/modules built by hipcc and nvcc (HSAD_TEST_MODULES_DIR where the
// tests were carried to another machine).
inline std::string modules_dir() {
  const char* moved = std::getenv("HSAD_TEST_MODULES_DIR");
  return moved && *moved ? moved : HSAD_MODULES_DIR;
}

}  // namespace hsad::test

#define REQUIRE_GPU()                                              \
  std::string why;                                                 \
  const Runtime* rt = ::hsad::test::gpu(&why);                     \
  if (!rt) GTEST_SKIP() << "no GPU backend available: " << why;    \
  const Device& device = rt->device()
