// Submission records (issue 41): a replayed submit completes on a record's signal, made once per
// record, instead of a completion object made for every submit. What that object gave must hold
// for records too: a batch finds a replayed submission by its number while it runs (also when
// more are held than the record index has places), memory freed under one waits for it, an
// abandoned one is refused by name, and the signals are reused, not made per submit.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "backends/aql/aql_queue.hpp"
#include "backends/backend.hpp"
#include "cpu_test_device.hpp"
#include "error_text.hpp"
#include "hsad/hsad.hpp"
#include "test_kernels.hpp"

using namespace hsad;
using test::cpu_device;
using namespace std::chrono_literals;

TEST(SubmissionRecords, ABatchWaitsForAReplayedSubmissionByItsNumber) {
  test::Timeline t;
  const Kernel record = cpu_device().kernel("test_record");
  Queue a = cpu_device().create_queue(), b = cpu_device().create_queue();
  Batch producer, consumer;
  producer.exec(record, Dim3{4}, Dim3{1}, {&t, 0u, 3000u});
  consumer.wait(a, 2).exec(record, Dim3{1}, Dim3{1}, {&t, 1u, 0u});
  a.run(producer, Options::all());  // a's submission 1: the image is built, then replayed
  const Stats before = cpu_device().stats();
  Submission p = a.submit(producer, Options::all());  // number 2, on a record
  Submission c = b.submit(consumer, Options::all());
  EXPECT_EQ((cpu_device().stats() - before).device_waits, 1u) << "the consumer found nothing to wait for";
  c.wait();
  EXPECT_GT(t.first_start[1].load(), t.last_end[0].load()) << "the consumer ran before submission 2 ended";
  p.wait();
}

// The index of records has 256 places to start with: the 257th held submission takes the place
// of the first, which must still be found (the index doubles instead).
TEST(SubmissionRecords, ASubmissionHeldBehindMoreThanTheIndexHoldsIsStillFound) {
  test::Timeline t;
  const Kernel record = cpu_device().kernel("test_record");
  const Kernel sleep = cpu_device().kernel("test_sleep");
  Queue a = cpu_device().create_queue(512), b = cpu_device().create_queue();
  Batch producer, filler, consumer;
  producer.exec(record, Dim3{1}, Dim3{1}, {&t, 0u, 30000u});
  filler.exec(sleep, Dim3{1}, Dim3{1}, {0u});
  a.run(producer, Options::all());
  a.run(filler, Options::all());
  std::vector<Submission> held;
  held.push_back(a.submit(producer, Options::all()));  // number 3
  for (int i = 0; i < 300; ++i) held.push_back(a.submit(filler, Options::all()));
  consumer.wait(a, 3).exec(record, Dim3{1}, Dim3{1}, {&t, 1u, 0u});
  const Stats before = cpu_device().stats();
  Submission c = b.submit(consumer, Options::all());
  EXPECT_EQ((cpu_device().stats() - before).device_waits, 1u) << "submission 3 was not found behind 300 others";
  c.wait();
  EXPECT_GT(t.first_start[1].load(), t.last_end[0].load()) << "the consumer ran before submission 3 ended";
  held.back().wait();
}

// The mechanism (through the counters): one record's signal serves every replayed submit that is
// waited for before the next, and a window of 64 held at once needs 64, made in the first round.
TEST(SubmissionRecords, ReplayedSubmitsReuseTheirRecordsSignals) {
  Queue q = cpu_device().create_queue();
  Batch b;
  b.exec(cpu_device().kernel("test_sleep"), Dim3{1}, Dim3{1}, {0u});
  q.run(b, Options::all());
  Stats before = cpu_device().stats();
  for (int i = 0; i < 1000; ++i) q.submit(b, Options::all()).wait();
  EXPECT_LE((cpu_device().stats() - before).signals_created, 1u);
  before = cpu_device().stats();
  for (int round = 0; round < 5; ++round) {
    std::vector<Submission> window;
    for (int i = 0; i < 64; ++i) window.push_back(q.submit(b, Options::all()));
    for (Submission& s : window) s.wait();
    if (round == 0) {
      EXPECT_LE((cpu_device().stats() - before).signals_created, 64u);
      before = cpu_device().stats();
    }
  }
  EXPECT_EQ((cpu_device().stats() - before).signals_created, 0u) << "rounds after the first made signals";
}

