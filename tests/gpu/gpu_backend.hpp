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
