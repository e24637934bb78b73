// A batch as a list of commands on the cpu agent: copies in batch order with the dispatches and
// no host wait between them, waits for submissions on other queues done by the device, and
// the timestamps of every dispatch and copy.
#include <gtest/gtest.h>

#include <numeric>
#include <thread>

#include "cpu_test_device.hpp"
#include "error_text.hpp"
#include "hsad/hsad.hpp"
#include "test_kernels.hpp"

using namespace hsad;
using test::cpu_device;
using namespace std::chrono_literals;

namespace {
// copy in, `adds` dispatches adding 1, copy out: one submission.
struct AddPipeline {
  explicit AddPipeline(Memory host_kind, std::uint32_t n = 1000, int adds = 3)
      : n(n), data(cpu_device().alloc(n * 4)) {
    if (host_kind == Memory::pinned_host) {
      pinned_in = cpu_device().alloc(n * 4, Memory::pinned_host);
      pinned_out = cpu_device().alloc(n * 4, Memory::pinned_host);
      in = pinned_in.host_as<std::uint32_t>();
      out = pinned_out.host_as<std::uint32_t>();
    } else {
      pageable_in.resize(n);
      pageable_out.resize(n);
      in = pageable_in.data();
      out = pageable_out.data();
    }
    std::iota(in, in + n, 7u);
    batch.copy_to_device(data, in, n * 4);
    for (int i = 0; i < adds; ++i) batch.exec(cpu_device().kernel("test_add"), Dim3{n}, Dim3{64}, {data, 1u, n});
    batch.copy_to_host(out, data, n * 4);
  }
  bool correct(std::uint32_t added) const {
    for (std::uint32_t i = 0; i < n; ++i) {
      if (out[i] != 7u + i + added) return false;
    }
    return true;
  }
  std::uint32_t n;
  Buffer data, pinned_in, pinned_out;
  std::vector<std::uint32_t> pageable_in, pageable_out;
  std::uint32_t *in = nullptr, *out = nullptr;
  Batch batch;
};
}  // namespace

TEST(BatchCopies, RunInBatchOrderWithOneDoorbellAndOneWait) {
  AddPipeline p(Memory::pinned_host);
  Queue q = cpu_device().create_queue();
  const Stats before = cpu_device().stats();
  q.run(p.batch, Options{});
  const Stats d = cpu_device().stats() - before;
  EXPECT_TRUE(p.correct(3));
  EXPECT_EQ(d.packets, 5u);  // two copy packets, three dispatches
  EXPECT_EQ(d.doorbells, 1u);
  EXPECT_EQ(d.host_waits, 1u);
  EXPECT_EQ(d.copies, 2u);
  EXPECT_EQ(d.bytes_copied, 2u * p.n * 4);
  EXPECT_EQ(d.bytes_staged, 0u);
}

TEST(BatchCopies, PageableHostMemoryIsStagedAndCounted) {
  AddPipeline p(Memory::device);  // pageable std::vectors on the host side
  Queue q = cpu_device().create_queue();
  const Stats before = cpu_device().stats();
  q.run(p.batch, Options{});
  const Stats d = cpu_device().stats() - before;
  EXPECT_TRUE(p.correct(3));
  EXPECT_EQ(d.bytes_staged, 2u * p.n * 4);
}

TEST(BatchCopies, TheBaselineWaitsOnTheHostAfterEveryCommand) {
  AddPipeline p(Memory::pinned_host);
  Queue q = cpu_device().create_queue();
  const Stats before = cpu_device().stats();
  q.run(p.batch, Options::none());
  const Stats d = cpu_device().stats() - before;
  EXPECT_TRUE(p.correct(3));
  EXPECT_EQ(d.host_waits, 5u);
  EXPECT_EQ(d.doorbells, 5u);
}