TEST(SubmissionRecords, ABufferFreedUnderAReplayedSubmissionWaitsForIt) {
  const Kernel sleep = cpu_device().kernel("test_sleep");
  const Kernel add = cpu_device().kernel("test_add");
  detail::DeviceImpl& impl = cpu_device().impl();
  Queue q = cpu_device().create_queue();
  constexpr std::uint32_t n = 1000;
  Submission s;
  const std::size_t parked_before = impl.parked_bytes();
  {
    Buffer doomed = cpu_device().alloc(n * 4);
    Batch b;
    b.exec(sleep, Dim3{1}, Dim3{1}, {0u}).exec(add, Dim3{n}, Dim3{64}, {doomed, 5u, n});
    q.run(b, Options::all());
    b.set_args(0, {60u});
    s = q.submit(b, Options::all());
  }  // destroyed while the sleep runs
  EXPECT_EQ(impl.parked_bytes() - parked_before, n * 4u) << "freed under a replayed submission";
  s.wait();
  (void)cpu_device().alloc(64);  // a later allocation or submit looks again
  EXPECT_EQ(impl.parked_bytes(), parked_before) << "released once the work it waited for ended";
}

TEST(SubmissionRecords, AnAbandonedReplayedSubmissionIsRefusedByNumber) {
  const Kernel sleep = cpu_device().kernel("test_sleep");
  Queue a = cpu_device().create_queue(), b = cpu_device().create_queue();
  Batch slow, consumer;
  slow.exec(sleep, Dim3{1}, Dim3{1}, {0u});
  a.run(slow, Options::all());
  slow.set_args(0, {300u});
  Submission s = a.submit(slow, Options::all());  // number 2
  Errc code = Errc::runtime;
  try {
    s.wait(0ms);
  } catch (const Error& e) {
    code = e.code();
  }
  EXPECT_EQ(code, Errc::timeout);
  consumer.wait(a, 2).exec(sleep, Dim3{1}, Dim3{1}, {0u});
  const std::string text = test::error_text([&] { (void)b.submit(consumer, Options::all()); });
  EXPECT_NE(text.find("abandoned"), std::string::npos) << text;
  s.wait(kWaitForever);
}

// Records are taken and published by one queue's submits, released by the threads that wait, and
// found by another queue's submits, all at once (the TSan stage's case).
TEST(SubmissionRecords, FindingTakingAndReleasingOnSeveralThreads) {
  const Kernel add = cpu_device().kernel("test_add");
  Queue a = cpu_device().create_queue(), b = cpu_device().create_queue();
  Buffer buf = cpu_device().alloc(64 * 4), other = cpu_device().alloc(64 * 4);
  cpu_device().copy_to_device(buf, std::vector<std::uint32_t>(64, 0).data(), 64 * 4);
  Batch produce;
  produce.exec(add, Dim3{64}, Dim3{64}, {buf, 1u, 64u});
  constexpr int kSubmits = 400;
  std::atomic<bool> done{false};
  std::thread producer([&] {
    std::vector<Submission> window;
    for (int i = 0; i < kSubmits; ++i) {
      window.push_back(a.submit(produce, Options::all()));
      if (window.size() == 8) window.clear();  // released here, some not yet complete (waited)
    }
    done = true;
  });
  int consumed = 0;
  while (!done.load() || consumed < 10) {
    const std::uint64_t made = a.submissions();
    if (made == 0) continue;
    Batch consumer;
    consumer.wait(a, std::int64_t(made) - std::int64_t(b.submissions())).exec(add, Dim3{64}, Dim3{64}, {other, 0u, 64u});
    b.run(consumer, Options::all());
    ++consumed;
  }
  producer.join();
  std::vector<std::uint32_t> out(64);
  cpu_device().copy_to_host(out.data(), buf, out.size() * 4);
  EXPECT_EQ(out[0], std::uint32_t(kSubmits)) << "every replayed add ran once";
}

