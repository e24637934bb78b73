// Queue::enqueue and Queue::finish on the cpu agent, as an application uses them: work with no
// handle, finished at once; a fault and a timeout reported by finish, naming the submission; many
// enqueues and no finish (only the work in flight is held); a queue let go of with work enqueued;
// several threads enqueueing to one queue.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "backends/aql/aql_queue.hpp"
#include "cpu_test_device.hpp"
#include "hsad/hsad.hpp"

using namespace hsad;
using test::add_batch;
using test::cpu_device;
using namespace std::chrono_literals;

namespace {
Buffer zeroed(const Device& d, std::uint32_t n) {
  Buffer buf = d.alloc(n * 4);
  const std::vector<std::uint32_t> zero(n, 0);
  d.copy_to_device(buf, zero.data(), n * 4);
  return buf;
}

// Without nosync a submit already waits after every dispatch: the work must still run at finish().
Options async() {
  Options o;
  o.nosync = true;
  return o;
}

std::vector<std::uint32_t> read(const Device& d, const Buffer& buf, std::uint32_t n) {
  std::vector<std::uint32_t> v(n);
  d.copy_to_host(v.data(), buf, n * 4);
  return v;
}
}  // namespace

TEST(Enqueue, FinishWaitsForEverythingEnqueuedUnderEveryOption) {
  const Device d = cpu_device();
  Queue q = d.create_queue();
  Buffer buf = zeroed(d, 64);
  const Batch b = add_batch(d, buf, 64, 3);
  const std::uint64_t before = q.submissions();
  for (const Options& o : {Options::none(), Options::all()}) {
    for (int i = 0; i < 10; ++i) q.enqueue(b, o);
  }
  // Counted as submissions are: a batch may wait for one by its number.
  EXPECT_EQ(q.submissions(), before + 20);
  q.finish();
  for (auto v : read(d, buf, 64)) ASSERT_EQ(v, 60u);
  EXPECT_NO_THROW(q.finish()) << "nothing left: returns at once";
}

TEST(Enqueue, FinishThrowsTheFirstFaultNamingItsSubmissionAndOnlyOnce) {
  const Device d = cpu_device();
  Queue q = d.create_queue();
  Buffer buf = zeroed(d, 64);
  Batch bad;
  bad.exec(d.kernel("test_throw"), Dim3{1}, Dim3{1}, {});
  q.enqueue(add_batch(d, buf, 64, 1), async());
  const std::uint64_t bad_number = q.submissions() + 1;
  q.enqueue(bad, async());
  try {
    q.finish(5000ms);
    FAIL() << "the fault was not reported";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::device_fault) << e.what();
    EXPECT_EQ(e.submission(), bad_number) << e.what();
    EXPECT_NE(std::string(e.what()).find("deliberate failure"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(q.finish()) << "a fault is reported once: finish took the work";
  for (auto v : read(d, buf, 64)) ASSERT_EQ(v, 1u);  // the work before it ran
  EXPECT_THROW(q.enqueue(add_batch(d, buf, 64, 1), async()), Error) << "the failed queue refuses work";
}

TEST(Enqueue, FinishPastItsTimeoutAbandonsAndALaterFinishWaitsAgain) {
  const Device d = cpu_device();
  Queue q = d.create_queue();
  Buffer buf = zeroed(d, 64);
  Batch slow;
  slow.exec(d.kernel("test_sleep"), Dim3{1}, Dim3{1}, {std::uint32_t(300)});
  q.enqueue(slow, async());
  q.enqueue(add_batch(d, buf, 64, 1), async());
  try {
    q.finish(10ms);
    FAIL() << "no timeout";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::timeout) << e.what();
  }
  EXPECT_NO_THROW(q.finish(10s));
  for (auto v : read(d, buf, 64)) ASSERT_EQ(v, 1u);
}

TEST(Enqueue, ManyEnqueuesWithoutFinishHoldOnlyBoundedWork) {
  // An application that enqueues and never finishes: the queue's pools (64 signals, a MiB of
  // kernarg blocks) must not run dry behind submissions that completed long ago, and what the
  // queue holds stays within its bounds (a pool's wait behind them would never end: it times out).
  const Device d = cpu_device();
  Queue q = d.create_queue();
  Buffer buf = zeroed(d, 64);
  const Batch one = add_batch(d, buf, 64, 1);
  const Batch large = add_batch(d, buf, 64, 5000);  // 5000 kernarg blocks
  for (const Options& o : {Options::all(), async()}) {
    for (int i = 0; i < 3000; ++i) {
      q.enqueue(one, o, 10s);
      ASSERT_LE(q.impl().enqueued.size(), detail::EnqueuedWork::kMaxSubmissions);
    }
    for (int i = 0; i < 8; ++i) q.enqueue(large, o, 10s);
  }
  q.finish();
  for (auto v : read(d, buf, 64)) ASSERT_EQ(v, 2u * (3000 + 8 * 5000));
  EXPECT_EQ(q.impl().enqueued.size(), 0u);
}

TEST(Enqueue, AQueueLetGoOfWithWorkEnqueuedWaitsForItAndIsFreed) {
  const Device d = cpu_device();
  Buffer buf = zeroed(d, 64);
  std::weak_ptr<detail::QueueImpl> queue_impl;
  {
    Queue q = d.create_queue();
    queue_impl = static_cast<detail::AqlQueue&>(q.impl()).shared_from_this();
    Batch slow;
    slow.exec(d.kernel("test_sleep"), Dim3{1}, Dim3{1}, {std::uint32_t(100)});
    q.enqueue(slow, async());
    q.enqueue(add_batch(d, buf, 64, 1), async());
    Queue copy = q;  // the last handle, not the first, lets go
  }
  EXPECT_TRUE(queue_impl.expired()) << "its enqueued submissions kept the queue alive";
  for (auto v : read(d, buf, 64)) ASSERT_EQ(v, 1u) << "the work was not waited for";
}

TEST(Enqueue, FourThreadsEnqueueToOneQueueAndOneFinishes) {
  const Device d = cpu_device();
  Queue q = d.create_queue();
  Buffer buf = zeroed(d, 64);
  const Batch b = add_batch(d, buf, 64, 1);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) q.enqueue(b, t % 2 ? Options::all() : Options::none());
      q.finish();  // racing with the others' enqueues
    });
  }
  for (auto& t : threads) t.join();
  q.finish();
  for (auto v : read(d, buf, 64)) ASSERT_EQ(v, 800u);
}

