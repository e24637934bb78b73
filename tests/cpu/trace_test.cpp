// What a device's trace reports (Device::set_trace) and what profilers' ranges are named
// (NVTX, roctx), on the cpu agent: each event once, in order, with the queue's and submission's
// numbers, device times for profiled commands, the error of a fault, an abandoned submission.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "cpu_test_device.hpp"
#include "error_text.hpp"
#include "hsad/hsad.hpp"

using namespace hsad;
using test::cpu_device;
using namespace std::chrono_literals;

namespace {
struct Seen {
  TraceEvent::Kind kind;
  std::uint64_t queue, submission;
  std::int64_t command;
  std::string what;
  std::uint64_t start_ns, end_ns;
};

// Collects a device's events for one test; the trace is cleared when it goes.
class Recorder {
 public:
  Recorder() {
    cpu_device().set_trace([this](const TraceEvent& e) {
      std::lock_guard<std::mutex> lock(m_);
      seen_.push_back({e.kind, e.queue, e.submission, e.command, std::string(e.what), e.start_ns, e.end_ns});
    });
  }
  ~Recorder() { cpu_device().set_trace(nullptr); }
  std::vector<Seen> seen() {
    std::lock_guard<std::mutex> lock(m_);
    return seen_;
  }

 private:
  std::mutex m_;
  std::vector<Seen> seen_;
};
}  // namespace

TEST(CpuTrace, ASubmissionReportsItsSubmitCommandsAndCompletion) {
  Recorder r;
  Queue q = cpu_device().create_queue();
  Buffer x = cpu_device().alloc(64 * 4);
  Batch b;
  b.exec(cpu_device().kernel("test_add"), Dim3{64}, Dim3{64}, {x, 1u, 64u}).exec(cpu_device().kernel("test_add"), Dim3{64}, Dim3{64}, {x, 2u, 64u});
  Options profiled = Options::all();
  profiled.profile = true;
  q.run(b, profiled);
  q.run(b);  // not profiled: no command events
  const std::vector<Seen> s = r.seen();
  ASSERT_EQ(s.size(), 6u);
  EXPECT_EQ(s[0].kind, TraceEvent::Kind::submit);
  EXPECT_EQ(s[0].queue, q.id());
  EXPECT_EQ(s[0].submission, 1u);
  EXPECT_EQ(s[0].what, "test_add x2");
  for (int c = 0; c < 2; ++c) {
    EXPECT_EQ(s[1 + c].kind, TraceEvent::Kind::command);
    EXPECT_EQ(s[1 + c].command, c);
    EXPECT_EQ(s[1 + c].what, "test_add");
    EXPECT_LE(s[1 + c].start_ns, s[1 + c].end_ns);
  }
  EXPECT_LE(s[1].end_ns, s[2].start_ns) << "the second command follows the first on the device's clock";
  EXPECT_EQ(s[3].kind, TraceEvent::Kind::complete);
  EXPECT_EQ(s[4].kind, TraceEvent::Kind::submit);
  EXPECT_EQ(s[4].submission, 2u);
  EXPECT_EQ(s[5].kind, TraceEvent::Kind::complete);
  EXPECT_LE(s[4].start_ns, s[5].start_ns);
}

