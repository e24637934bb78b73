// The runtime and the cpu agent as a device: backend choice, kernels, memory, transfers.
#include <gtest/gtest.h>

#include <numeric>

#include "env_pin.hpp"
#include "hsad/hsad.hpp"
#include "test_kernels.hpp"

using namespace hsad;

TEST(Runtime, ProbeListsEveryBackendWithAReason) {
  const auto all = Runtime::probe();
  ASSERT_FALSE(all.empty());
  bool cpu = false;
  for (auto& b : all) {
    EXPECT_FALSE(b.reason.empty()) << b.name;
    if (b.name == "cpu") cpu = b.available;
  }
  EXPECT_TRUE(cpu);
}

TEST(Runtime, AutoOpensABackendWithADevice) {
  Runtime rt = Runtime::open("auto");
  EXPECT_FALSE(rt.devices().empty());
  EXPECT_EQ(rt.device().info().backend, rt.backend());
}

TEST(Runtime, UnknownBackendIsRefusedWithTheValidNames) {
  try {
    Runtime::open("vulkan");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown backend 'vulkan'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cpu"), std::string::npos) << e.what();
  }
}

TEST(Runtime, DeviceIndexOutOfRangeIsAnError) {
  Runtime rt = Runtime::open("cpu");
  EXPECT_THROW(rt.device(99), Error);
}

TEST(CpuDevice, DescribesItself) {
  const Runtime rt = Runtime::open("cpu");
  const DeviceInfo& i = rt.device().info();
  EXPECT_EQ(i.backend, "cpu");
  EXPECT_NE(i.name.find("cpu agent"), std::string::npos);
  EXPECT_GE(i.compute_units, 1u);
  EXPECT_GT(i.memory_bytes, 0u);
}

// The cache size comes from HSAD_CPU_LAST_LEVEL_CACHE when it is set, whatever the machine has.
TEST(CpuDevice, ReportsAPinnedCacheSizeAndWhereItCameFrom) {
  const Runtime rt = [] {
    const test::EnvPin pin("HSAD_CPU_LAST_LEVEL_CACHE", "96K");
    return Runtime::open("cpu");
  }();
  EXPECT_EQ(rt.device().info().last_level_cache_bytes, 96u << 10);
  EXPECT_EQ(rt.device().info().last_level_cache_source, "HSAD_CPU_LAST_LEVEL_CACHE");
}

TEST(CpuDevice, ReportsAnUnknownCacheAsUnknown) {
  const Runtime rt = [] {
    const test::EnvPin pin("HSAD_CPU_LAST_LEVEL_CACHE", "unknown");
    return Runtime::open("cpu");
  }();
  EXPECT_FALSE(rt.device().info().last_level_cache_bytes.has_value());
}

TEST(CpuDevice, AnUnreadablePinIsAnErrorWhenOpening) {
  const test::EnvPin pin("HSAD_CPU_LAST_LEVEL_CACHE", "lots");
  EXPECT_THROW(Runtime::open("cpu"), Error);
}

// On the cpu agent every memory is coherent: fine-grained memory is plain memory, which the host
// reads and writes (the kind is accepted, never refused).
TEST(CpuDevice, FineGrainedMemoryIsPlainMemory) {
  const Device d = Runtime::open("cpu").device();
  Buffer b = d.alloc(100, Memory::device_fine_grained);
  ASSERT_NE(b.host_ptr(), nullptr);
  b.host_as<unsigned char>()[99] = 7;
  unsigned char last = 0;
  d.copy_to_host(&last, b, 1, 99);
  EXPECT_EQ(last, 7);
}

TEST(CpuDevice, UnknownKernelNameIsAnError) {
  try {
    Runtime::open("cpu").device().kernel("no_such_kernel");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_kernel"), std::string::npos);
  }
}

TEST(CpuDevice, KernelInfoComesFromTheRegistration) {
  const Kernel k = Runtime::open("cpu").device().kernel("bitonic_step");
  EXPECT_EQ(k.info().explicit_arg_count(), 5u);  // keys, stage, pass, ascending, n
  EXPECT_EQ(k.info().args[0].kind, ArgKind::global_buffer);
  EXPECT_EQ(k.info().args[1].offset, 8u);
  EXPECT_EQ(k.info().args[3].offset, 16u);
  EXPECT_EQ(k.info().args[4].offset, 20u);
}