// Copies touch the host: the packets beside them fence at system scope, the rest at agent scope.
TEST(BatchCopies, SystemScopeOnlyBesideTheCopiesAndAtTheEnds) {
  AddPipeline p(Memory::pinned_host, 256, 4);
  Queue q = cpu_device().create_queue();
  const Stats before = cpu_device().stats();
  q.run(p.batch, Options{});
  const Stats d = cpu_device().stats() - before;
  // copy in (2), first dispatch's acquire (1), last dispatch's release (1), copy out (2)
  EXPECT_EQ(d.system_fences, 6u);
  EXPECT_TRUE(p.correct(4));
}

TEST(BatchCopies, ALargeCopyIsSplitAcrossTheWorkersAndArrivesWhole) {
  const std::size_t n = (3 << 20) + 123;  // bytes: several 256 KiB pieces and a partial one
  Buffer a = cpu_device().alloc(n), b = cpu_device().alloc(n), host = cpu_device().alloc(n, Memory::pinned_host);
  std::vector<std::uint8_t> src(n), back(n);
  for (std::size_t i = 0; i < n; ++i) src[i] = std::uint8_t(i * 13 + (i >> 12));
  Batch batch;
  batch.copy_to_device(a, src.data(), n).copy(b, a, n).copy_to_host(host.host_ptr(), b, n);
  cpu_device().create_queue().run(batch, Options{});
  std::memcpy(back.data(), host.host_ptr(), n);
  EXPECT_EQ(back, src);
}

TEST(BatchCopies, OffsetsSelectTheRange) {
  Buffer buf = cpu_device().alloc(64);
  std::vector<std::uint8_t> zeros(64, 0), ones(16, 1), back(64);
  Batch batch;
  batch.copy_to_device(buf, zeros.data(), 64).copy_to_device(buf, ones.data(), 16, 40).copy_to_host(back.data(), buf, 64);
  cpu_device().create_queue().run(batch, Options{});
  for (std::size_t i = 0; i < 64; ++i) EXPECT_EQ(back[i], i >= 40 && i < 56 ? 1 : 0) << i;
}

TEST(BatchCopies, BadRangesAreRefusedByName) {
  Buffer buf = cpu_device().alloc(64), other = cpu_device().alloc(32);
  std::vector<std::uint8_t> host(128);
  Batch b;
  EXPECT_NE(test::error_text([&] { b.copy_to_device(buf, host.data(), 65); }).find("65 bytes at offset 0 overrun the destination buffer of 64 bytes"), std::string::npos);
  EXPECT_NE(test::error_text([&] { b.copy_to_host(host.data(), buf, 8, 60); }).find("overrun the source buffer"), std::string::npos);
  EXPECT_NE(test::error_text([&] { b.copy(other, buf, 64); }).find("overrun the destination buffer of 32 bytes"), std::string::npos);
  EXPECT_NE(test::error_text([&] { b.copy(buf, other, 16, 0, 20); }).find("overrun the source buffer"), std::string::npos);
  EXPECT_NE(test::error_text([&] { b.copy_to_device(buf, host.data(), 0); }).find("a copy of 0 bytes"), std::string::npos);
  EXPECT_NE(test::error_text([&] { b.copy_to_device(buf, nullptr, 8); }).find("host pointer is null"), std::string::npos);
  EXPECT_NE(test::error_text([&] { b.copy_to_device(Buffer{}, host.data(), 8); }).find("Buffer is empty"), std::string::npos);
  EXPECT_TRUE(b.empty()) << "a refused command is not recorded";
}

// Two queues: the consumer's first dispatch starts only after the producer's last one ended,
// and nobody waited on the host in between.
TEST(BatchWaits, TheConsumerStartsAfterTheProducerEndedWithNoHostWait) {
  test::Timeline t;
  Batch producer, consumer;
  const Kernel record = cpu_device().kernel("test_record");
  for (int i = 0; i < 3; ++i) producer.exec(record, Dim3{8}, Dim3{1}, {&t, 0u, 2000u});
  Queue a = cpu_device().create_queue(), b = cpu_device().create_queue();
  const Stats before = cpu_device().stats();
  Submission p = a.submit(producer, Options{});
  consumer.wait(p).exec(record, Dim3{1}, Dim3{1}, {&t, 1u, 0u});
  Submission c = b.submit(consumer, Options{});
  const Stats submitted = cpu_device().stats() - before;
  EXPECT_EQ(submitted.host_waits, 0u);
  EXPECT_EQ(submitted.device_waits, 1u);
  c.wait();
  p.wait();
  EXPECT_GT(t.first_start[1].load(), t.last_end[0].load()) << "the consumer ran before the producer ended";
}

