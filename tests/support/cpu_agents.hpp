// Three cpu agents (HSAD_CPU_DEVICES=3), opened once per test program: the environment is read
// when the runtime opens. For the tests of work spread over several devices.
#pragma once

#include <vector>

#include "env_pin.hpp"
#include "hsad/hsad.hpp"

namespace hsad::test {

inline const Runtime& three_cpu_agents() {
  static const Runtime rt = [] {
    EnvPin pin("HSAD_CPU_DEVICES", "3");
    return Runtime::open("cpu");
  }();
  return rt;
}

// The first `n` of them.
inline std::vector<Device> first_cpu_agents(std::size_t n) {
  const auto& all = three_cpu_agents().devices();
  return {all.begin(), all.begin() + n};
}

}  // namespace hsad::test
