// Queues through the public API: wrap-around, back-pressure, concurrent submitters, a
// throwing kernel, timeouts.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "cpu_test_device.hpp"
#include "hsad/hsad.hpp"

using namespace hsad;
using test::add_batch;
using test::cpu_device;
using namespace std::chrono_literals;

namespace {
std::vector<std::uint32_t> read(const Device& d, const Buffer& buf, std::uint32_t n) {
  std::vector<std::uint32_t> v(n);
  d.copy_to_host(v.data(), buf, n * 4);
  return v;
}
}  // namespace

TEST(CpuQueue, WrapsTheRingTenTimesOver) {
  const Device d = cpu_device();
  Queue q = d.create_queue(16);
  Buffer buf = d.alloc(256 * 4);
  std::vector<std::uint32_t> zero(256, 0);
  d.copy_to_device(buf, zero.data(), zero.size() * 4);
  const Batch b = add_batch(d, buf, 256, 160);  // 10 x the ring, in one batch
  q.run(b, Options{});
  for (auto v : read(d, buf, 256)) ASSERT_EQ(v, 160u);
  for (int i = 0; i < 10; ++i) q.run(add_batch(d, buf, 256, 16), Options::none());  // and batch by batch
  for (auto v : read(d, buf, 256)) ASSERT_EQ(v, 320u);
}

TEST(CpuQueue, BatchLargerThanTheKernargPoolWaitsInsteadOfOverwriting) {
  const Device d = cpu_device();
  Queue q = d.create_queue(64);
  Buffer buf = d.alloc(64 * 4);
  std::vector<std::uint32_t> zero(64, 0);
  d.copy_to_device(buf, zero.data(), 64 * 4);
  // 1 MiB pool / 64-byte blocks = 16384 blocks: 20000 dispatches must reuse blocks mid-batch.
  Batch b;
  const Kernel add = d.kernel("test_add");
  for (int i = 0; i < 20000; ++i) b.exec(add, Dim3{64}, Dim3{64}, {buf, std::uint32_t(i % 3), 64u});
  q.run(b, Options{});
  std::uint32_t expected = 0;
  for (int i = 0; i < 20000; ++i) expected += i % 3;
  for (auto v : read(d, buf, 64)) ASSERT_EQ(v, expected);
}

TEST(CpuQueue, FourHostThreadsSubmitToOneQueueAtOnce) {
  const Device d = cpu_device();
  Queue q = d.create_queue(64);
  constexpr int kThreads = 4, kBatches = 25, kDispatches = 10;
  std::vector<Buffer> bufs;
  std::vector<std::uint32_t> zero(128, 0);
  for (int t = 0; t < kThreads; ++t) {
    bufs.push_back(d.alloc(128 * 4));
    d.copy_to_device(bufs.back(), zero.data(), 128 * 4);
  }
  std::vector<std::thread> threads;
  std::vector<std::string> errors(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        const Batch b = add_batch(d, bufs[t], 128, kDispatches, std::uint32_t(t + 1));
        for (int i = 0; i < kBatches; ++i) q.run(b, i % 2 ? Options{} : Options::parse("signal,kernarg"));
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(errors[t], "");
    for (auto v : read(d, bufs[t], 128)) ASSERT_EQ(v, std::uint32_t((t + 1) * kBatches * kDispatches));
  }
}

TEST(CpuQueue, ThrowingKernelFailsTheWaiterWithTheKernelsMessage) {
  const Device d = cpu_device();
  Queue q = d.create_queue();
  Batch b;
  b.exec(d.kernel("test_throw"), Dim3{4}, Dim3{1}, {});
  try {
    q.run(b, Options{}, 5000ms);
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("test_throw"), std::string::npos) << m;
    EXPECT_NE(m.find("deliberate failure"), std::string::npos) << m;
  }
}

TEST(CpuQueue, FailedQueueRefusesMoreWorkAndANewQueueWorks) {
  const Device d = cpu_device();
  Queue q = d.create_queue();
  Batch bad;
  bad.exec(d.kernel("test_throw"), Dim3{1}, Dim3{1}, {});
  EXPECT_THROW(q.run(bad, Options::none(), 5000ms), Error);
  Buffer buf = d.alloc(64 * 4);
  const Batch good = add_batch(d, buf, 64, 2);
  EXPECT_THROW(q.run(good, Options{}, 1000ms), Error);
  Queue fresh = d.create_queue();
  std::vector<std::uint32_t> zero(64, 0);
  d.copy_to_device(buf, zero.data(), 64 * 4);
  fresh.run(good, Options{});
  for (auto v : read(d, buf, 64)) ASSERT_EQ(v, 2u);
}

TEST(CpuQueue, WaitPastTheTimeoutIsAnErrorAndALaterWaitSucceeds) {
  const Device d = cpu_device();
  Queue q = d.create_queue();
  Batch b;
  b.exec(d.kernel("test_sleep"), Dim3{1}, Dim3{1}, {std::uint32_t(200)});
  Submission s = q.submit(b, Options{});
  try {
    s.wait(10ms);
    FAIL() << "no timeout";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("timed out"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(s.wait(5000ms));
}

TEST(CpuQueue, QueueSizeMustBeAPowerOfTwo) {
  const Device d = cpu_device();
  EXPECT_THROW(d.create_queue(100), Error);
  EXPECT_THROW(d.create_queue(1), Error);
  EXPECT_EQ(d.create_queue(128).size(), 128u);
}

TEST(CpuQueue, EmptyBatchCompletesAtOnce) {
  const Device d = cpu_device();
  Queue q = d.create_queue();
  EXPECT_NO_THROW(q.run(Batch{}, Options{}));
}