TEST(BatchWaits, WithoutTheWaitTheConsumerOverlapsTheProducer) {
  // The positive control: the same two queues without the wait do overlap, so the test above
  // would see a wait that does nothing.
  test::Timeline t;
  Batch producer, consumer;
  const Kernel record = cpu_device().kernel("test_record");
  for (int i = 0; i < 3; ++i) producer.exec(record, Dim3{8}, Dim3{1}, {&t, 0u, 2000u});
  consumer.exec(record, Dim3{1}, Dim3{1}, {&t, 1u, 0u});
  Queue a = cpu_device().create_queue(), b = cpu_device().create_queue();
  Submission p = a.submit(producer, Options{});
  Submission c = b.submit(consumer, Options{});
  c.wait();
  p.wait();
  EXPECT_LT(t.first_start[1].load(), t.last_end[0].load());
}

TEST(BatchWaits, AWaitForACompletedSubmissionCostsNothing) {
  Queue a = cpu_device().create_queue(), b = cpu_device().create_queue();
  Buffer buf = cpu_device().alloc(64 * 4);
  Batch producer;
  producer.exec(cpu_device().kernel("test_add"), Dim3{64}, Dim3{64}, {buf, 1u, 64u});
  Submission p = a.submit(producer, Options{});
  p.wait();
  Batch consumer;
  consumer.wait(p).exec(cpu_device().kernel("test_add"), Dim3{64}, Dim3{64}, {buf, 1u, 64u});
  const Stats before = cpu_device().stats();
  b.run(consumer, Options{});
  EXPECT_EQ((cpu_device().stats() - before).device_waits, 0u);
}

TEST(BatchWaits, ABatchMayWaitForSeveralSubmissions) {
  test::Timeline t;
  const Kernel record = cpu_device().kernel("test_record");
  std::vector<Queue> producers;
  std::vector<Submission> subs;
  Batch consumer;
  for (std::uint32_t i = 0; i < 7; ++i) {  // more than one barrier-AND packet holds
    producers.push_back(cpu_device().create_queue());
    Batch b;
    b.exec(record, Dim3{2}, Dim3{1}, {&t, i, 1000u});
    subs.push_back(producers.back().submit(b, Options{}));
    consumer.wait(subs.back());
  }
  consumer.exec(record, Dim3{1}, Dim3{1}, {&t, 15u, 0u});
  cpu_device().create_queue().run(consumer, Options{});
  for (std::uint32_t i = 0; i < 7; ++i) EXPECT_GT(t.first_start[15].load(), t.last_end[i].load()) << i;
}

TEST(BatchWaits, ASubmissionWhoseQueueFailedIsRefusedAtSubmit) {
  Queue a = cpu_device().create_queue(), b = cpu_device().create_queue();
  Batch bad;
  bad.exec(cpu_device().kernel("test_throw"), Dim3{1}, Dim3{1}, {});
  Submission p = a.submit(bad, Options{});
  EXPECT_THROW(p.wait(), Error);
  Batch consumer;
  consumer.wait(p).exec(cpu_device().kernel("test_sleep"), Dim3{1}, Dim3{1}, {1u});
  EXPECT_NE(test::error_text([&] { b.run(consumer, Options{}); }).find("waits for a submission whose queue failed"),
            std::string::npos);
}