TEST(Enqueue, AFinishWhoseWorkAnotherFinishTookStillWaitsForIt) {
  // Thread B's finish takes the queue's list and waits for the slow batch; this thread's finish,
  // started after, finds the list empty: it must still not return before that batch has run.
  const Device d = cpu_device();
  Queue q = d.create_queue();
  Buffer buf = zeroed(d, 64);
  Batch slow;
  slow.exec(d.kernel("test_sleep"), Dim3{1}, Dim3{1}, {std::uint32_t(150)});
  q.enqueue(slow, async());
  q.enqueue(add_batch(d, buf, 64, 1), async());
  std::thread other([&] { q.finish(10s); });
  std::this_thread::sleep_for(20ms);  // mostly enough for the other finish to go first; never wrong if not
  q.finish(10s);
  for (auto v : read(d, buf, 64)) ASSERT_EQ(v, 1u) << "finish returned before the work enqueued before it ran";
  other.join();
}

TEST(Enqueue, ATraceCallbackThatFinishesItsOwnQueueIsRefusedNotStuck) {
  // finish() reports a traced submission's completion from its wait: a callback that finishes the
  // same queue there would wait for itself.
  const Device d = cpu_device();
  Queue q = d.create_queue();
  Buffer buf = zeroed(d, 64);
  std::atomic<int> refused{0}, others{0};
  d.set_trace([&](const TraceEvent& e) {
    if (e.kind != TraceEvent::Kind::complete) return;
    try {
      q.finish(10s);
      ++others;
    } catch (const Error& err) {
      if (err.code() == Errc::invalid_argument) ++refused;
    }
  });
  q.enqueue(add_batch(d, buf, 64, 1), async());
  q.finish(10s);
  d.set_trace(nullptr);
  EXPECT_EQ(refused.load(), 1);
  EXPECT_EQ(others.load(), 0);
  q.enqueue(add_batch(d, buf, 64, 1), async());
  EXPECT_NO_THROW(q.finish(10s)) << "the same thread finishes again once its wait is over";
  for (auto v : read(d, buf, 64)) ASSERT_EQ(v, 2u);
}

TEST(Enqueue, AnEmptyQueueHandleRefusesByName) {
  Queue empty;
  try {
    empty.enqueue(Batch{});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos) << e.what();
  }
  EXPECT_THROW(empty.finish(), Error);
}
