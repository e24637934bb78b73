// What an application gets wrong fails loudly or is made correct (issue 41): a copied batch is a
// batch of its own, every timeout means what it says, memory outlives the work that uses it,
// arguments are checked against what the kernel declares, errors carry a code.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "backends/backend.hpp"
#include "cpu_test_device.hpp"
#include "error_text.hpp"
#include "hsad/hsad.hpp"

using namespace hsad;
using test::cpu_device;
using namespace std::chrono_literals;

namespace {
std::vector<std::uint32_t> read(const Buffer& b, std::size_t n) {
  std::vector<std::uint32_t> v(n);
  cpu_device().copy_to_host(v.data(), b, n * 4);
  return v;
}

void fill(const Buffer& b, std::size_t n, std::uint32_t value) {
  std::vector<std::uint32_t> v(n, value);
  cpu_device().copy_to_device(b, v.data(), n * 4);
}

Options replaying() {
  Options o;
  o.replay = true;
  return o;
}

Errc code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  ADD_FAILURE() << "no error";
  return Errc::runtime;
}
}  // namespace

// On main at 82f354a both copies kept one id, and b2 replayed b1's image: it stored 10.
TEST(CpuSafety, ACopiedBatchReplaysItsOwnArguments) {
  const Kernel add = cpu_device().kernel("test_add");
  Queue q = cpu_device().create_queue();
  Buffer buf = cpu_device().alloc(64 * 4);
  Batch b1;
  b1.exec(add, Dim3{64}, Dim3{64}, {buf, 1u, 64u});
  Batch b2 = b1;
  EXPECT_NE(b1.id(), b2.id());
  b1.set_args(0, {buf, 10u, 64u});
  b2.set_args(0, {buf, 20u, 64u});
  fill(buf, 64, 0);
  q.run(b1, replaying());
  EXPECT_EQ(read(buf, 64)[0], 10u);
  q.run(b2, replaying());
  EXPECT_EQ(read(buf, 64)[63], 30u) << "b2 ran b1's arguments";
  q.run(b1, replaying());
  EXPECT_EQ(read(buf, 64)[0], 40u);
}

TEST(CpuSafety, CopiesThatDivergeRunTheirOwnCommands) {
  const Kernel add = cpu_device().kernel("test_add");
  Queue q = cpu_device().create_queue();
  Buffer buf = cpu_device().alloc(64 * 4);
  Batch c1;
  c1.exec(add, Dim3{64}, Dim3{64}, {buf, 1u, 64u});
  q.run(c1, replaying());  // c1's image is cached before the copy exists
  Batch c2;
  c2 = c1;  // copy assignment
  c1.exec(add, Dim3{64}, Dim3{64}, {buf, 100u, 64u});
  c2.exec(add, Dim3{64}, Dim3{64}, {buf, 200u, 64u});
  fill(buf, 64, 0);
  q.run(c2, replaying());
  EXPECT_EQ(read(buf, 64)[5], 201u);
  fill(buf, 64, 0);
  q.run(c1, replaying());
  EXPECT_EQ(read(buf, 64)[5], 101u);
}

// The moved-from batch is empty with a new identity: recording into it again never collides
// with the image cached under the identity the move handed over.
TEST(CpuSafety, AMovedFromBatchIsEmptyAndANewBatch) {
  const Kernel add = cpu_device().kernel("test_add");
  Queue q = cpu_device().create_queue();
  Buffer buf = cpu_device().alloc(64 * 4);
  Batch a;
  a.exec(add, Dim3{64}, Dim3{64}, {buf, 1u, 64u});
  const std::uint64_t id = a.id();
  Batch b = std::move(a);
  EXPECT_EQ(b.id(), id);
  EXPECT_NE(a.id(), id);  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  EXPECT_TRUE(a.empty());
  a.exec(add, Dim3{64}, Dim3{64}, {buf, 7u, 64u});
  b.exec(add, Dim3{64}, Dim3{64}, {buf, 3u, 64u});
  fill(buf, 64, 0);
  q.run(b, replaying());
  q.run(a, replaying());
  EXPECT_EQ(read(buf, 64)[0], 1u + 3u + 7u);
}

// On main, wait(milliseconds::max()) overflowed now + timeout and timed out at once.
TEST(CpuSafety, WaitForeverWaitsAndZeroOnlyChecks) {
  const Kernel sleep = cpu_device().kernel("test_sleep");
  Queue q = cpu_device().create_queue();
  Batch b;
  b.exec(sleep, Dim3{1}, Dim3{1}, {50u});
  Submission s = q.submit(b);
  EXPECT_FALSE(s.ready());
  s.wait(std::chrono::milliseconds::max());
  EXPECT_TRUE(s.ready());
  Submission t = q.submit(b);
  t.wait(kWaitForever);
  Submission u = q.submit(b, Options{}, kWaitForever);  // a submit's own timeout may be forever too
  u.wait(kWaitForever);
  // Zero: a check. The work is done, so it succeeds at once.
  u.wait(0ms);
  Submission v = q.submit(b);
  try {
    v.wait(0ms);
    ADD_FAILURE() << "a zero timeout on running work did not time out";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::timeout) << e.what();
    EXPECT_EQ(e.submission(), q.submissions()) << e.what();
  }
  v.wait(kWaitForever);  // an abandoned submission waited for again ends when the work ends
  EXPECT_TRUE(v.ready());
}

