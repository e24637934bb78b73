// GPU tests: run on the first GPU backend present (rocr, then cuda) and skip, saying why,
// where there is none. The same checks as the cpu agent's, on real hardware.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <atomic>
#include <chrono>
#include <thread>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

#include "backends/backend.hpp"
#include "bitonic.hpp"
#include "bitonic_workload.hpp"
#include "error_text.hpp"
#include "gpu_backend.hpp"
#include "two_copies.hpp"
#include "grid_cases.hpp"
#include "ladder.hpp"
#include "hsad/hsad.hpp"
#include "laplacian_slabs.hpp"
#include "memory_checks.hpp"
#include "recovery_cases.hpp"

using namespace hsad;

namespace {
using test::simulated;
using test::modules_dir;

// Keys for a sort: `n` on a GPU; at most 2^12 on the simulated one, which interprets every
// instruction (about 10^7 wave instructions per second per core, ten times fewer under ASan).
// The 32768-key sort itself is checked there by tests/hsad-sim's HsadSimIsaProject.
std::uint32_t keys_for(const Device& d, std::uint32_t n) { return simulated(d) ? std::min(n, 1u << 12) : n; }

std::vector<std::uint32_t> random_keys(std::size_t n) {
  std::vector<std::uint32_t> k(n);
  std::mt19937 rng(static_cast<std::uint32_t>(n));
  for (auto& v : k) v = rng();
  return k;
}

// The counters one iteration of `w` changed.
Stats counted(const Device& d, bench::BitonicWorkload& w) {
  const Stats before = d.stats();
  w.run();
  return d.stats() - before;
}

bool sorts(const Device& d, std::uint32_t n, const Options& o) {
  auto keys = random_keys(n);
  bench::BitonicWorkload w(d, n, o);
  std::copy(keys.begin(), keys.end(), w.input());
  w.run();
  w.run();  // twice: a replayed graph must sort fresh input too
  std::sort(keys.begin(), keys.end());
  return w.output_matches(keys);
}
}  // namespace

TEST(Gpu, BitonicSortsEveryLadderRow) {
  REQUIRE_GPU();
  Options wanted = Options{};
  wanted.replay = true;  // CUDA graphs on cuda, packet images on AQL
  const std::uint32_t n = keys_for(device, 32768);
  for (const bench::LadderRow& row : bench::ladder(wanted)) EXPECT_TRUE(sorts(device, n, row.options)) << row.config;
}

TEST(Gpu, BitonicSortsManySizes) {
  REQUIRE_GPU();
  for (int k : {1, 2, 5, 8, 10, 12, 16, 20, 22}) {
    if (keys_for(device, 1u << k) < (1u << k)) continue;  // the simulated GPU stops at 2^12
    EXPECT_TRUE(sorts(device, 1u << k, Options{})) << "n=2^" << k;
  }
}

TEST(Gpu, NosyncRingsOnceAndWaitsOnce) {
  REQUIRE_GPU();
  bench::BitonicWorkload sync(device, 1024, Options::parse("signal,kernarg"));
  bench::BitonicWorkload batch(device, 1024, Options::parse("signal,kernarg,nosync"));
  const Stats a = counted(device, sync), b = counted(device, batch);
  EXPECT_EQ(a.host_waits, 55u);
  EXPECT_EQ(a.doorbells, 55u);
  EXPECT_EQ(b.host_waits, 1u);
  EXPECT_EQ(b.doorbells, 1u);
  EXPECT_EQ(b.packets, 55u);
}

TEST(Gpu, SignalAndKernargPoolsAvoidWorkInTheTimedRun) {
  REQUIRE_GPU();
  bench::BitonicWorkload base(device, 1024, Options::none());
  bench::BitonicWorkload pooled(device, 1024, Options::parse("signal,kernarg"));
  const Stats a = counted(device, base), b = counted(device, pooled);
  EXPECT_EQ(a.signals_created, 1u);
  EXPECT_EQ(a.kernarg_allocations, 1u);
  EXPECT_EQ(b.signals_created, 0u);
  EXPECT_EQ(b.kernarg_allocations, 0u);
}

TEST(Gpu, PinnedTransfersAreNotStaged) {
  REQUIRE_GPU();
  bench::BitonicWorkload pageable(device, 4096, Options::parse("nosync"));
  bench::BitonicWorkload pinned(device, 4096, Options::parse("nosync,pinned"));
  EXPECT_EQ(counted(device, pageable).bytes_staged, 2u * 4096 * 4);
  EXPECT_EQ(counted(device, pinned).bytes_staged, 0u);
}

TEST(Gpu, KernelArgumentsComeFromTheDriversView) {
  REQUIRE_GPU();
  const Kernel k = device.kernel("bitonic_step");
  EXPECT_EQ(k.info().explicit_arg_count(), 5u);  // keys, stage, pass, ascending, n
  EXPECT_EQ(k.info().args[0].size, 8u);
  EXPECT_EQ(k.info().args[1].offset, 8u);
  EXPECT_EQ(k.info().args[3].offset, 16u);
  EXPECT_EQ(k.info().args[4].offset, 20u);
}

TEST(Gpu, WrongArgumentCountIsRefused) {
  REQUIRE_GPU();
  Batch b;
  EXPECT_THROW(b.exec(device.kernel("bitonic_step"), Dim3{64}, Dim3{64}, {1u, 2u}), Error);
}

TEST(Gpu, UnknownKernelIsRefused) {
  REQUIRE_GPU();
  EXPECT_THROW(device.kernel("no_such_kernel"), Error);
}

