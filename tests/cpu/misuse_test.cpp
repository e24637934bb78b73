// What a careless application does with handles, ranges and callbacks, and what it gets: an
// hsad::Error naming the mistake, or work that runs as if it had been careful. Each case was a
// crash, a hang or wrong data before (a probe of the cpu agent's API, 2026-11-28).
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cpu_test_device.hpp"
#include "error_text.hpp"
#include "hsad/dlpack.hpp"
#include "hsad/hsad.hpp"

using namespace hsad;
using test::cpu_device;
using test::error_text;

namespace {
// The code of the hsad::Error `f` throws, and that it names `says`.
void expect_refused(const std::function<void()>& f, Errc code, const std::string& says) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one saying '" << says << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
  }
}

Buffer zeroed(std::size_t words) {
  Buffer b = cpu_device().alloc(words * 4);
  const std::vector<std::uint32_t> zeros(words, 0);
  cpu_device().copy_to_device(b, zeros.data(), words * 4);
  return b;
}

std::vector<std::uint32_t> read(const Buffer& b, std::size_t n) {
  std::vector<std::uint32_t> v(n);
  cpu_device().copy_to_host(v.data(), b, n * 4);
  return v;
}
}  // namespace

// A moved-from Queue, a default-constructed Device or Kernel: each call names the empty handle
// (they dereferenced nothing and crashed, but for Queue::enqueue and finish).
TEST(CpuMisuse, EmptyQueueDeviceAndKernelHandlesAreRefusedByName) {
  Queue q = cpu_device().create_queue();
  Queue kept = std::move(q);
  Batch b;
  for (const auto& call : std::vector<std::function<void()>>{
           [&] { q.run(b); }, [&] { (void)q.submit(b); }, [&] { (void)q.size(); }, [&] { (void)q.submissions(); },
           [&] { q.enqueue(b); }, [&] { q.finish(); }, [&] { (void)q.id(); }, [&] { (void)q.native(); }}) {
    expect_refused(call, Errc::invalid_argument, "the Queue is empty");
  }
  Submission s;
  for (const auto& call : std::vector<std::function<void()>>{
           [&] { (void)s.timestamps(); }, [&] { (void)s.loop_iterations(); }, [&] { (void)s.native_handle(); },
           [&] { std::move(s).on_complete([](const Error*) {}); }}) {
    expect_refused(call, Errc::invalid_argument, "the Submission is empty");
  }
  const Module m;
  expect_refused([&] { (void)m.kernel_names(); }, Errc::invalid_argument, "the Module is empty");
  const Device none;
  Buffer buf = cpu_device().alloc(64);
  std::uint32_t host[4] = {};
  for (const auto& call : std::vector<std::function<void()>>{
           [&] { (void)none.info(); }, [&] { (void)none.alloc(16); }, [&] { (void)none.create_queue(); },
           [&] { (void)none.create_cooperative_queue(); }, [&] { (void)none.kernel("test_add"); },
           [&] { (void)none.stats(); }, [&] { (void)none.native(); }, [&] { none.set_trace(nullptr); },
           [&] { none.reset(); }, [&] { none.copy_to_device(buf, host, 16); }, [&] { none.copy_to_host(host, buf, 16); },
           [&] { (void)none.can_access_peer(cpu_device()); }, [&] { (void)none.load_module(host, 16); },
           [&] { (void)none.adopt(host, 16); }}) {
    expect_refused(call, Errc::invalid_argument, "the Device is empty");
  }
  const Kernel k;
  expect_refused([&] { (void)k.info(); }, Errc::invalid_argument, "the Kernel is empty");
  expect_refused([&] { (void)k.name(); }, Errc::invalid_argument, "the Kernel is empty");
  EXPECT_EQ(kept.size(), cpu_device().create_queue().size());  // the handle moved to still works
}

// A Kernel is a handle to shared state (docs/api.md): kept past the Runtime it came from, it holds
// its device, as a Buffer does, and its batch runs on another Runtime's device of the same
// hardware. It held a raw pointer to the freed device before (ASan: heap-use-after-free).
TEST(CpuMisuse, AKernelKeptPastItsRuntimeStillRuns) {
  test::register_test_kernels();
  Kernel add;
  {
    Runtime first = Runtime::open("cpu");
    add = first.device().kernel("test_add");
  }
  Runtime second = Runtime::open("cpu");
  const Device d = second.device();
  Buffer buf = d.alloc(256 * 4);
  const std::vector<std::uint32_t> zeros(256, 0);
  d.copy_to_device(buf, zeros.data(), 256 * 4);
  Batch b;
  b.exec(add, Dim3{256}, Dim3{64}, {buf, 3u, 256u});
  d.create_queue().run(b);
  std::vector<std::uint32_t> got(256);
  d.copy_to_host(got.data(), buf, 256 * 4);
  EXPECT_EQ(got, std::vector<std::uint32_t>(256, 3u));
  EXPECT_EQ(add.name(), "test_add");
}