// Under Options{} a submit returns with the work in flight: no host wait per dispatch.
TEST(CpuSafety, DefaultOptionsDoNotWaitInsideSubmit) {
  const Kernel sleep = cpu_device().kernel("test_sleep");
  Queue q = cpu_device().create_queue();
  Batch b;
  b.exec(sleep, Dim3{1}, Dim3{1}, {30u}).exec(sleep, Dim3{1}, Dim3{1}, {30u});
  const Stats before = cpu_device().stats();
  Submission s = q.submit(b);
  const Stats at_submit = cpu_device().stats() - before;
  EXPECT_EQ(at_submit.host_waits, 0u);
  EXPECT_EQ(at_submit.doorbells, 1u);
  s.wait();
  const Stats after = cpu_device().stats() - before;
  EXPECT_EQ(after.host_waits, 1u);
  const Stats base_before = cpu_device().stats();
  q.run(b, Options::baseline());
  EXPECT_EQ((cpu_device().stats() - base_before).host_waits, 2u) << "the baseline waits after each dispatch";
}

// On main, the cpu agent gave a Buffer destroyed in flight to the next allocation while the
// kernel still wrote it. Now it is parked until the work ends, and released after.
TEST(CpuSafety, ABufferDestroyedInFlightOutlivesTheWork) {
  const Kernel sleep = cpu_device().kernel("test_sleep");
  const Kernel add = cpu_device().kernel("test_add");
  detail::DeviceImpl& impl = cpu_device().impl();
  Queue q = cpu_device().create_queue();
  constexpr std::uint32_t n = 1000;  // small: the allocator would hand the same bytes out again
  Submission s;
  const std::size_t parked_before = impl.parked_bytes();
  {
    Buffer doomed = cpu_device().alloc(n * 4);
    Batch b;
    b.exec(sleep, Dim3{1}, Dim3{1}, {60u}).exec(add, Dim3{n}, Dim3{64}, {doomed, 5u, n});
    s = q.submit(b);
  }  // destroyed while the sleep runs and the add has not started
  EXPECT_EQ(impl.parked_bytes() - parked_before, n * 4u);
  std::vector<Buffer> fresh;
  for (int i = 0; i < 8; ++i) {
    fresh.push_back(cpu_device().alloc(n * 4));
    fill(fresh.back(), n, 0);
  }
  s.wait();
  for (const Buffer& f : fresh) {
    const auto v = read(f, n);
    for (std::uint32_t i = 0; i < n; ++i) ASSERT_EQ(v[i], 0u) << "a fresh Buffer took the old kernel's store at " << i;
  }
  EXPECT_EQ(impl.parked_bytes(), parked_before) << "released once the work it waited for ended";
}

// Destroying a Buffer with nothing in flight frees it at once, and never waits for work that
// started later (a Buffer destroyed on one queue's behalf does not stall behind another's sleep).
TEST(CpuSafety, ABufferDestroyedWithNothingInFlightIsFreedAtOnce) {
  detail::DeviceImpl& impl = cpu_device().impl();
  const std::size_t parked_before = impl.parked_bytes();
  { Buffer idle = cpu_device().alloc(4096); }
  EXPECT_EQ(impl.parked_bytes(), parked_before);
  const Kernel sleep = cpu_device().kernel("test_sleep");
  Queue q = cpu_device().create_queue();
  Batch b;
  b.exec(sleep, Dim3{1}, Dim3{1}, {100u});
  Submission s = q.submit(b);
  const auto t0 = std::chrono::steady_clock::now();
  { Buffer busy = cpu_device().alloc(4096); }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 50ms) << "the destructor waited for the work";
  s.wait();
}

TEST(CpuSafety, AValueForAGlobalBufferParameterIsRefusedByName) {
  const Kernel add = cpu_device().kernel("test_add");
  Batch b;
  const std::string m = test::error_text([&] { b.exec(add, Dim3{64}, Dim3{64}, {std::uint64_t(0x1000), 1u, 64u}); });
  EXPECT_NE(m.find("argument 0 ('data')"), std::string::npos) << m;
  EXPECT_NE(m.find("is a global buffer"), std::string::npos) << m;
  EXPECT_EQ(code_of([&] { b.exec(add, Dim3{64}, Dim3{64}, {3.0, 1u, 64u}); }), Errc::invalid_argument);
  Buffer empty;
  EXPECT_NE(test::error_text([&] { b.exec(add, Dim3{64}, Dim3{64}, {empty, 1u, 64u}); }).find("an empty Buffer"),
            std::string::npos);
  EXPECT_TRUE(b.empty()) << "nothing recorded";
  b.exec(add, Dim3{64}, Dim3{64}, {nullptr, 1u, 64u});  // null is a pointer: the kernel may check it
  const std::string s = test::error_text([&] { b.set_args(0, {std::uint64_t(64), 1u, 64u}); });
  EXPECT_NE(s.find("is a global buffer"), std::string::npos) << s;
}