TEST(Gpu, ReplayFollowsAChangedBatch) {
  REQUIRE_GPU();
  if (device.info().backend != "cuda") GTEST_SKIP() << "replay is a CUDA graph";
  Queue q = device.create_queue();
  Buffer buf = device.alloc(1024 * 4);
  auto keys = random_keys(1024);
  Batch b;
  const Kernel step = device.kernel("bitonic_step");
  b.exec(step, Dim3{512}, Dim3{256}, {buf, 0u, 0u, 1u, 1024u});
  Options o = Options{};
  o.replay = true;
  device.copy_to_device(buf, keys.data(), keys.size() * 4);
  q.run(b, o);  // graph of one step
  b.clear();
  for (std::uint32_t stage = 0; stage < 10; ++stage)
    for (std::uint32_t pass = 0; pass <= stage; ++pass) b.exec(step, Dim3{512}, Dim3{256}, {buf, stage, pass, 1u, 1024u});
  device.copy_to_device(buf, keys.data(), keys.size() * 4);
  q.run(b, o);  // must be a new graph of the whole sort
  std::vector<std::uint32_t> out(1024);
  device.copy_to_host(out.data(), buf, out.size() * 4);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(out, keys);
}

TEST(Gpu, EmptyKernelBatchOfTenThousand) {
  REQUIRE_GPU();
  Queue q = device.create_queue();
  Batch b;
  const Kernel e = device.kernel("hsad_empty");
  for (int i = 0; i < 10000; ++i) b.exec(e, Dim3{1}, Dim3{1}, {});
  EXPECT_NO_THROW(q.run(b, Options{}));
}

// The LDS algorithm (--algo lds) under every ladder row, with the copies in the batch: on a real
// GPU at 32768 keys (10 dispatches: long passes between local merges) and 2^20; on the
// simulated one at one chunk (the hsad-sim suite sorts across chunks).
// memory-bench's kernels at odd sizes and several work-group sizes, against the CPU's sums.
TEST(GpuMemory, EveryWorkloadMatchesTheCpu) {
  REQUIRE_GPU();
  test::expect_every_memory_workload_matches(device, {1, 32, 48, 64, 256, 1024});
}

TEST(GpuBatch, BitonicLdsSortsEveryLadderRow) {
  REQUIRE_GPU();
  Options wanted = Options{};
  wanted.replay = device.info().backend == "cuda";
  for (const std::uint32_t want : {1u << 15, 1u << 20}) {
    const std::uint32_t n = keys_for(device, want);
    for (const bench::LadderRow& row : bench::ladder(wanted)) {
      SCOPED_TRACE(row.config + ", " + std::to_string(n) + " keys");
      auto keys = random_keys(n);
      bench::BitonicWorkload w(device, n, row.options, bench::BitonicWorkload::Copies::in_batch,
                               bench::BitonicWorkload::Algo::lds);
      EXPECT_EQ(w.dispatches(), kernels::bitonic_lds_dispatches(n, kernels::bitonic_local_chunk_log2(n)));
      std::copy(keys.begin(), keys.end(), w.input());
      w.run();
      w.run();  // twice: a replayed graph must sort fresh input too
      std::sort(keys.begin(), keys.end());
      EXPECT_TRUE(w.output_matches(keys));
    }
    if (simulated(device)) break;
  }
}

// The seed's whole iteration as one submission, under every ladder row (and replay on CUDA:
// one graph with the copies as memcpy nodes, or graphs around the pageable ones).
TEST(GpuBatch, CopyInSortCopyOutIsOneSubmission) {
  REQUIRE_GPU();
  Options wanted = Options{};
  wanted.replay = device.info().backend == "cuda";
  for (const bench::LadderRow& row : bench::ladder(wanted)) {
    SCOPED_TRACE(row.config);
    const std::uint32_t n = keys_for(device, 32768);
    auto keys = random_keys(n);
    bench::BitonicWorkload w(device, n, row.options, bench::BitonicWorkload::Copies::in_batch);
    std::copy(keys.begin(), keys.end(), w.input());
    const Stats s = counted(device, w);
    w.run();  // twice: a replayed graph's copies move fresh input too
    std::sort(keys.begin(), keys.end());
    EXPECT_TRUE(w.output_matches(keys));
    EXPECT_EQ(s.copies, 2u);
    EXPECT_EQ(s.bytes_staged, row.options.pinned ? 0u : 2u * n * 4);
    if (row.options.nosync) {
      EXPECT_EQ(s.host_waits, 1u);
    }
  }
}

// A blocking copy from pageable memory has reached the device when it returns: a batch on a
// queue, right after, copies what was written, never what was there before. Several rounds of
// 64 MiB (on a real GPU; 256 KiB on the simulated one), each with new contents.
TEST(GpuBatch, ABlockingCopyFromPageableMemoryIsCompleteWhenItReturns) {
  REQUIRE_GPU();
  const std::size_t words = simulated(device) ? (64u << 10) : (16u << 20);
  Buffer a = device.alloc(words * 4), b = device.alloc(words * 4);
  Queue q = device.create_queue();
  std::vector<std::uint32_t> src(words), back(words);
  for (std::uint32_t round = 1; round <= 4; ++round) {
    for (std::size_t i = 0; i < words; ++i) src[i] = std::uint32_t(i) * 2654435761u + round;
    device.copy_to_device(a, src.data(), words * 4);
    Batch copy;
    copy.copy(b, a, words * 4);
    q.run(copy, Options{});
    device.copy_to_host(back.data(), b, words * 4);
    std::size_t stale = 0;
    for (std::size_t i = 0; i < words; ++i) stale += back[i] != src[i];
    EXPECT_EQ(stale, 0u) << "round " << round;
  }
}

TEST(GpuBatch, DeviceToDeviceCopyWithOffsets) {
  REQUIRE_GPU();
  const std::size_t bytes = 1000003;
  std::vector<unsigned char> src(bytes), back(bytes);
  for (std::size_t i = 0; i < bytes; ++i) src[i] = static_cast<unsigned char>(i * 7 + 1);
  Buffer a = device.alloc(bytes), b = device.alloc(bytes + 100);
  Batch batch;
  batch.copy_to_device(a, src.data(), bytes).copy(b, a, bytes, 17).copy_to_host(back.data(), b, bytes, 17);
  device.create_queue().run(batch, Options{});
  EXPECT_EQ(back, src);
}

