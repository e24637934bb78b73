// Without an AMD GPU driver (every machine here), the rocr backend says why it is unavailable,
// opening it by name is a clear error, and "auto" moves on to the next backend.
#include <gtest/gtest.h>

#include <unistd.h>

#include "hsad/hsad.hpp"

using namespace hsad;

namespace {
bool amd_driver_present() { return access("/dev/kfd", F_OK) == 0; }

BackendStatus rocr_status() {
  for (const BackendStatus& b : Runtime::probe()) {
    if (b.name == "rocr") return b;
  }
  return {};
}
}  // namespace

TEST(RocrUnavailable, ProbeNamesHsaInitAndTheMissingDriver) {
  if (amd_driver_present()) GTEST_SKIP() << "/dev/kfd exists: this machine has an AMD GPU driver";
  const BackendStatus s = rocr_status();
  EXPECT_EQ(s.name, "rocr");
  EXPECT_FALSE(s.available);
  // Either ROCr is not installed, or it is and hsa_init fails without /dev/kfd.
  const bool not_installed = s.reason.find("not found") != std::string::npos;
  const bool init_failed = s.reason.find("hsa_init failed: HSA_STATUS_ERROR_OUT_OF_RESOURCES") != std::string::npos &&
                           s.reason.find("no /dev/kfd") != std::string::npos;
  EXPECT_TRUE(not_installed || init_failed) << s.reason;
}

TEST(RocrUnavailable, OpeningItByNameIsAnErrorWithTheReason) {
  if (amd_driver_present()) GTEST_SKIP() << "/dev/kfd exists: this machine has an AMD GPU driver";
  try {
    (void)Runtime::open("rocr");
    FAIL() << "opened";
  } catch (const Error& e) {
    EXPECT_EQ(e.backend(), "rocr");
    EXPECT_NE(std::string(e.what()).find("backend unavailable"), std::string::npos) << e.what();
  }
}

TEST(RocrUnavailable, AutoMovesOnToAnotherBackend) {
  if (amd_driver_present()) GTEST_SKIP() << "/dev/kfd exists: this machine has an AMD GPU driver";
  EXPECT_NE(Runtime::open("auto").backend(), "rocr");
}
