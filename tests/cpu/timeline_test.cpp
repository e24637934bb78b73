// Waits on a queue's timeline (Batch::wait(queue, offset)) on the cpu agent: a batch recorded
// once names "the other queue's previous or same iteration" every time it is submitted, and the
// cpu agent presents several devices (HSAD_CPU_DEVICES) whose queues wait for each other.
#include <gtest/gtest.h>

#include <vector>

#include "env_pin.hpp"
#include "error_text.hpp"
#include "hsad/hsad.hpp"
#include "test_kernels.hpp"

using namespace hsad;

namespace {
const Device& device() {
  test::register_test_kernels();
  static Runtime rt = Runtime::open("cpu");
  return rt.device();
}
}  // namespace

TEST(TimelineWait, OffsetOneWaitsForTheOtherQueuesSameIteration) {
  test::Timeline t;
  const Kernel record = device().kernel("test_record");
  Batch producer, consumer;
  producer.exec(record, Dim3{8}, Dim3{1}, {&t, 0u, 2000u});
  Queue a = device().create_queue(), b = device().create_queue();
  consumer.wait(a, 1).exec(record, Dim3{1}, Dim3{1}, {&t, 1u, 0u});
  const Stats before = device().stats();
  Submission p = a.submit(producer, Options{});
  Submission c = b.submit(consumer, Options{});
  EXPECT_EQ((device().stats() - before).device_waits, 1u);
  EXPECT_EQ((device().stats() - before).host_waits, 0u);
  c.wait();
  EXPECT_GT(t.first_start[1].load(), t.last_end[0].load()) << "the consumer ran before the producer's submission 1 ended";
  EXPECT_EQ(a.submissions(), 1u);
  EXPECT_EQ(b.submissions(), 1u);
}

TEST(TimelineWait, AnEmptyQueueIsRefused) {
  Batch b;
  EXPECT_NE(test::error_text([&] { b.wait(Queue(), 0); }).find("the Queue is empty"), std::string::npos);
}

TEST(TimelineWait, ReplayedBatchesWaitForThePreviousIterationOfTheOtherQueue) {
  // Two queues in lockstep, each batch replayed: b's iteration i waits for a's iteration i - 1
  // (offset 0) and a's iteration i for b's i - 1. Every record must start after the one it names.
  constexpr int kIterations = 6;
  test::Timeline t;
  const Kernel record = device().kernel("test_record");
  Queue a = device().create_queue(), b = device().create_queue();
  std::vector<Batch> on_a(kIterations), on_b(kIterations);
  for (std::uint32_t i = 0; i < kIterations; ++i) {
    on_a[i].wait(b, 0).exec(record, Dim3{2}, Dim3{1}, {&t, 2 * i, 1000u});
    on_b[i].wait(a, 0).exec(record, Dim3{2}, Dim3{1}, {&t, 2 * i + 1, 1000u});
  }
  std::vector<Submission> subs;
  const Stats before = device().stats();
  for (int i = 0; i < kIterations; ++i) {
    subs.push_back(a.submit(on_a[i], Options{}));
    subs.push_back(b.submit(on_b[i], Options{}));
  }
  EXPECT_EQ((device().stats() - before).host_waits, 0u);
  subs.back().wait();
  subs[subs.size() - 2].wait();
  for (int i = 1; i < kIterations; ++i) {
    EXPECT_GT(t.first_start[2 * i].load(), t.last_end[2 * (i - 1) + 1].load()) << "a's iteration " << i;
    EXPECT_GT(t.first_start[2 * i + 1].load(), t.last_end[2 * (i - 1)].load()) << "b's iteration " << i;
  }
}

TEST(TimelineWait, ANumberNotYetSubmittedIsRefusedNamingBothCounts) {
  Queue a = device().create_queue(), b = device().create_queue();
  Batch consumer;
  consumer.wait(a, 2).exec(device().kernel("test_sleep"), Dim3{1}, Dim3{1}, {0u});
  a.run(Batch{}.exec(device().kernel("test_sleep"), Dim3{1}, Dim3{1}, {0u}), Options{});
  const std::string text = test::error_text([&] { (void)b.submit(consumer, Options{}); });
  EXPECT_NE(text.find("waits for submission 2 of a queue that has made 1"), std::string::npos) << text;
  EXPECT_NE(text.find("this queue has made 0"), std::string::npos) << text;
  EXPECT_EQ(b.submissions(), 0u) << "a refused batch is no submission";
}