// Two queues: the consumer copies the producer's keys after a device-side wait; it sees them
// sorted, and the host waited for neither in between.
TEST(GpuWaits, TheConsumerSeesTheProducersResult) {
  REQUIRE_GPU();
  const std::uint32_t n = keys_for(device, 1u << 20);
  std::uint32_t stages = 0;
  while ((1u << stages) < n) ++stages;
  auto keys = random_keys(n);
  Buffer buf = device.alloc(n * 4), copy = device.alloc(n * 4);
  std::vector<std::uint32_t> out(n);
  Batch producer;
  producer.copy_to_device(buf, keys.data(), n * 4);
  const Kernel step = device.kernel("bitonic_step");
  for (std::uint32_t stage = 0; stage < stages; ++stage)
    for (std::uint32_t pass = 0; pass <= stage; ++pass) producer.exec(step, Dim3{n / 2}, Dim3{256}, {buf, stage, pass, 1u, n});
  Queue a = device.create_queue(), b = device.create_queue();
  const Stats before = device.stats();
  Submission p = a.submit(producer, Options{});
  Batch consumer;
  consumer.wait(p).copy(copy, buf, n * 4).copy_to_host(out.data(), copy, n * 4);
  Submission c = b.submit(consumer, Options{});
  const Stats d = device.stats() - before;
  EXPECT_EQ(d.host_waits, 0u);
  EXPECT_EQ(d.device_waits, 1u);
  c.wait();
  p.wait();
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(out, keys);
}

TEST(GpuTimestamps, EveryDispatchAndCopyOnTheDevicesClock) {
  REQUIRE_GPU();
  Options o = Options{};
  o.profile = true;
  for (bool replay : {false, device.info().backend == "cuda"}) {
    o.replay = replay;
    SCOPED_TRACE(replay ? "replay" : "stream");
    bench::BitonicWorkload w(device, 4096, o, bench::BitonicWorkload::Copies::in_batch);
    auto keys = random_keys(4096);
    std::copy(keys.begin(), keys.end(), w.input());
    const std::vector<CommandTime> t = w.run_profiled();
    // HSAD_CUDA_GRAPH_COPIES=node puts pinned copies into the graph: then the whole batch is one.
    const char* nodes = std::getenv("HSAD_CUDA_GRAPH_COPIES");
    if (replay && nodes && std::string(nodes) == "node" && o.pinned) {
      ASSERT_EQ(t.size(), 1u);
      EXPECT_EQ(t[0].what, "graph of 80 commands");
      EXPECT_LT(t[0].start_ns, t[0].end_ns);
      continue;
    }
    if (replay) {  // the copies run on the stream around one graph of the dispatches, timed as one
      ASSERT_EQ(t.size(), 3u);
      EXPECT_EQ(t[0].what, "copy_to_device");
      EXPECT_EQ(t[1].what, "graph of 78 commands");
      EXPECT_EQ(t[2].what, "copy_to_host");
      for (std::size_t i = 0; i < t.size(); ++i) EXPECT_LT(t[i].start_ns, t[i].end_ns) << i;
      continue;
    }
    ASSERT_EQ(t.size(), 78u + 2u);
    EXPECT_EQ(t.front().what, "copy_to_device");
    EXPECT_EQ(t.back().what, "copy_to_host");
    for (std::size_t i = 0; i < t.size(); ++i) {
      EXPECT_LE(t[i].start_ns, t[i].end_ns) << i;
      if (i) {
        EXPECT_GE(t[i].start_ns + 1000, t[i - 1].end_ns) << "command " << i;  // 1 us: the event clock's grain
      }
    }
    std::sort(keys.begin(), keys.end());
    EXPECT_TRUE(w.output_matches(keys));
  }
}

namespace {
// The tests' own module for this device: the hipcc bundle on AMD, the nvcc fatbin, cubin or PTX.
std::vector<std::string> module_files(const Device& d) {
  const std::string dir = modules_dir();
  if (d.info().backend == "rocr") return {dir + "/bundle.hsaco"};
  std::vector<std::string> files = {dir + "/module.fatbin", dir + "/module.ptx"};
  if (d.info().isa == "sm_90") files.push_back(dir + "/module.cubin");
  return files;
}
}  // namespace

