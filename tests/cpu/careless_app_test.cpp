// The careless application (tests/support/careless_app.hpp) on the cpu agent: seeded, reproducible
// (the seed is in every failure), bounded (a few hundred calls per seed). Runs under ASan and TSan
// with the rest of the cpu label.
#include <gtest/gtest.h>

#include "careless_app.hpp"
#include "test_kernels.hpp"

using namespace hsad;

TEST(CpuCarelessApp, EveryRandomSequenceOfCallsGetsWhatTheModelSays) {
  test::register_test_kernels();
  static Runtime rt = Runtime::open("cpu");
  const Device device = rt.device();
  for (std::uint32_t seed = 1; seed <= 6; ++seed) {
    test::run_careless_app(device, device.kernel("test_add"), {seed, 300, 77});
    if (HasFatalFailure()) return;
  }
}