// Within a page of SIZE_MAX the page rounding wrapped to 0 bytes, which aligned_alloc granted: a
// Buffer that claimed 2^64 bytes over a page, and a copy into it overran the heap.
TEST(CpuMisuse, AnAllocationNoMemoryHoldsIsOutOfMemory) {
  for (const std::size_t bytes : {std::numeric_limits<std::size_t>::max(), std::numeric_limits<std::size_t>::max() - 100,
                                  std::numeric_limits<std::size_t>::max() / 2}) {
    expect_refused([&] { (void)cpu_device().alloc(bytes); }, Errc::out_of_memory, std::to_string(bytes));
  }
}

TEST(CpuMisuse, ABlockingCopyWithANullHostPointerIsRefused) {
  Buffer buf = cpu_device().alloc(64);
  expect_refused([&] { cpu_device().copy_to_device(buf, nullptr, 8); }, Errc::invalid_argument, "a null host pointer");
  expect_refused([&] { cpu_device().copy_to_host(nullptr, buf, 8); }, Errc::invalid_argument, "a null host pointer");
}

// No backend's copy is a memmove, and the cpu agent copies 1 MiB and more in pieces in parallel:
// 64 MiB shifted by a page within one buffer came out with about 260000 wrong words. Refused when
// recorded; ranges that only touch, in one buffer, are a copy like any other.
TEST(CpuMisuse, OverlappingCopiesAreRefusedWhenRecorded) {
  const std::size_t n = 4u << 20;  // words: 16 MiB, past the size the cpu agent copies in pieces
  Buffer a = cpu_device().alloc(2 * n * 4);
  Batch b;
  for (const auto& [dst, src, bytes] : {std::tuple{std::size_t(4096), std::size_t(0), n * 4},
                                        std::tuple{std::size_t(0), std::size_t(4), std::size_t(16)},
                                        std::tuple{std::size_t(8), std::size_t(8), std::size_t(4)}}) {
    expect_refused([&] { b.copy(a, a, bytes, dst, src); }, Errc::invalid_argument, "overlap");
  }
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(b.device(), nullptr);  // a refused copy named no device: the batch takes any
  std::vector<std::uint32_t> words(n);
  for (std::size_t i = 0; i < n; ++i) words[i] = std::uint32_t(i * 2654435761u);
  cpu_device().copy_to_device(a, words.data(), n * 4);
  b.copy(a, a, n * 4, n * 4, 0);  // the second half from the first: they touch, not overlap
  cpu_device().create_queue().run(b);
  std::vector<std::uint32_t> second(n);
  cpu_device().copy_to_host(second.data(), a, n * 4, n * 4);
  EXPECT_EQ(second, words);
}

// before + offset overflowed: INT64_MAX wrapped to a negative number, "wait for nothing".
TEST(CpuMisuse, AWaitForASubmissionNoQueueCanHaveMadeIsRefused) {
  Queue q = cpu_device().create_queue(), other = cpu_device().create_queue();
  Buffer buf = zeroed(64);
  q.run(test::add_batch(cpu_device(), buf, 64, 1));
  for (const std::int64_t offset : {std::int64_t(5), std::numeric_limits<std::int64_t>::max()}) {
    Batch w;
    w.wait(other, offset);
    expect_refused([&] { q.run(w); }, Errc::invalid_argument, "of a queue that has made 0");
  }
  EXPECT_EQ(read(buf, 64), std::vector<std::uint32_t>(64, 1u));
}

// libstdc++'s stream throws std::ios_base::failure on a read that fails (EISDIR): it escaped as such.
TEST(CpuMisuse, LoadingADirectoryIsRefusedByName) {
  const std::string dir = std::filesystem::temp_directory_path().string();
  expect_refused([&] { (void)cpu_device().load_module(dir); }, Errc::invalid_argument, "cannot read '" + dir + "'");
}