// A Buffer destroyed while a kernel that will write it is held back on the device (probe_spin
// waits for a flag the host sets): the destructor returns at once (cuda's cuMemFree would wait
// for the kernel; on AMD the memory would go back to ROCr under it), the memory is parked, fresh
// Buffers allocated meanwhile are not written by the old kernels, and it is released after.
TEST(GpuSafety, ABufferDestroyedInFlightOutlivesTheWork) {
  REQUIRE_GPU();
  const char* exec = std::getenv("HSAD_SIM_EXEC");
  if (simulated(device) && exec && std::string(exec) == "host") GTEST_SKIP() << "a module's kernel runs only as machine code";
  const Module m = device.load_module(modules_dir() + (device.info().backend == "cuda" ? "/fault.fatbin" : "/fault.hsaco"));
  Buffer flag = device.alloc(sizeof(unsigned), Memory::pinned_host);
  *flag.host_as<unsigned>() = 0;
  Queue q = device.create_queue();
  const std::size_t parked_before = device.impl().parked_bytes();
  Submission s;
  std::thread releaser;
  std::atomic<bool> released{false};
  const auto release = [&] {
    if (!released.exchange(true)) __atomic_store_n(flag.host_as<unsigned>(), 1u, __ATOMIC_RELEASE);
  };
  std::chrono::steady_clock::duration destroy_took{};
  std::uintptr_t doomed_at = 0;
  {
    Buffer doomed = device.alloc(4096);
    doomed_at = reinterpret_cast<std::uintptr_t>(doomed.device_ptr());
    Batch b;
    b.exec(m.kernel("probe_spin"), Dim3{1}, Dim3{1}, {flag});
    for (int i = 0; i < 4; ++i) b.exec(m.kernel("probe_add_one"), Dim3{1}, Dim3{1}, {doomed});
    s = q.submit(b);
    // A watchdog: a destructor that waits for the kernel would wait for good without it.
    releaser = std::thread([&] {
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
      while (!released.load() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      release();
    });
    const auto t0 = std::chrono::steady_clock::now();
    doomed = Buffer();
    destroy_took = std::chrono::steady_clock::now() - t0;
  }
  const bool parked = device.impl().parked_bytes() - parked_before == 4096;
  // Fresh memory while the kernels wait (no copy now: on hsad-sim a blit would queue behind the
  // spinning kernel): none of it may be the parked range.
  std::vector<Buffer> fresh;
  for (int i = 0; i < 8; ++i) fresh.push_back(device.alloc(4096));
  release();
  s.wait();
  releaser.join();
  EXPECT_LT(destroy_took, std::chrono::seconds(1)) << "the destructor waited for the kernel";
  EXPECT_TRUE(parked) << "the memory was not parked";
  for (const Buffer& f : fresh) {
    const auto at = reinterpret_cast<std::uintptr_t>(f.device_ptr());
    EXPECT_TRUE(at + 4096 <= doomed_at || at >= doomed_at + 4096) << "a fresh Buffer was given the parked memory";
  }
  { Buffer next = device.alloc(64); }  // an allocation releases what ended
  EXPECT_EQ(device.impl().parked_bytes(), parked_before);
}

TEST(GpuModule, AnApplicationsKernelsRunFromEveryKindOfImage) {
  REQUIRE_GPU();
  // The simulated GPU runs an application's kernels only by executing their machine code.
  const char* exec = std::getenv("HSAD_SIM_EXEC");
  if (simulated(device) && exec && std::string(exec) == "host") {
    GTEST_SKIP() << "the simulated GPU runs host builds only here (hsad-sim --exec host)";
  }
  for (const std::string& path : module_files(device)) {
    SCOPED_TRACE(path);
    const Module m = device.load_module(path);
    std::vector<std::string> names = {"module_add", "module_add_one", "module_add_one_3d", "module_scale"};
    if (device.info().backend == "rocr") names.insert(names.begin() + 3, "module_add_one_global_id");  // HIP only
    EXPECT_EQ(m.kernel_names(), names);
    const unsigned n = 1000;
    std::vector<float> x(n), back(n);
    for (unsigned i = 0; i < n; ++i) x[i] = float(i);
    Buffer buf = device.alloc(n * 4);
    Batch b;
    // 1000 items: the batch rounds them up to whole work-groups, and the kernel checks i < n.
    b.copy_to_device(buf, x.data(), n * 4).exec(m.kernel("module_scale"), Dim3{n}, Dim3{256}, {buf, 0.5f, n});
    b.copy_to_host(back.data(), buf, n * 4);
    device.create_queue().run(b, Options{});
    for (unsigned i = 0; i < n; ++i) ASSERT_EQ(back[i], float(i) * 0.5f) << i;
  }
}

// Options::replay: the batch is built once (a CUDA graph, or an AQL packet image with its kernarg
// blocks written once) and later submits only send it: bit-exact, and the counters say so.
TEST(GpuReplay, ASortIsBuiltOnceAndReplayedBitExact) {
  REQUIRE_GPU();
  const std::uint32_t n = keys_for(device, 4096);
  Options o = Options{};
  o.replay = true;
  auto keys = random_keys(n);
  std::vector<std::uint32_t> want = keys;
  std::sort(want.begin(), want.end());
  bench::BitonicWorkload w(device, n, o);  // blocking copies around a batch of dispatches
  std::copy(keys.begin(), keys.end(), w.input());
  const Stats first = counted(device, w);
  EXPECT_TRUE(w.output_matches(want));
  const Stats again = counted(device, w);
  EXPECT_TRUE(w.output_matches(want));
  EXPECT_EQ(first.images_built, 1u);
  EXPECT_EQ(again.images_built, 0u);
  EXPECT_EQ(again.kernarg_writes, 0u);
  EXPECT_EQ(again.kernarg_allocations, 0u);
  EXPECT_EQ(again.host_waits, 1u);  // the batch's one wait (the blocking copies around it are not batch waits)
}

namespace {
// cuda's replayed submissions complete on the queue's count (the default), or on a call of
// their own after the launch (HSAD_CUDA_REPLAY_COMPLETION=event, stream or node).
bool replay_completes_on_the_count() {
  const char* how = std::getenv("HSAD_CUDA_REPLAY_COMPLETION");
  return !how || std::string(how) == "counter" || std::string(how).empty();
}
}  // namespace

// A replayed submit of an unchanged batch is the graph's launch and nothing that grows with it:
// on cuda, completing on the queue's count, cuGraphLaunch alone (1), even on a thread with no
// current context (the launch takes the stream's); where the completion is not the graph's own
// count, the context's look and switch there and back (3), the launch and the completion's call
// (the event's record, a stream write or its node's new value: 1). The same for 1, 16 and 1024
// dispatches; the counters still count every launch, and the work completes.
TEST(GpuReplay, AReplayedSubmitMakesTheSameFewDriverCallsWhateverItsSize) {
  REQUIRE_GPU();
  if (device.info().backend != "cuda") GTEST_SKIP() << "driver calls are counted on cuda";
  const Kernel e = device.kernel("hsad_empty");
  for (std::uint32_t n : {1u, 16u, 1024u}) {
    SCOPED_TRACE(std::to_string(n) + " dispatches");
    Batch b;
    for (std::uint32_t i = 0; i < n; ++i) b.exec(e, Dim3{1}, Dim3{1}, {});
    Options o = Options::all();
    o.replay = true;
    std::thread([&] {  // a thread of its own: no context current on it
      Queue q = device.create_queue();
      q.run(b, o);  // captured here
      for (int round = 0; round < 3; ++round) {
        const Stats before = device.stats();
        Submission s = q.submit(b, o);
        const Stats submitted = device.stats() - before;
        s.wait();
        EXPECT_EQ(submitted.driver_calls, replay_completes_on_the_count() ? 1u : 5u);
        EXPECT_EQ(submitted.signals_created, 0u);
        EXPECT_EQ(submitted.packets, n);
        EXPECT_EQ(submitted.doorbells, 1u);
        EXPECT_EQ(submitted.images_built, 0u);
      }
    }).join();
  }
}

// A replayed batch submitted again right away (on cuda without a look into the graph cache:
// CudaQueue::LastReplay) follows its batch: new arguments, a command recorded after it, another
// batch replayed in between; and what the queue counted itself outlives it in Device::stats.
TEST(GpuReplay, AReplaySubmittedAgainFollowsItsBatch) {
  REQUIRE_GPU();
  test::TwoCopies t(device);
  Options o = Options::all();
  o.replay = true;
  const Stats before = device.stats();
  {
    Queue q = device.create_queue();
    q.run(t.one, o);  // captured
    q.run(t.one, o);  // submitted again
    EXPECT_TRUE(t.holds(t.dst, t.a));
    t.one.set_args(0, {t.dst, t.src_b, t.kCount});
    q.run(t.one, o);
    EXPECT_TRUE(t.holds(t.dst, t.b)) << "new arguments";
    t.one.set_args(0, {t.dst, t.src_a, t.kCount});
    q.run(t.other, o);
    q.run(t.one, o);
    q.run(t.one, o);
    EXPECT_TRUE(t.holds(t.dst, t.a)) << "after another batch";
    EXPECT_TRUE(t.holds(t.dst2, t.b));
    t.one.exec(t.copy, Dim3{t.kCount}, Dim3{256}, {t.dst2, t.src_a, t.kCount});  // recorded after
    q.run(t.one, o);
    EXPECT_TRUE(t.holds(t.dst2, t.a)) << "the command recorded after the replays";
    EXPECT_EQ(q.submissions(), 7u);
  }
  if (device.info().backend != "cuda") return;
  const Stats d = device.stats() - before;  // the queue is gone
  EXPECT_EQ(d.packets, 8u);
  EXPECT_EQ(d.doorbells, 7u);
  EXPECT_EQ(d.images_built, 3u);  // one, other, and one with its second command
}

// cuda's replayed submissions that complete on the queue's count, while one is held on the
// device (probe_spin): found by number by another queue's batch, which waits for it on the
// device; memory freed meanwhile parked behind it; an abandoned one refused by name to a batch
// that names it later; and no signal made for any of them.
TEST(GpuReplay, ASubmissionCompletingOnTheCountIsFoundByNumberAndHoldsFreedMemory) {
  REQUIRE_GPU();
  if (device.info().backend != "cuda") GTEST_SKIP() << "the completion count is cuda's";
  if (!replay_completes_on_the_count()) GTEST_SKIP() << "HSAD_CUDA_REPLAY_COMPLETION names another completion";
  const Module m = device.load_module(modules_dir() + "/fault.fatbin");
  Buffer flag = device.alloc(sizeof(unsigned), Memory::pinned_host);
  Buffer x = device.alloc(sizeof(unsigned)), y = device.alloc(sizeof(unsigned), Memory::pinned_host);
  *flag.host_as<unsigned>() = 1;
  *y.host_as<unsigned>() = 0;
  Queue a = device.create_queue(), b = device.create_queue();
  Options o = Options::all();
  o.replay = true;
  Batch zero;
  zero.copy(x, y, sizeof(unsigned));
  a.run(zero, Options::all());  // a's submission 1
  Batch held;
  held.exec(m.kernel("probe_spin"), Dim3{1}, Dim3{1}, {flag}).exec(m.kernel("probe_add_one"), Dim3{1}, Dim3{1}, {x});
  a.run(held, o);  // 2: captured, x = 1
  __atomic_store_n(flag.host_as<unsigned>(), 0u, __ATOMIC_RELEASE);
  const Stats before = device.stats();
  Submission s = a.submit(held, o);  // 3: spins until the flag is set
  EXPECT_EQ((device.stats() - before).signals_created, 0u);
  // b has made no submission: offset 3 is a's third.
  Batch after;
  after.wait(a, 3).copy(y, x, sizeof(unsigned));
  Submission read = b.submit(after, Options::all());
  const std::size_t parked_before = device.impl().parked_bytes();
  { Buffer doomed = device.alloc(4096); }
  EXPECT_EQ(device.impl().parked_bytes() - parked_before, 4096u) << "memory freed under a counted submission was not parked";
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(read.ready()) << "b's copy did not wait for a's held submission";
  EXPECT_FALSE(s.ready());
  __atomic_store_n(flag.host_as<unsigned>(), 1u, __ATOMIC_RELEASE);
  s.wait();
  read.wait();
  EXPECT_EQ(*y.host_as<unsigned>(), 2u);  // 1, then the held submission's + 1, then the copy
  { Buffer next = device.alloc(64); }  // an allocation releases what ended
  EXPECT_EQ(device.impl().parked_bytes(), parked_before);

  // Held again, and abandoned by a wait that times out: a batch naming it by number is refused.
  __atomic_store_n(flag.host_as<unsigned>(), 0u, __ATOMIC_RELEASE);
  Submission stuck = a.submit(held, o);  // a's submission 4
  EXPECT_THROW(stuck.wait(std::chrono::milliseconds(20)), Error);
  Batch late;
  late.wait(a, std::int64_t(a.submissions()) - std::int64_t(b.submissions())).copy(y, x, sizeof(unsigned));
  const std::string refused = test::error_text([&] { (void)b.submit(late, Options::all()); });
  EXPECT_NE(refused.find("abandoned"), std::string::npos) << refused;
  __atomic_store_n(flag.host_as<unsigned>(), 1u, __ATOMIC_RELEASE);
  stuck.wait();
  EXPECT_EQ(*y.host_as<unsigned>(), 2u);
}

// Copies inside the replayed batch: rocr's go to the driver's copy engine, the image split
// around them (an edge signal before each, a barrier-AND behind); the cpu agent's are ring packets.
TEST(GpuReplay, CopyInSortCopyOutIsReplayed) {
  REQUIRE_GPU();
  const std::uint32_t n = keys_for(device, 4096);
  for (const char* flags : {"all,replay", "signal,kernarg,nosync,fence,replay"}) {  // pinned, then pageable
    SCOPED_TRACE(flags);
    const Options o = Options::parse(flags);
    bench::BitonicWorkload w(device, n, o, bench::BitonicWorkload::Copies::in_batch);
    for (int round = 0; round < 3; ++round) {
      auto keys = random_keys(n + round);
      keys.resize(n);
      std::copy(keys.begin(), keys.end(), w.input());
      const Stats s = counted(device, w);
      std::sort(keys.begin(), keys.end());
      EXPECT_TRUE(w.output_matches(keys)) << "round " << round;
      EXPECT_EQ(s.images_built, round == 0 ? 1u : 0u);
      EXPECT_EQ(s.copies, 2u);
      EXPECT_EQ(s.host_waits, 1u);
      // One doorbell per 64 ring packets and at the end of each run of them: rocr's ring holds the
      // barrier-AND behind the copy in and the dispatches; the cpu agent's the copies too.
      if (device.info().backend != "cuda") {  // cuda: a CUDA graph (GpuReplay above counts it)
        const std::uint64_t ring = w.dispatches() + (device.info().backend == "rocr" ? 1 : 2);
        EXPECT_EQ(s.packets, ring);
        EXPECT_EQ(s.doorbells, (ring + 63) / 64);
      }
      if (round) {
        EXPECT_EQ(s.kernarg_writes, 0u);
      }
    }
  }
}

// Options::profile under replay: a time for every dispatch and copy, in batch order, each round.
TEST(GpuReplay, AProfiledReplayTimesEveryCommand) {
  REQUIRE_GPU();
  const std::uint32_t n = keys_for(device, 1024);
  Options o = Options{};
  o.replay = true;
  bench::BitonicWorkload w(device, n, o, bench::BitonicWorkload::Copies::in_batch);
  for (int round = 0; round < 2; ++round) {
    auto keys = random_keys(n);
    std::copy(keys.begin(), keys.end(), w.input());
    const Stats before = device.stats();
    const std::vector<CommandTime> t = w.run_profiled();
    const Stats s = device.stats() - before;
    std::sort(keys.begin(), keys.end());
    EXPECT_TRUE(w.output_matches(keys));
    EXPECT_EQ(s.images_built, round == 0 ? 1u : 0u);
    if (device.info().backend == "cuda") {  // events time what a stream runs: one entry per graph (docs/api.md)
      const auto graphs = std::count_if(t.begin(), t.end(), [](const CommandTime& c) {
        return c.what.find("graph of") != std::string::npos;
      });
      EXPECT_GE(graphs, 1) << t.size() << " entries, the first " << t.front().what;
      continue;
    }
    ASSERT_EQ(t.size(), w.batch().size());
    EXPECT_EQ(t.front().what, "copy_to_device");
    EXPECT_EQ(t.back().what, "copy_to_host");
    for (std::size_t i = 1; i < t.size(); ++i) {
      EXPECT_EQ(t[i].command, i);
      EXPECT_LE(t[i].start_ns, t[i].end_ns);
      EXPECT_LE(t[i - 1].end_ns, t[i].start_ns) << t[i].what << " " << i;
    }
  }
}

// Batch::set_args between replays: the same recorded sort, another buffer, no new recording.
// A copied batch replays its own arguments (each copy has its own identity, so its own graph or
// image), and the cache of replayed batches is bounded (32 per queue, least recently used first):
// recording a new batch per iteration does not grow it, the one replayed every time stays.
TEST(GpuReplay, CopiesAreTheirOwnAndTheCacheIsBounded) {
  REQUIRE_GPU();
  const std::uint32_t n = 1024;
  Buffer keys = device.alloc(n * 4);
  const Kernel step = device.kernel("bitonic_step");
  Options o = Options{};
  o.replay = true;
  Queue q = device.create_queue();
  Batch every_iteration;
  every_iteration.exec(step, Dim3{n / 2}, Dim3{256}, {keys, 0u, 0u, 1u, n});
  Batch copy = every_iteration;
  EXPECT_NE(copy.id(), every_iteration.id());
  std::vector<Batch> once(40);
  const Stats before = device.stats();
  for (Batch& b : once) {
    b.exec(step, Dim3{n / 2}, Dim3{256}, {keys, 0u, 0u, 1u, n});
    q.run(b, o);
    q.run(every_iteration, o);
  }
  EXPECT_EQ((device.stats() - before).images_built, 41u);
  const Stats later = device.stats();
  q.run(every_iteration, o);
  q.run(copy, o);  // its own graph or image, not every_iteration's
  EXPECT_EQ((device.stats() - later).images_built, 1u);
  q.run(once.front(), o);
  EXPECT_EQ((device.stats() - later).images_built, 2u) << "the least recently used was evicted";
}

TEST(GpuReplay, SetArgsSortsAnotherBuffer) {
  REQUIRE_GPU();
  const std::uint32_t n = 1024;
  auto k1 = random_keys(n), k2 = random_keys(n + 1);
  k2.resize(n);
  Buffer b1 = device.alloc(n * 4), b2 = device.alloc(n * 4);
  device.copy_to_device(b1, k1.data(), n * 4);
  device.copy_to_device(b2, k2.data(), n * 4);
  Batch sort;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> steps;
  for (std::uint32_t stage = 0; (2u << stage) <= n; ++stage)
    for (std::uint32_t pass = 0; pass <= stage; ++pass) {
      sort.exec(device.kernel("bitonic_step"), Dim3{n / 2}, Dim3{256}, {b1, stage, pass, 1u, n});
      steps.push_back({stage, pass});
    }
  Options o = Options{};
  o.replay = true;
  Queue q = device.create_queue();
  q.run(sort, o);
  for (std::size_t i = 0; i < steps.size(); ++i) sort.set_args(i, {b2, steps[i].first, steps[i].second, 1u, n});
  const Stats before = device.stats();
  q.run(sort, o);
  const Stats d = device.stats() - before;
  // Updated in place, not recorded or captured again: AQL rewrites the kernarg blocks, cuda the
  // instantiated graph's kernel nodes (cuGraphExecKernelNodeSetParams).
  EXPECT_EQ(d.images_built, 0u);
  EXPECT_EQ(d.kernarg_writes, steps.size());
  std::vector<std::uint32_t> out1(n), out2(n);
  device.copy_to_host(out1.data(), b1, n * 4);
  device.copy_to_host(out2.data(), b2, n * 4);
  std::sort(k1.begin(), k1.end());
  std::sort(k2.begin(), k2.end());
  EXPECT_EQ(out1, k1);
  EXPECT_EQ(out2, k2);
}

// Grids that are not whole work-groups: rounded up on every backend, so a kernel written the CUDA
// and HIP way (an application's, in a module) and the library's own give the cpu agent's result.
// Under hsad-sim on gfx90a, gfx908 and gfx1030 this is machine code (tests/hsad-sim/CMakeLists.txt).
namespace {
bool runs_machine_code(const Device& d) {
  const char* exec = std::getenv("HSAD_SIM_EXEC");
  return !(simulated(d) && exec && std::string(exec) == "host");
}
}  // namespace

TEST(GpuGrid, ACudaStyleKernelProcessesEachElementOnce) {
  REQUIRE_GPU();
  if (!runs_machine_code(device)) GTEST_SKIP() << "an application's kernels need machine code (hsad-sim --exec isa)";
  const Module m = device.load_module(module_files(device).front());
  test::expect_each_element_once(device, m.kernel("module_add_one_3d"));
}

TEST(GpuGrid, TheLibrarysCopyIsExactAtEveryGrid) {
  REQUIRE_GPU();
  test::expect_copy_at_every_grid(device);
}

TEST(GpuGrid, TheLibrarysSortsIgnoreItemsPastTheKeys) {
  REQUIRE_GPU();
  test::expect_bitonic_at_odd_grids(device);
}

// HSA's partial work-groups, by name: exact on AMD (the work-items past the grid do not exist, so
// an OpenCL-style kernel without a bounds check is right); refused on cuda, which has none.
TEST(GpuGrid, PartialGroupsOnAmdAndARefusalOnCuda) {
  REQUIRE_GPU();
  if (!runs_machine_code(device)) GTEST_SKIP() << "an application's kernels need machine code (hsad-sim --exec isa)";
  const Module m = device.load_module(module_files(device).front());
  if (device.info().backend == "cuda") {
    Batch b;
    EXPECT_NE(test::error_text([&] { b.exec_partial_groups(m.kernel("module_add_one"), Dim3{961}, Dim3{64}, {Buffer(), 1u}); })
                  .find("CUDA launches whole blocks only"),
              std::string::npos);
    return;
  }
  const std::uint32_t n = 961;
  std::vector<std::uint32_t> x(n + test::kGuard, 0);
  Buffer buf = device.alloc(x.size() * 4);
  Batch b;
  b.copy_to_device(buf, x.data(), x.size() * 4)
      .exec_partial_groups(m.kernel("module_add_one_global_id"), Dim3{n}, Dim3{64}, {buf})
      .copy_to_host(x.data(), buf, x.size() * 4);
  EXPECT_EQ(b.dispatches()[0].grid.x, n);
  device.create_queue().run(b, Options{});
  for (std::uint32_t i = 0; i < x.size(); ++i) ASSERT_EQ(x[i], i < n ? 1u : 0u) << "element " << i;
}

// A kernel's parameters, counted from the image (a cubin's .nv.info, PTX's .entry) and laid out by
// the driver, asked only for parameters that exist; a fatbin whose every image is compressed is
// counted by asking until the driver refuses (docs/api.md). The same layout from each.
TEST(GpuModule, ParameterLayoutsAreTheSameFromEveryKindOfImage) {
  REQUIRE_GPU();
  if (device.info().backend != "cuda") GTEST_SKIP() << "nvcc's images: cuda only";
  const std::string dir = modules_dir();
  std::vector<std::string> files = {dir + "/params.fatbin", dir + "/params.ptx", dir + "/params-compressed.fatbin"};
  if (device.info().isa == "sm_90") files.push_back(dir + "/params.cubin");
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    const Module m = device.load_module(path);
    EXPECT_TRUE(m.kernel("params_none").info().args.empty());
    std::vector<std::pair<std::uint32_t, std::uint32_t>> layout;
    for (const ArgInfo& a : m.kernel("params_struct").info().args) layout.emplace_back(a.offset, a.size);
    EXPECT_EQ(layout, (std::vector<std::pair<std::uint32_t, std::uint32_t>>{{0, 16}, {16, 1}, {24, 8}, {32, 8}}));
    EXPECT_EQ(m.kernel("params_scalars").info().args.size(), 3u);
    EXPECT_EQ(m.kernel("params_scalars").info().kernarg_segment_size, 24u);  // the double aligned at 16
  }
}