TEST(CpuSafety, ErrorsCarryACodeAndTheirSubmission) {
  Queue q = cpu_device().create_queue();
  Batch b;
  b.exec(cpu_device().kernel("test_throw"), Dim3{1}, Dim3{1}, {});
  q.run(Batch{});  // submission 1: nothing
  try {
    q.run(b);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::device_fault) << e.what();
    EXPECT_EQ(e.submission(), 2u);
    EXPECT_STREQ(to_string(e.code()), "device_fault");
  }
  EXPECT_EQ(code_of([&] { q.run(Batch{}); }), Errc::device_fault) << "the failed queue says why";
  EXPECT_EQ(code_of([] { (void)Runtime::open("no-such-backend"); }), Errc::invalid_argument);
  EXPECT_EQ(code_of([] { (void)Options::parse("turbo"); }), Errc::invalid_argument);
  EXPECT_EQ(code_of([] { (void)cpu_device().kernel("no_such_kernel"); }), Errc::invalid_argument);
  EXPECT_EQ(code_of([] { (void)cpu_device().alloc(std::size_t(1) << 62); }), Errc::out_of_memory);
  EXPECT_EQ(code_of([] { (void)cpu_device().load_module("\x7f" "ELF\x02\x01\x01", 7); }), Errc::invalid_argument);
}

// The replay cache holds at most 32 images per queue, the least recently used evicted first: an
// application that records a new batch per iteration does not grow it, and the batch it replays
// every iteration is never rebuilt. (cuda keeps as many graphs, GpuReplay covers it there.)
TEST(CpuSafety, TheReplayCacheIsBoundedAndKeepsWhatIsUsed) {
  const Kernel add = cpu_device().kernel("test_add");
  Queue q = cpu_device().create_queue();
  Buffer buf = cpu_device().alloc(64 * 4);
  Batch every_iteration;
  every_iteration.exec(add, Dim3{64}, Dim3{64}, {buf, 1u, 64u});
  std::vector<Batch> once(40);
  const Stats before = cpu_device().stats();
  for (Batch& b : once) {
    b.exec(add, Dim3{64}, Dim3{64}, {buf, 1u, 64u});
    q.run(b, replaying());
    q.run(every_iteration, replaying());
  }
  EXPECT_EQ((cpu_device().stats() - before).images_built, 41u);
  const Stats later = cpu_device().stats();
  q.run(every_iteration, replaying());
  q.run(once.back(), replaying());
  EXPECT_EQ((cpu_device().stats() - later).images_built, 0u) << "recently used images are kept";
  q.run(once.front(), replaying());
  EXPECT_EQ((cpu_device().stats() - later).images_built, 1u) << "the least recently used was evicted";
}

// An event loop's way: the watcher calls back once the work ended, with the error where it failed;
// the callback may submit more work. An empty Submission is refused.
TEST(CpuSafety, OnCompleteCallsBackWithTheOutcome) {
  const Kernel sleep = cpu_device().kernel("test_sleep");
  Queue q = cpu_device().create_queue();
  Batch b;
  b.exec(sleep, Dim3{1}, Dim3{1}, {20u});
  std::mutex m;
  std::condition_variable cv;
  int calls = 0;
  bool ok_first = false;
  Errc failed_with = Errc::runtime;
  q.submit(b).on_complete([&](const Error* e) {
    Submission more = q.submit(b);  // a callback may submit
    more.wait();
    std::lock_guard<std::mutex> lock(m);
    ok_first = e == nullptr;
    ++calls;
    cv.notify_one();
  });
  Queue failing = cpu_device().create_queue();
  Batch bad;
  bad.exec(cpu_device().kernel("test_throw"), Dim3{1}, Dim3{1}, {});
  failing.submit(bad).on_complete([&](const Error* e) {
    std::lock_guard<std::mutex> lock(m);
    failed_with = e ? e->code() : Errc::runtime;
    ++calls;
    cv.notify_one();
  });
  std::unique_lock<std::mutex> lock(m);
  ASSERT_TRUE(cv.wait_for(lock, 20s, [&] { return calls == 2; })) << "no callback within 20 s";
  EXPECT_TRUE(ok_first);
  EXPECT_EQ(failed_with, Errc::device_fault);
  Submission empty;
  EXPECT_EQ(code_of([&] { std::move(empty).on_complete([](const Error*) {}); }), Errc::invalid_argument);
}