// Batch::exec packs each argument at its offset into a block of kernarg_segment_size bytes: an
// argument past it was written past the block (ASan: heap-buffer-overflow in pack_args).
TEST(CpuMisuse, AHostKernelWhoseArgumentEndsPastItsBlockIsRefused) {
  struct Args {
    std::uint64_t a, b;
  };
  const auto fn = [](const WorkGroup&) {};
  HostKernel k = make_host_kernel<Args>("misuse_bad_layout", fn, {host_arg("a", &Args::a), host_arg("b", &Args::b)});
  k.info.args[1].offset = 64;
  expect_refused([&] { register_host_kernel(k); }, Errc::invalid_argument, "argument 'b' (8 bytes at offset 64) ends past");
  k.info.args[1].offset = 8;
  k.info.args[1].size = std::numeric_limits<std::uint32_t>::max();
  expect_refused([&] { register_host_kernel(k); }, Errc::invalid_argument, "ends past its 16-byte argument block");
  expect_refused([&] { register_host_kernel(make_host_kernel("", fn)); }, Errc::invalid_argument, "no name");
  EXPECT_NE(error_text([] { (void)cpu_device().kernel("misuse_bad_layout"); }), "no error");  // none was registered
}

// A trace callback must not throw; one that did at a submit dropped the submission's handle with
// its work in flight, and its signal, given back, was counted down twice: the queue's next run
// timed out, and the queue refused all work after it (18 of 20 queues). Now the work is waited
// for as a handle let go is, and the callback's exception reaches the submit's caller.
TEST(CpuMisuse, ATraceCallbackThatThrowsAtASubmitLeavesItsQueueWorking) {
  const Device d = cpu_device();
  Buffer buf = zeroed(64);
  const Batch b = test::add_batch(d, buf, 64, 1);
  for (int i = 0; i < 20; ++i) {
    Queue q = d.create_queue();
    d.set_trace([](const TraceEvent& e) {
      if (e.kind == TraceEvent::Kind::submit) throw std::runtime_error("the trace callback threw");
    });
    EXPECT_THROW((void)q.submit(b), std::runtime_error);
    d.set_trace(nullptr);
    ASSERT_NO_THROW(q.run(b, Options{}, std::chrono::seconds(20))) << "queue " << i;
  }
  EXPECT_EQ(read(buf, 64), std::vector<std::uint32_t>(64, 40u));
}

// The watcher caught only hsad::Error from the wait, so a trace callback's exception at the
// completion (a std::exception, or anything else) skipped the on_complete callback: it now gets
// an error saying so.
TEST(CpuMisuse, OnCompleteIsCalledWhenATraceCallbackThrowsAtTheCompletion) {
  const Device d = cpu_device();
  Buffer buf = zeroed(64);
  Queue q = d.create_queue();
  const std::vector<std::pair<TraceCallback, std::string>> throwers = {
      {[](const TraceEvent& e) {
         if (e.kind == TraceEvent::Kind::complete) throw std::runtime_error("the trace callback threw");
       },
       "the trace callback threw"},
      {[](const TraceEvent& e) {
         if (e.kind == TraceEvent::Kind::complete) throw 42;
       },
       "no std::exception type"}};
  for (const auto& [thrower, says] : throwers) {
    d.set_trace(thrower);
    std::mutex m;
    std::condition_variable cv;
    bool called = false;
    std::string said;
    q.submit(test::add_batch(d, buf, 64, 1)).on_complete([&](const Error* e) {
      std::lock_guard<std::mutex> lock(m);
      called = true;
      said = e ? e->what() : "no error";
      cv.notify_one();
    });
    std::unique_lock<std::mutex> lock(m);
    const bool in_time = cv.wait_for(lock, std::chrono::seconds(20), [&] { return called; });
    lock.unlock();
    d.set_trace(nullptr);
    ASSERT_TRUE(in_time) << "on_complete was not called within 20 s";
    EXPECT_NE(said.find(says), std::string::npos) << said;
  }
}

// The application's mistakes are Errc::invalid_argument on every path (docs/api.md, the Errc
// table); these three said Errc::runtime, as a failure of the library or the driver would.
TEST(CpuMisuse, AnApplicationsMistakesAreInvalidArguments) {
  expect_refused([] { (void)from_dlpack(cpu_device(), nullptr); }, Errc::invalid_argument, "a null DLManagedTensor");
  Buffer buf = zeroed(64);
  Queue q = cpu_device().create_queue();
  Submission s = q.submit(test::add_batch(cpu_device(), buf, 64, 1), Options::all());
  expect_refused([&] { (void)s.timestamps(); }, Errc::invalid_argument, "has not been waited for");
  s.wait();
  Batch w;
  w.wait_native(0x1234);
  expect_refused([&] { q.run(w); }, Errc::invalid_argument, "is not the native handle of a live submission");
}