// Teardown in any order: a Module, its Kernel, a Buffer and a Queue held past the Runtime and the
// Device handle that made them still work, and each releases its driver handle before the context
// or agent that owns it (compute-sanitizer's memcheck used to report cuModuleUnload after the
// context was released; docs/results.md).
TEST(GpuTeardown, HandlesOutliveTheirRuntimeInAnyOrder) {
  REQUIRE_GPU();
  const char* exec = std::getenv("HSAD_SIM_EXEC");
  if (simulated(device) && exec && std::string(exec) == "host") GTEST_SKIP() << "module kernels need --exec isa";
  for (int order = 0; order < 3; ++order) {
    SCOPED_TRACE("order " + std::to_string(order));
    Module m;
    Kernel k;
    Buffer buf;
    Queue q;
    {
      const Runtime own = Runtime::open(rt->backend());
      m = own.device().load_module(module_files(own.device()).front());
      k = m.kernel("module_scale");
      buf = own.device().alloc(256 * 4);
      q = own.device().create_queue();
    }
    std::vector<float> x(256, 2.0f), back(256);
    Batch b;
    b.copy_to_device(buf, x.data(), 256 * 4).exec(k, Dim3{256}, Dim3{256}, {buf, 0.5f, 256u}).copy_to_host(back.data(), buf, 256 * 4);
    q.run(b, Options{});
    EXPECT_EQ(back[255], 1.0f);
    b.clear();
    if (order == 0) m = Module(), k = Kernel(), q = Queue(), buf = Buffer();
    if (order == 1) buf = Buffer(), q = Queue(), k = Kernel(), m = Module();
    if (order == 2) q = Queue(), m = Module(), buf = Buffer(), k = Kernel();
  }
}