TEST(TimelineWait, NumberZeroAndReleasedSubmissionsWaitForNothing) {
  Queue a = device().create_queue(), b = device().create_queue();
  Buffer buf = device().alloc(64 * 4);
  const Kernel add = device().kernel("test_add");
  Batch consumer;
  consumer.wait(a, 0).exec(add, Dim3{64}, Dim3{64}, {buf, 1u, 64u});
  Stats before = device().stats();
  b.run(consumer, Options{});  // a's submission 0: none
  EXPECT_EQ((device().stats() - before).device_waits, 0u);
  a.run(Batch{}.exec(add, Dim3{64}, Dim3{64}, {buf, 1u, 64u}), Options{});  // waited and released
  before = device().stats();
  b.run(consumer, Options{});  // a's submission 1, complete
  EXPECT_EQ((device().stats() - before).device_waits, 0u);
}

TEST(TimelineWait, HandlesDroppedAfterALaterWaitCostNoHostWait) {
  Queue a = device().create_queue();
  Buffer buf = device().alloc(64 * 4);
  device().copy_to_device(buf, std::vector<std::uint32_t>(64, 0).data(), 64 * 4);
  Batch add;
  add.exec(device().kernel("test_add"), Dim3{64}, Dim3{64}, {buf, 1u, 64u});
  const Stats before = device().stats();
  {
    std::vector<Submission> subs;
    for (int i = 0; i < 5; ++i) subs.push_back(a.submit(add, Options{}));
    subs.back().wait();  // in order: the four before it have completed too
  }
  EXPECT_EQ((device().stats() - before).host_waits, 1u);
  std::vector<std::uint32_t> out(64);
  device().copy_to_host(out.data(), buf, 64 * 4);
  EXPECT_EQ(out[0], 5u);
}

TEST(CpuDevices, TheEnvironmentPresentsSeveralAgentsSharingTheCores) {
  test::EnvPin pin("HSAD_CPU_DEVICES", "3");
  const Runtime rt = Runtime::open("cpu");
  ASSERT_EQ(rt.devices().size(), 3u);
  EXPECT_NE(rt.device(0).info().name, rt.device(1).info().name);
  EXPECT_NE(rt.device(1).info().name.find("agent 1 of 3"), std::string::npos) << rt.device(1).info().name;
  // Kernels and buffers of one agent are refused in another's queue: they are other devices.
  Buffer on_1 = rt.device(1).alloc(256);
  Batch b;
  b.copy_to_device(on_1, std::vector<char>(256).data(), 256);
  // Each named with its number: identical GPUs have the same name (two MI250 dies, eight H100s).
  const std::string e = test::error_text([&] { rt.device(0).create_queue().run(b, Options{}); });
  EXPECT_NE(e.find("the batch names device '" + rt.device(1).info().name + "' (cpu device 1), this queue belongs to '" +
                   rt.device(0).info().name + "' (cpu device 0)"),
            std::string::npos)
      << e;
}

TEST(CpuDevices, AQueueOfOneAgentWaitsForAnothersAndCopiesIntoItsMemory) {
  test::register_test_kernels();
  test::EnvPin pin("HSAD_CPU_DEVICES", "2");
  const Runtime rt = Runtime::open("cpu");
  const Device &d0 = rt.device(0), &d1 = rt.device(1);
  Buffer src = d0.alloc(64 * 4), dst = d1.alloc(64 * 4);
  d0.copy_to_device(src, std::vector<std::uint32_t>(64, 0).data(), 64 * 4);
  Queue q0 = d0.create_queue(), q1 = d1.create_queue();
  Batch produce, consume;
  produce.exec(d0.kernel("test_sleep"), Dim3{1}, Dim3{1}, {20u}).exec(d0.kernel("test_add"), Dim3{64}, Dim3{64}, {src, 9u, 64u});
  consume.wait(q0, 1).copy(dst, src, 64 * 4);
  const Stats before = d1.stats();
  Submission p = q0.submit(produce, Options{});
  q1.run(consume, Options{});
  EXPECT_EQ((d1.stats() - before).device_waits, 1u);
  std::vector<std::uint32_t> out(64);
  d1.copy_to_host(out.data(), dst, 64 * 4);
  EXPECT_EQ(out[63], 9u) << "the copy ran before the other agent's kernel";
}

TEST(CpuDevices, AWrongCountIsRefusedNamingTheValue) {
  for (const char* bad : {"0", "65", "two", "-1", "1.5"}) {
    test::EnvPin pin("HSAD_CPU_DEVICES", bad);
    const std::string text = test::error_text([] { Runtime::open("cpu"); });
    EXPECT_NE(text.find(std::string("got '") + bad + "'"), std::string::npos) << text;
    EXPECT_NE(text.find("from 1 to 64"), std::string::npos) << text;
  }
}