// An AQL queue counts its packets and doorbells itself (no locked add on the device's shared
// line per submit): Device::stats adds the live queues' counts, and a queue's stay after it is gone.
TEST(SubmissionRecords, PacketsAndDoorbellsCountedByAQueueStayInTheDevicesStats) {
  Batch b;
  b.exec(cpu_device().kernel("test_sleep"), Dim3{1}, Dim3{1}, {0u});
  const Stats before = cpu_device().stats();
  {
    Queue q = cpu_device().create_queue();
    for (int i = 0; i < 10; ++i) q.run(b, Options::all());
    const Stats live = cpu_device().stats() - before;
    EXPECT_EQ(live.packets, 10u);
    EXPECT_EQ(live.doorbells, 10u);
  }
  const Stats gone = cpu_device().stats() - before;
  EXPECT_EQ(gone.packets, 10u) << "the destroyed queue's packets were lost";
  EXPECT_EQ(gone.doorbells, 10u);
}

// A submit's deadline is read from the clock only where something needs it (a replayed submit
// that finds room never does): from then on it is fixed, the timeout counted from that moment.
TEST(SubmissionRecords, ADeadlineIsTakenWhenFirstNeededAndThenFixed) {
  const detail::Deadline d(50ms);
  std::this_thread::sleep_for(5ms);
  const auto asked = detail::Clock::now();
  const detail::Clock::time_point at = d.at();
  EXPECT_GE(at, asked + 50ms) << "counted from before it was needed";
  std::this_thread::sleep_for(2ms);
  EXPECT_EQ(d.at(), at) << "read again";
  EXPECT_EQ(detail::Deadline(kWaitForever).at(), detail::Clock::time_point::max());
  EXPECT_EQ(detail::Deadline(at).at(), at);
}

// An application may hold many handles of replayed submissions (a vector of them, waited later).
// On main at 98b6531 the 65th such submit waited for the signal pool until its timeout ("all 64
// completion signals are in flight"), though the first 64 had completed. Records grow to what is
// held at once; once released, each submit lets one spare record go until kKept are left.
TEST(SubmissionRecords, ManyHeldReplayedSubmissionsNeitherBlockNorKeepTheirSignals) {
  Queue q = cpu_device().create_queue(1024);
  Batch b;
  b.exec(cpu_device().kernel("test_sleep"), Dim3{1}, Dim3{1}, {0u});
  q.run(b, Options::all());
  {
    std::vector<Submission> held;
    for (int i = 0; i < 600; ++i) held.push_back(q.submit(b, Options::all(), 2000ms));
    held.back().wait();
  }
  auto& aql = dynamic_cast<detail::AqlQueue&>(q.impl());
  EXPECT_GE(aql.submission_records(), 600u);
  for (int i = 0; i < 1000; ++i) q.submit(b, Options::all()).wait();
  EXPECT_LE(aql.submission_records(), detail::AqlRecords::kKept) << "the burst's records were kept";
}

// A Buffer freed under a replayed submission parks a mark that holds the record, not the queue:
// a parked mark that held its queue would hold the device too (the queue's owner, which parks
// it), a cycle that LeakSanitizer reported at exit while the mark could not end.
TEST(SubmissionRecords, AParkedMarkDoesNotKeepItsQueueAlive) {
  const Kernel sleep = cpu_device().kernel("test_sleep");
  const Kernel add = cpu_device().kernel("test_add");
  std::weak_ptr<detail::QueueImpl> queue_impl;
  {
    Queue q = cpu_device().create_queue();
    // The queue itself, not the application's handles' share of it (detail::with_front).
    queue_impl = static_cast<detail::AqlQueue&>(q.impl()).shared_from_this();
    constexpr std::uint32_t n = 64;
    Buffer doomed = cpu_device().alloc(n * 4);
    Batch b;
    b.exec(sleep, Dim3{1}, Dim3{1}, {0u}).exec(add, Dim3{n}, Dim3{64}, {doomed, 1u, n});
    q.run(b, Options::all());
    b.set_args(0, {30u});
    Submission s = q.submit(b, Options::all());
    doomed = Buffer();  // parked behind s
    EXPECT_GT(cpu_device().impl().parked_bytes(), 0u);
  }  // s waits in its destructor; then the queue's last handle goes
  EXPECT_TRUE(queue_impl.expired()) << "the parked mark kept the queue alive";
  (void)cpu_device().alloc(64);  // the next look releases the parked memory
}
