// Queue::enqueue and Queue::finish on a GPU: on cuda, an enqueued replay of a batch whose graph is
// current is its graph's launch alone, with no submission made; replays of two batches in turn,
// and of a batch recorded again while its launches run, compute what submits do; a finish past
// its timeout abandons the launches still running, as a wait does, and the queue goes on once they
// end; a queue let go of with a launch held on the device neither hangs nor loses the device.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <numeric>
#include <thread>
#include <vector>

#include "error_text.hpp"
#include "gpu_backend.hpp"
#include "two_copies.hpp"
#include "hsad/hsad.hpp"

using namespace hsad;
using test::modules_dir;

namespace {
Options replayed() {
  Options o = Options::all();
  o.replay = true;
  return o;
}
}  // namespace

TEST(GpuEnqueue, AnEnqueuedReplayIsItsGraphsLaunchAlone) {
  REQUIRE_GPU();
  if (device.info().backend != "cuda") GTEST_SKIP() << "driver calls are counted on cuda";
  const char* how = std::getenv("HSAD_CUDA_REPLAY_COMPLETION");
  if (how && *how && std::string(how) != "counter") GTEST_SKIP() << "the replay completes on a call of its own";
  const Kernel e = device.kernel("hsad_empty");
  for (std::uint32_t n : {1u, 16u, 1024u}) {
    SCOPED_TRACE(std::to_string(n) + " dispatches");
    Batch b;
    for (std::uint32_t i = 0; i < n; ++i) b.exec(e, Dim3{1}, Dim3{1}, {});
    std::thread([&] {  // a thread of its own: no context current on it
      Queue q = device.create_queue();
      q.run(b, replayed());  // captured here
      for (int round = 0; round < 3; ++round) {
        const Stats before = device.stats();
        const std::uint64_t made = q.submissions();
        q.enqueue(b, replayed());
        const Stats enqueued = device.stats() - before;
        EXPECT_EQ(enqueued.driver_calls, 1u);
        EXPECT_EQ(enqueued.signals_created, 0u);
        EXPECT_EQ(enqueued.packets, n);
        EXPECT_EQ(enqueued.doorbells, 1u);
        EXPECT_EQ(q.submissions(), made + 1);
      }
      q.finish();
      // Not asked to replay: the commands one by one, as submit sends them (n launches and the
      // completion's write), though the batch's graph is current.
      const Stats plain = device.stats();
      q.enqueue(b, Options{});
      EXPECT_GT((device.stats() - plain).driver_calls, n);
      // Traced: a submission to report the completion of, sent the generic way, reported at finish.
      std::atomic<int> completes{0};
      device.set_trace([&](const TraceEvent& e) {
        if (e.kind == TraceEvent::Kind::complete) ++completes;
      });
      q.enqueue(b, replayed());
      q.finish();
      device.set_trace(nullptr);
      EXPECT_EQ(completes.load(), 1);
    }).join();
  }
}

TEST(GpuEnqueue, ReplaysOfTwoBatchesInTurnAndOfABatchRecordedAgainComputeWhatSubmitsDo) {
  REQUIRE_GPU();
  test::TwoCopies t(device);
  Queue q = device.create_queue();
  for (int i = 0; i < 10; ++i) {  // runs of five: the first of each captured or submitted, the rest bare
    for (int k = 0; k < 5; ++k) q.enqueue(t.one, replayed());
    for (int k = 0; k < 5; ++k) q.enqueue(t.other, replayed());
  }
  q.finish();
  EXPECT_TRUE(t.holds(t.dst, t.a));
  EXPECT_TRUE(t.holds(t.dst2, t.b));
  for (int i = 0; i < 20; ++i) q.enqueue(t.one, replayed());
  // Recorded again while those may still run: its graph is captured anew, the old one's code
  // stays held by the launches that run it.
  t.one.clear();
  t.one.exec(t.copy, Dim3{t.kCount}, Dim3{256}, {t.dst, t.src_b, t.kCount});
  for (int i = 0; i < 20; ++i) q.enqueue(t.one, replayed());
  q.finish();
  EXPECT_TRUE(t.holds(t.dst, t.b));
  EXPECT_EQ(q.submissions(), 140u);
}

// probe_spin holds the launch on the device until the host sets the flag.
TEST(GpuEnqueue, AFinishPastItsTimeoutAbandonsAndTheQueueGoesOnOnceTheWorkEnds) {
  REQUIRE_GPU();
  const char* exec = std::getenv("HSAD_SIM_EXEC");
  if (test::simulated(device) && exec && std::string(exec) == "host") GTEST_SKIP() << "a module's kernel runs only as machine code";
  const Module m = device.load_module(modules_dir() + (device.info().backend == "cuda" ? "/fault.fatbin" : "/fault.hsaco"));
  Buffer flag = device.alloc(sizeof(unsigned), Memory::pinned_host);
  Buffer x = device.alloc(sizeof(unsigned), Memory::pinned_host);
  *flag.host_as<unsigned>() = 1;
  *x.host_as<unsigned>() = 0;
  Batch held;
  held.exec(m.kernel("probe_spin"), Dim3{1}, Dim3{1}, {flag}).exec(m.kernel("probe_add_one"), Dim3{1}, Dim3{1}, {x});
  Queue q = device.create_queue();
  q.run(held, replayed());  // captured: x = 1
  __atomic_store_n(flag.host_as<unsigned>(), 0u, __ATOMIC_RELEASE);
  q.enqueue(held, replayed());
  try {
    q.finish(std::chrono::milliseconds(20));
    FAIL() << "no timeout";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::timeout) << e.what();
    EXPECT_NE(std::string(e.what()).find("abandoned"), std::string::npos) << e.what();
  }
  const std::string refused = test::error_text([&] { q.enqueue(held, replayed()); });
  EXPECT_NE(refused.find("still run"), std::string::npos) << refused;
  __atomic_store_n(flag.host_as<unsigned>(), 1u, __ATOMIC_RELEASE);
  q.finish();
  EXPECT_EQ(__atomic_load_n(x.host_as<unsigned>(), __ATOMIC_ACQUIRE), 2u);
  q.enqueue(held, replayed());
  q.finish();
  EXPECT_EQ(__atomic_load_n(x.host_as<unsigned>(), __ATOMIC_ACQUIRE), 3u);

  // Let go of while held on the device: the last handle's going waits for the work (within its
  // enqueue's timeout), which ends when the flag is set from another thread meanwhile.
  std::thread release;
  {
    Queue dropped = device.create_queue();
    dropped.run(held, replayed());
    __atomic_store_n(flag.host_as<unsigned>(), 0u, __ATOMIC_RELEASE);
    dropped.enqueue(held, replayed(), std::chrono::seconds(10));
    release = std::thread([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      __atomic_store_n(flag.host_as<unsigned>(), 1u, __ATOMIC_RELEASE);
    });
  }
  release.join();
  EXPECT_EQ(__atomic_load_n(x.host_as<unsigned>(), __ATOMIC_ACQUIRE), 5u) << "the queue went before its work ended";
}