TEST(BatchWaits, AProducerThatFailsLaterFailsTheConsumersWaitAndBlocksItsQueue) {
  Queue a = cpu_device().create_queue(), b = cpu_device().create_queue();
  Batch bad;
  bad.exec(cpu_device().kernel("test_sleep"), Dim3{1}, Dim3{1}, {30u}).exec(cpu_device().kernel("test_throw"), Dim3{1}, Dim3{1}, {});
  Submission p = a.submit(bad, Options{});
  Batch consumer;
  consumer.wait(p).exec(cpu_device().kernel("test_sleep"), Dim3{1}, Dim3{1}, {1u});
  Submission c = b.submit(consumer, Options{});
  const std::string why = test::error_text([&] { c.wait(5000ms); });
  EXPECT_NE(why.find("a submission this batch waits for failed"), std::string::npos) << why;
  EXPECT_NE(why.find("deliberate failure"), std::string::npos) << why;
  EXPECT_NE(test::error_text([&] { b.run(Batch{}.exec(cpu_device().kernel("test_sleep"), Dim3{1}, Dim3{1}, {1u}), Options{}); })
                .find("the queue is blocked"),
            std::string::npos);
  EXPECT_THROW(p.wait(), Error);
}

TEST(BatchWaits, AnEmptySubmissionIsRefused) {
  Batch b;
  EXPECT_NE(test::error_text([&] { b.wait(Submission{}); }).find("the Submission is empty"), std::string::npos);
}

TEST(BatchDevice, AKernelAndABufferOfOneDeviceStayTogether) {
  // Two opens of the cpu backend are one device: their kernels and buffers mix freely.
  const Runtime other = Runtime::open("cpu");
  Buffer buf = other.device().alloc(64 * 4);
  std::vector<int> host(64);
  Batch b;
  b.exec(cpu_device().kernel("test_add"), Dim3{64}, Dim3{64}, {buf, 1u, 64u}).copy_to_host(host.data(), buf, 64);
  EXPECT_NO_THROW(other.device().create_queue().run(b, Options{}));
}

TEST(BatchTimestamps, EveryDispatchAndCopyInOrder) {
  AddPipeline p(Memory::pinned_host, 1000, 2);
  p.batch.exec(cpu_device().kernel("test_sleep"), Dim3{1}, Dim3{1}, {3u});
  Queue q = cpu_device().create_queue();
  Options o = Options{};
  o.profile = true;
  Submission s = q.submit(p.batch, o);
  EXPECT_NE(test::error_text([&] { (void)s.timestamps(); }).find("not been waited for"), std::string::npos);
  s.wait();
  const std::vector<CommandTime> t = s.timestamps();
  ASSERT_EQ(t.size(), 5u);
  const char* names[] = {"copy_to_device", "test_add", "test_add", "copy_to_host", "test_sleep"};
  for (std::size_t i = 0; i < t.size(); ++i) {
    EXPECT_EQ(t[i].command, i);
    EXPECT_EQ(t[i].what, names[i]);
    EXPECT_LE(t[i].start_ns, t[i].end_ns) << i;
    if (i) {
      EXPECT_GE(t[i].start_ns, t[i - 1].end_ns) << "command " << i << " started before the one before ended";
    }
  }
  // The sleeping kernel's span holds its sleep (a lower bound, whatever the machine).
  EXPECT_GE(t[4].end_ns - t[4].start_ns, 3'000'000u);
  EXPECT_TRUE(p.correct(2));
}

TEST(BatchTimestamps, ProfilingTheBaselineToo) {
  AddPipeline p(Memory::device, 100, 1);
  Options o = Options::none();
  o.profile = true;
  Submission s = cpu_device().create_queue().submit(p.batch, o);
  s.wait();
  ASSERT_EQ(s.timestamps().size(), 3u);
  EXPECT_TRUE(p.correct(1));
}

TEST(BatchTimestamps, NoneWithoutProfile) {
  AddPipeline p(Memory::pinned_host);
  Submission s = cpu_device().create_queue().submit(p.batch, Options{});
  s.wait();
  EXPECT_TRUE(s.timestamps().empty());
}
