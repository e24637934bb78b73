// Recording a dispatch checks the arguments against the kernel's kernarg layout.
#include <gtest/gtest.h>

#include <cstring>

#include "backends/backend.hpp"
#include "hsad/batch.hpp"
#include "hsad/error.hpp"

using namespace hsad;

namespace {
// keys: pointer at 0; n: u32 at 8; scale: f64 at 16; a hidden argument at 24 (8 bytes).
Kernel make_kernel() {
  auto k = std::make_shared<detail::KernelImpl>();
  k->info.name = "scale_keys";
  k->info.kernarg_segment_size = 32;
  k->info.args = {{"keys", 0, 8, ArgKind::global_buffer, {}},
                  {"n", 8, 4, ArgKind::by_value, {}},
                  {"scale", 16, 8, ArgKind::by_value, {}},
                  {"", 24, 8, ArgKind::hidden, "hidden_global_offset_x"}};
  return Kernel(k);
}
}  // namespace

TEST(BatchArgs, PacksExplicitArgumentsAtTheirOffsets) {
  Batch b;
  int data = 0;
  b.exec(make_kernel(), Dim3{64}, Dim3{64}, {&data, 7u, 2.5});
  const unsigned char* image = b.kernarg_image(0);
  void* p;
  std::uint32_t n;
  double scale;
  std::memcpy(&p, image, 8);
  std::memcpy(&n, image + 8, 4);
  std::memcpy(&scale, image + 16, 8);
  EXPECT_EQ(p, &data);
  EXPECT_EQ(n, 7u);
  EXPECT_EQ(scale, 2.5);
  for (int i = 24; i < 32; ++i) EXPECT_EQ(image[i], 0) << "hidden bytes are the dispatcher's to fill";
}

TEST(BatchArgs, WrongCountNamesTheKernelAndBothCounts) {
  Batch b;
  try {
    b.exec(make_kernel(), Dim3{64}, Dim3{64}, {nullptr, 7u});
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("scale_keys"), std::string::npos) << m;
    EXPECT_NE(m.find("got 2"), std::string::npos) << m;
    EXPECT_NE(m.find("takes 3"), std::string::npos) << m;
  }
  EXPECT_TRUE(b.empty());
}

TEST(BatchArgs, WrongSizeNamesTheArgument) {
  Batch b;
  try {
    b.exec(make_kernel(), Dim3{64}, Dim3{64}, {nullptr, std::uint64_t(7), 2.5});
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("argument 1 ('n')"), std::string::npos) << m;
    EXPECT_NE(m.find("is 4 bytes, got 8"), std::string::npos) << m;
  }
  EXPECT_TRUE(b.empty());
}

TEST(BatchArgs, EmptyGridIsRefused) {
  Batch b;
  EXPECT_THROW(b.exec(make_kernel(), Dim3{0}, Dim3{64}, {nullptr, 7u, 2.5}), Error);
  EXPECT_THROW(b.exec(make_kernel(), Dim3{64}, Dim3{64, 0}, {nullptr, 7u, 2.5}), Error);
}

TEST(BatchArgs, EmptyKernelHandleIsRefused) {
  Batch b;
  EXPECT_THROW(b.exec(Kernel(), Dim3{1}, Dim3{1}, {}), Error);
}

TEST(BatchArgs, VersionChangesWithContent) {
  Batch b;
  const auto v0 = b.version();
  b.exec(make_kernel(), Dim3{64}, Dim3{64}, {nullptr, 7u, 2.5});
  EXPECT_GT(b.version(), v0);
  const auto v1 = b.version();
  b.clear();
  EXPECT_GT(b.version(), v1);
}

TEST(BatchArgs, WorkGroupLargerThanTheKernelAllowsIsRefused) {
  auto k = std::make_shared<detail::KernelImpl>();
  k->info.name = "bounded";
  k->info.max_workgroup_size = 256;
  Batch b;
  EXPECT_NO_THROW(b.exec(Kernel(k), Dim3{1024}, Dim3{256}, {}));
  try {
    b.exec(Kernel(k), Dim3{1024}, Dim3{128, 1, 8}, {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("1024 work-items exceeds kernel 'bounded''s limit of 256"), std::string::npos)
        << e.what();
  }
}