TEST(GpuModule, ForeignAndMissingCodeIsRefused) {
  REQUIRE_GPU();
  const std::string foreign = modules_dir() + (device.info().backend == "rocr" ? "/foreign.ptx" : "/bundle.hsaco");
  try {
    device.load_module(foreign);
    FAIL() << "loaded " << foreign;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot run on " + device.info().isa), std::string::npos) << e.what();
  }
  EXPECT_THROW(device.load_module("/nonexistent.bin"), Error);
  const Module m = device.load_module(module_files(device).front());
  try {
    m.kernel("nope");
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string has = device.info().backend == "rocr"
                                ? "(it has: module_add, module_add_one, module_add_one_3d, module_add_one_global_id, module_scale)"
                                : "(it has: module_add, module_add_one, module_add_one_3d, module_scale)";
    EXPECT_NE(std::string(e.what()).find(has), std::string::npos) << e.what();
  }
}

// The Laplacian's slabs over every GPU of the backend (two or three under hsad-sim --gpus N):
// bit-exact to one GPU for Kernels 5, 7 and 8, an uneven split where the count allows it, and
// one host wait per run.
TEST(GpuSlabs, EveryGpuCountGivesTheOneGpuBits) {
  REQUIRE_GPU();
  const std::vector<Device>& all = rt->devices();
  for (int kernel : {5, 7, 8}) {
    SCOPED_TRACE("Kernel " + std::to_string(kernel));
    bench::LaplacianConfig c;
    // Small where every instruction is interpreted; on a GPU, partial work-groups in x and y.
    c.nx = simulated(device) ? 20 : 301;
    c.ny = simulated(device) ? 12 : 67;
    c.nz = simulated(device) ? 9 : 40;
    c.kernel = kernel;
    c.m = kernel == 8 ? 4 : 8;
    c.split = kernel == 7 ? 2 : 1;
    c.block = kernel == 8 ? std::array<std::uint32_t, 3>{64, 4, 1} : std::array<std::uint32_t, 3>{256, 1, 1};
    c.iters = 3;
    bench::LaplacianSlabs one({all.front()}, c, Options{});
    one.run();
    const std::vector<double> want = one.gather();
    const std::vector<double> ref = bench::LaplacianSlabs::reference(c, c.iters);
    double worst = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) worst = std::max(worst, std::abs(want[i] - ref[i]));
    EXPECT_LT(worst, 1e-12) << "one GPU against the host's steps";
    for (std::size_t n = 2; n <= all.size(); ++n) {
      SCOPED_TRACE(std::to_string(n) + " GPUs");
      const std::vector<Device> used(all.begin(), all.begin() + n);
      bench::LaplacianSlabs many(used, c, Options{});
      Stats before;
      for (const Device& d : used) before = before + d.stats();
      many.run();
      Stats after;
      for (const Device& d : used) after = after + d.stats();
      EXPECT_EQ((after - before).host_waits, 1u);
      const std::vector<double> got = many.gather();
      EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(double)), 0)
          << "halo route " << many.halo_path();
    }
  }
}