TEST(CpuDevice, TransfersRoundTripPinnedAndPageable) {
  const Device d = Runtime::open("cpu").device();
  std::vector<std::uint32_t> src(10000), back(10000);
  std::iota(src.begin(), src.end(), 5u);
  Buffer dev = d.alloc(src.size() * 4);
  Buffer pinned = d.alloc(src.size() * 4, Memory::pinned_host);
  std::copy(src.begin(), src.end(), pinned.host_as<std::uint32_t>());

  const Stats s0 = d.stats();
  d.copy_to_device(dev, src.data(), src.size() * 4);  // pageable: staged
  d.copy_to_host(back.data(), dev, back.size() * 4);
  const Stats s1 = d.stats();
  EXPECT_EQ(back, src);
  EXPECT_EQ((s1 - s0).bytes_staged, 2 * src.size() * 4);

  d.copy_to_device(dev, pinned.host_ptr(), src.size() * 4);  // pinned: direct
  d.copy_to_host(pinned.host_ptr(), dev, src.size() * 4);
  const Stats s2 = d.stats();
  EXPECT_EQ((s2 - s1).bytes_staged, 0u);
  EXPECT_EQ((s2 - s1).bytes_copied, 2 * src.size() * 4);
}

TEST(CpuDevice, LargePageableTransferIsStagedInChunks) {
  const Device d = Runtime::open("cpu").device();
  std::vector<std::uint8_t> src(3 << 20), back(3 << 20);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = std::uint8_t(i * 7);
  Buffer dev = d.alloc(src.size());
  d.copy_to_device(dev, src.data(), src.size());
  d.copy_to_host(back.data(), dev, back.size());
  EXPECT_EQ(back, src);
}

TEST(CpuDevice, TransferOverrunningTheBufferIsRefused) {
  const Device d = Runtime::open("cpu").device();
  Buffer dev = d.alloc(64);
  std::vector<char> src(128);
  EXPECT_THROW(d.copy_to_device(dev, src.data(), 128), Error);
  EXPECT_THROW(d.copy_to_device(dev, src.data(), 32, 40), Error);
  EXPECT_THROW(d.copy_to_host(src.data(), dev, 65), Error);
}

TEST(CpuDevice, ZeroByteAllocationIsRefused) {
  EXPECT_THROW(Runtime::open("cpu").device().alloc(0), Error);
}

TEST(Buffer, MoveTransfersOwnership) {
  const Device d = Runtime::open("cpu").device();
  Buffer a = d.alloc(256);
  void* p = a.device_ptr();
  Buffer b = std::move(a);
  EXPECT_EQ(b.device_ptr(), p);
  EXPECT_EQ(a.device_ptr(), nullptr);
  EXPECT_EQ(b.size(), 256u);
}

// Teardown in any order: a Kernel, a Buffer and a Queue held past the Runtime and Device handle
// that made them still run, and drop in any order (ASan and TSan watch the destructors).
TEST(CpuTeardown, HandlesOutliveTheirRuntimeInAnyOrder) {
  test::register_test_kernels();
  for (int order = 0; order < 3; ++order) {
    SCOPED_TRACE("order " + std::to_string(order));
    Kernel k;
    Buffer buf;
    Queue q;
    {
      const Runtime own = Runtime::open("cpu");
      k = own.device().kernel("test_add");
      buf = own.device().alloc(64 * 4);
      q = own.device().create_queue();
    }
    std::vector<std::uint32_t> zero(64, 0), back(64);
    Batch b;
    b.copy_to_device(buf, zero.data(), 64 * 4).exec(k, Dim3{64}, Dim3{64}, {buf, 3u, 64u}).copy_to_host(back.data(), buf, 64 * 4);
    q.run(b, Options{});
    EXPECT_EQ(back[63], 3u);
    b.clear();
    if (order == 0) k = Kernel(), q = Queue(), buf = Buffer();
    if (order == 1) buf = Buffer(), q = Queue(), k = Kernel();
    if (order == 2) q = Queue(), buf = Buffer(), k = Kernel();
  }
}
