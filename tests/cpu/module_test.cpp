// Device::load_module on the cpu agent: host kernels are its code, so GPU code is refused with
// the reason; a missing, empty or unreadable file is an error that names it.
#include <gtest/gtest.h>

#include <fstream>

#include "cpu_test_device.hpp"
#include "error_text.hpp"
#include "hsad/hsad.hpp"

using namespace hsad;
using test::cpu_device;

namespace {
std::string temp_file(const std::string& name, const std::string& bytes) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}
}  // namespace

TEST(CpuModule, AnAmdCodeObjectIsRefusedWithTheReason) {
  const std::string m = test::error_text([] { cpu_device().load_module(std::string(HSAD_MODULES_DIR) + "/bundle.hsaco"); });
  EXPECT_NE(m.find("is a clang offload bundle of AMD code objects: GPU code cannot run on the cpu agent"), std::string::npos) << m;
  EXPECT_NE(m.find("hsad::register_host_kernel"), std::string::npos) << m;
}

TEST(CpuModule, ACudaImageIsRefusedWithTheReason) {
  const std::string ptx = "//\n.version 8.0\n.target sm_80\n.address_size 64\n";
  const std::string m = test::error_text([&] { cpu_device().load_module(ptx.data(), ptx.size()); });
  EXPECT_NE(m.find("'<memory>' is PTX: GPU code cannot run on the cpu agent"), std::string::npos) << m;
}

TEST(CpuModule, AMissingFileIsNamed) {
  const std::string m = test::error_text([] { cpu_device().load_module("/nonexistent/app.hsaco"); });
  EXPECT_NE(m.find("cannot open '/nonexistent/app.hsaco'"), std::string::npos) << m;
}

TEST(CpuModule, AnEmptyFileIsNamed) {
  const std::string path = temp_file("hsad_empty_module", "");
  const std::string m = test::error_text([&] { cpu_device().load_module(path); });
  EXPECT_NE(m.find("'" + path + "' is empty"), std::string::npos) << m;
}

TEST(CpuModule, BytesThatAreNoCodeObjectAreNamed) {
  const std::string path = temp_file("hsad_text_module", "just some text\n");
  const std::string m = test::error_text([&] { cpu_device().load_module(path); });
  EXPECT_NE(m.find("is not a code object"), std::string::npos) << m;
  EXPECT_NE(test::error_text([] { cpu_device().load_module(nullptr, 0); }).find("no bytes given"), std::string::npos);
}

TEST(CpuModule, AnEmptyModuleHandleIsAnError) {
  EXPECT_NE(test::error_text([] { Module().kernel("x"); }).find("the Module is empty"), std::string::npos);
}