// Recovery from a kernel that never ends, one that faults and one that traps, each case in a
// child process (tests/support/recovery_cases.hpp) on the first GPU backend present.
namespace {
std::string gpu_backend_name() {
  for (const BackendStatus& b : Runtime::probe()) {
    if (b.name != "cpu" && b.available) return b.name;
  }
  return {};
}
std::string recovery_backend() {
  const std::string name = gpu_backend_name();
  if (name.empty()) throw std::runtime_error("no GPU backend");
  return name;
}
}  // namespace

#define HSAD_GPU_RECOVERY(name, body)                                   \
  TEST(GpuRecovery, name) {                                           \
    if (gpu_backend_name().empty()) GTEST_SKIP() << "no GPU backend"; \
    body;                                                             \
  }
HSAD_GPU_RECOVERY(AStuckKernelTimesOutAndTheProcessExitsNormally, hsad::test::check_stuck_exit(recovery_backend()))
HSAD_GPU_RECOVERY(LaterWorkFailsAtOnceOrHonoursItsDeadline, hsad::test::check_stuck_later(recovery_backend()))
HSAD_GPU_RECOVERY(AResetStopsTheStuckKernelAndTheDeviceWorksAgain, hsad::test::check_reset(recovery_backend()))
HSAD_GPU_RECOVERY(AMemoryFaultIsAnErrorNamingItsCommand, hsad::test::check_fault(recovery_backend(), false))
HSAD_GPU_RECOVERY(ATrapIsAnErrorNamingItsCommand, hsad::test::check_fault(recovery_backend(), true))
HSAD_GPU_RECOVERY(AfterAFaultAResetRecoversWhereTheBackendCan, hsad::test::check_fault_reset(recovery_backend()))
TEST(GpuRecovery, ATrapOnACooperativeQueueIsAnErrorAndOtherQueuesGoOn) {
  REQUIRE_GPU();
  if (const std::string refused = test::cooperative_refused_without_gws(device); !refused.empty()) {
    GTEST_SKIP() << "refused by name, as it must be without GWS: " << refused;
  }
  hsad::test::check_cooperative_trap(recovery_backend());
}
HSAD_GPU_RECOVERY(ANewRuntimeWorksOrRefusesAtOnceWhileAKernelIsStuck, hsad::test::check_stuck_new_runtime(recovery_backend()))

// ROCr without the library's system event handler (HSAD_ROCR_FAULT_HANDLER=0) does what it does
// for every HIP program: prints its message and aborts. With the handler (the cases above) the
// same fault is an error.
TEST(GpuRecovery, WithoutTheHandlerROCrAbortsOnAMemoryFault) {
  if (gpu_backend_name() != "rocr") GTEST_SKIP() << "ROCr's memory-fault handling";
  const hsad::test::ChildResult r =
      hsad::test::run_probe("rocr", "fault", {{"HSAD_ROCR_FAULT_HANDLER", "0"}});
  EXPECT_EQ(r.signal, SIGABRT) << r.output;
  EXPECT_NE(r.output.find("Memory access fault by GPU node-"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Page not present or supervisor privilege"), std::string::npos) << r.output;
}