TEST(CpuTrace, AFaultAndAnAbandonedSubmissionAreReportedOnce) {
  Recorder r;
  Queue failing = cpu_device().create_queue();
  Batch bad;
  bad.exec(cpu_device().kernel("test_sleep"), Dim3{1}, Dim3{1}, {0u}).exec(cpu_device().kernel("test_throw"), Dim3{1}, Dim3{1}, {});
  Submission s = failing.submit(bad);
  EXPECT_NE(test::error_text([&] { s.wait(); }), "no error");
  EXPECT_NE(test::error_text([&] { s.wait(); }), "no error");  // a second wait reports nothing more
  Queue slow = cpu_device().create_queue();
  Batch sleepy;
  sleepy.exec(cpu_device().kernel("test_sleep"), Dim3{1}, Dim3{1}, {300u});
  Submission late = slow.submit(sleepy);
  EXPECT_NE(test::error_text([&] { late.wait(5ms); }), "no error");
  late.wait(10s);  // it ends: nothing more is reported
  const std::vector<Seen> seen = r.seen();
  std::vector<TraceEvent::Kind> kinds;
  for (const Seen& e : seen) kinds.push_back(e.kind);
  EXPECT_EQ(kinds, (std::vector<TraceEvent::Kind>{TraceEvent::Kind::submit, TraceEvent::Kind::fault,
                                                   TraceEvent::Kind::submit, TraceEvent::Kind::abandon}));
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[1].command, 1) << "the command that threw";
  EXPECT_NE(seen[1].what.find("test_throw"), std::string::npos) << seen[1].what;
  EXPECT_EQ(seen[3].queue, slow.id());
}

TEST(CpuTrace, NothingIsReportedOnceTheTraceIsCleared) {
  std::vector<TraceEvent::Kind> kinds;
  cpu_device().set_trace([&](const TraceEvent& e) { kinds.push_back(e.kind); });
  Queue q = cpu_device().create_queue();
  Batch b;
  b.exec(cpu_device().kernel("test_sleep"), Dim3{1}, Dim3{1}, {0u});
  Submission s = q.submit(b);
  cpu_device().set_trace(nullptr);
  s.wait();     // made while the trace was on: it still reports
  q.run(b);     // made after: nothing
  EXPECT_EQ(kinds, (std::vector<TraceEvent::Kind>{TraceEvent::Kind::submit, TraceEvent::Kind::complete}));
}

// Run with HSAD_TOOL_RANGES=1 and HSAD_ROCTX_LIBRARY naming tests/support/fake_roctx.cpp's build
// (ctest's CpuToolRanges.RoctxSeesOneRangePerSubmission); skipped otherwise.
TEST(CpuToolRanges, RoctxSeesOneRangePerSubmission) {
  const char* path = std::getenv("HSAD_ROCTX_LIBRARY");
  if (!path || !*path) GTEST_SKIP() << "HSAD_ROCTX_LIBRARY names no stand-in roctx";
  Queue q = cpu_device().create_queue();
  Batch b;
  b.exec(cpu_device().kernel("test_sleep"), Dim3{1}, Dim3{1}, {0u}).exec(cpu_device().kernel("test_sleep"), Dim3{1}, Dim3{1}, {0u});
  q.run(b);
  Options replay = Options::all();
  replay.replay = true;
  q.run(b, replay);
  void* lib = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(lib, nullptr) << "the library did not load " << path;
  using Ranges = std::vector<std::string> (*)(int*);
  const auto ranges = reinterpret_cast<Ranges>(dlsym(lib, "hsad_fake_roctx_ranges"));
  ASSERT_NE(ranges, nullptr);
  int open = -1;
  const std::vector<std::string> seen = ranges(&open);
  const std::string q_id = std::to_string(q.id());
  EXPECT_EQ(seen, (std::vector<std::string>{"hsad queue " + q_id + " submission 1: test_sleep x2",
                                             "hsad queue " + q_id + " submission 2: test_sleep x2"}));
  EXPECT_EQ(open, 0) << "every range closed";
  dlclose(lib);
}

// The callback may submit, to the very queue it reports on (no lock of the library is held).
TEST(CpuTrace, TheCallbackMaySubmitToTheQueueItReportsOn) {
  Queue q = cpu_device().create_queue();
  Batch b;
  b.exec(cpu_device().kernel("test_sleep"), Dim3{1}, Dim3{1}, {0u});
  int nested = 0;
  cpu_device().set_trace([&](const TraceEvent& e) {
    if (e.kind == TraceEvent::Kind::submit && e.submission == 1) {
      ++nested;
      q.run(b);  // submission 2, from inside the report of submission 1
    }
  });
  q.run(b);
  cpu_device().set_trace(nullptr);
  EXPECT_EQ(nested, 1);
  EXPECT_EQ(q.submissions(), 2u);
}
