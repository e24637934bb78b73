// The rocr backend executed through Debian's real ROCr on the simulated GPU (run under
// hsad-sim). What reached the queue is read back from the simulator's packet trace.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <numeric>
#include <random>
#include <sstream>

#include "aql_packets/fence_policy.hpp"
#include "backends/backend.hpp"
#include "bitonic_workload.hpp"
#include "careless_app.hpp"
#include "error_text.hpp"
#include "hsad/hsad.hpp"
#include "laplacian_slabs.hpp"
#include "laplacian_workload.hpp"

using namespace hsad;

namespace {

std::string env(const char* name, const char* fallback = "") {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

// Each test is its own process (gtest_discover_tests): its trace file is set before ROCr loads.
std::string start_trace() {
  const std::string path = "/tmp/hsad_sim_trace_" + std::to_string(getpid());
  setenv("HSAD_SIM_TRACE", path.c_str(), 1);
  return path;
}

struct TraceLine {
  std::map<std::string, std::string> f;
  const std::string& operator[](const std::string& k) const { return f.at(k); }
};

std::vector<TraceLine> read_trace(const std::string& path) {
  std::vector<TraceLine> lines;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    TraceLine t;
    std::istringstream words(line);
    std::string w;
    while (words >> w) {
      const auto eq = w.find('=');
      t.f[w.substr(0, eq)] = w.substr(eq + 1);
    }
    lines.push_back(std::move(t));
  }
  return lines;
}

// The packets of the queue that ran `kernel` (ROCr's own blit queue is left out).
std::vector<TraceLine> queue_of(const std::vector<TraceLine>& all, const std::string& kernel) {
  std::string queue;
  for (const TraceLine& t : all) {
    if (t["kernel"] == kernel) queue = t["queue"];
  }
  std::vector<TraceLine> out;
  for (const TraceLine& t : all) {
    if (t["queue"] == queue) out.push_back(t);
  }
  return out;
}

const Device& rocr_device(std::size_t index = 0) {
  static const Runtime rt = Runtime::open("rocr");
  return rt.device(index);
}

std::vector<std::uint32_t> random_keys(std::size_t n) {
  std::vector<std::uint32_t> k(n);
  std::mt19937 rng(7);
  for (auto& v : k) v = rng();
  return k;
}

bool sorts(const Device& d, std::uint32_t n, const Options& o) {
  auto keys = random_keys(n);
  bench::BitonicWorkload w(d, n, o);
  std::copy(keys.begin(), keys.end(), w.input());
  w.run();
  std::sort(keys.begin(), keys.end());
  return w.output_matches(keys);
}

// One iteration of `w` on random keys: expects them sorted, returns the counters it changed.
Stats sort_counted(bench::BitonicWorkload& w) {
  auto keys = random_keys(w.size());
  std::copy(keys.begin(), keys.end(), w.input());
  const Stats before = rocr_device().stats();
  w.run();
  const Stats s = rocr_device().stats() - before;
  std::sort(keys.begin(), keys.end());
  EXPECT_TRUE(w.output_matches(keys));
  return s;
}

const char* scope_word(aql::Scope s) {
  return s == aql::Scope::system ? "system" : s == aql::Scope::agent ? "agent" : "none";
}

}  // namespace

TEST(HsadSim, TheAgentIsTheSimulatedOne) {
  const DeviceInfo& info = rocr_device().info();
  EXPECT_EQ(info.backend, "rocr");
  EXPECT_EQ(info.isa, env("HSAD_SIM_TARGET", "gfx90a"));
  EXPECT_NE(info.name.find("simulated"), std::string::npos) << info.name;
  const bool rdna = info.isa.rfind("gfx10", 0) == 0 || info.isa.rfind("gfx11", 0) == 0 ||
                    info.isa.rfind("gfx12", 0) == 0;  // wave32 by default
  EXPECT_EQ(info.wavefront_size, rdna ? 32u : 64u);
}

// A global-buffer parameter (the code object's .value_kind) takes memory the GPU reaches: pageable
// host memory is refused when recorded, naming the parameter; ROCr's own memory (hsa_amd_pointer_info
// knows it) and the library's Buffers pass; nothing is dispatched for the refused one.
TEST(HsadSim, AGlobalBufferParameterRefusesMemoryTheGpuDoesNotReach) {
  const Device& d = rocr_device();
  const Kernel k = d.kernel("bitonic_step");
  std::vector<std::uint32_t> pageable(1024);
  Batch b;
  const std::string m = test::error_text([&] { b.exec(k, Dim3{512}, Dim3{64}, {pageable.data(), 0u, 0u, 1u, 1024u}); });
  EXPECT_NE(m.find("argument 0 ("), std::string::npos) << m;
  EXPECT_NE(m.find("is not memory device"), std::string::npos) << m;
  EXPECT_NE(test::error_text([&] { b.exec(k, Dim3{512}, Dim3{64}, {std::uint64_t(0), 0u, 0u, 1u, 1024u}); })
                .find("got a value of 8 bytes"),
            std::string::npos);
  EXPECT_TRUE(b.empty());
  Buffer keys = d.alloc(1024 * 4);
  Buffer pinned = d.alloc(1024 * 4, Memory::pinned_host);
  b.exec(k, Dim3{512}, Dim3{64}, {keys, 0u, 0u, 1u, 1024u});
  b.exec(k, Dim3{512}, Dim3{64}, {static_cast<std::uint32_t*>(pinned.device_ptr()) + 8, 0u, 0u, 1u, 1016u});
  EXPECT_EQ(b.size(), 2u);
}

// Where a kernel's explicit arguments end: code object v4's kernarg segment (v5 and later add the
// hidden arguments after them).
std::uint32_t explicit_end(const KernelInfo& k) {
  std::uint32_t end = 0;
  for (const ArgInfo& a : k.args) {
    if (a.kind != ArgKind::hidden) end = std::max(end, a.offset + a.size);
  }
  return end;
}

TEST(HsadSim, PicksTheCodeObjectOfItsTarget) {
  // The agent's own object, and the device says so (ROCr lists the agent with its features).
  const std::string isa = rocr_device().info().isa;
  EXPECT_EQ(rocr_device().info().code_object, isa + " (built for " + isa + ")");
  const Kernel k = rocr_device().kernel("bitonic_step");
  // The wavefront size comes from the metadata of the code object picked for the agent.
  EXPECT_EQ(k.info().wavefront_size, rocr_device().info().wavefront_size);
  EXPECT_EQ(explicit_end(k.info()), 24u);  // a pointer and four u32
  EXPECT_GE(k.info().kernarg_segment_size, 24u);
  // bitonic_long's: a pointer and five u32, 28 bytes, where the host build's struct is padded to 32.
  EXPECT_EQ(explicit_end(rocr_device().kernel("bitonic_long").info()), 28u);
  EXPECT_TRUE(sorts(rocr_device(), 4096, Options::parse("all")));
}

// --algo lds across chunks, on the simulated GPU's machine code (s_barrier between passes,
// ds_read/ds_write) or the host builds. 16384 keys in 4096-key chunks (two pairs per work-item):
// stages 12 and 13 each as long passes in registers and a local merge, 5 dispatches; in the
// default 1024-key chunks (one pair per item): 10.
TEST(HsadSim, BitonicLdsSortsAcrossChunks) {
  const std::uint32_t n = 16384;
  for (const auto& [chunk_log2, dispatches] : {std::pair{12u, 5u}, std::pair{0u, 10u}}) {
    SCOPED_TRACE("chunk 2^" + std::to_string(chunk_log2));
    bench::BitonicWorkload w(rocr_device(), n, Options{}, bench::BitonicWorkload::Copies::in_batch,
                             bench::BitonicWorkload::Algo::lds, chunk_log2);
    EXPECT_EQ(w.dispatches(), dispatches);
    const Stats s = sort_counted(w);
    EXPECT_EQ(s.copies, 2u);
    EXPECT_EQ(s.host_waits, 1u);
  }
}

// For every flag: the barrier bits and fence scopes the fence policy specifies reached the
// queue, and the library's counters agree with the trace.
class HsadSimFlags : public ::testing::TestWithParam<const char*> {};

TEST_P(HsadSimFlags, TraceShowsTheFencePolicyAndCountersAgree) {
  const std::string path = start_trace();
  const Options o = Options::parse(GetParam());
  const std::uint32_t n = 1024;  // 55 dispatches
  bench::BitonicWorkload w(rocr_device(), n, o);
  const Stats s = sort_counted(w);

  const std::vector<TraceLine> q = queue_of(read_trace(path), "bitonic_step");
  std::vector<TraceLine> dispatches;
  for (const TraceLine& t : q) {
    if (t["type"] == "kernel_dispatch") dispatches.push_back(t);
  }
  ASSERT_EQ(dispatches.size(), 55u);
  std::uint64_t system_scopes = 0, signalled = 0;
  for (std::size_t i = 0; i < dispatches.size(); ++i) {
    const aql::Fences f = aql::fences_for(i, dispatches.size(), o.fence);
    SCOPED_TRACE("dispatch " + std::to_string(i));
    EXPECT_EQ(dispatches[i]["barrier"], "1");
    EXPECT_EQ(dispatches[i]["acquire"], scope_word(f.acquire));
    EXPECT_EQ(dispatches[i]["release"], scope_word(f.release));
    EXPECT_EQ(dispatches[i]["kernel"], "bitonic_step");
    system_scopes += (dispatches[i]["acquire"] == "system") + (dispatches[i]["release"] == "system");
    signalled += dispatches[i]["signal"] == "1";
  }
  EXPECT_EQ(s.packets, q.size());
  EXPECT_EQ(s.system_fences, system_scopes);
  EXPECT_EQ(signalled, o.nosync ? 1u : 55u);  // one completion signal per batch, or per dispatch
  EXPECT_EQ(s.doorbells, o.nosync ? 1u : 55u);
  EXPECT_EQ(s.host_waits, o.nosync ? 1u : 55u);
  std::remove(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(EveryRow, HsadSimFlags,
                         ::testing::Values("none", "signal", "signal,kernarg", "signal,kernarg,nosync",
                                           "signal,kernarg,nosync,fence", "all"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), ',', '_');
                           return n;
                         });

TEST(HsadSim, LaplacianKernelsMatchTheCpuReference) {
  for (int kernel : {5, 6, 7, 8}) {
    bench::LaplacianConfig c;
    c.nx = 37, c.ny = 29, c.nz = 11, c.kernel = kernel, c.split = kernel == 7 ? 3 : 1, c.m = 4, c.iters = 2;
    bench::LaplacianWorkload w(rocr_device(), c, Options::parse("all"));
    w.run();
    const auto check = w.verify();
    EXPECT_LT(check.max_abs_error, 1e-9) << "kernel " << kernel;
    EXPECT_TRUE(check.boundary_untouched) << "kernel " << kernel;
  }
}

TEST(HsadSim, PinnedAndPageableCopiesMoveTheRightBytes) {
  const Device& d = rocr_device();
  const std::size_t bytes = (1 << 20) + 13;  // not a multiple of 4: ROCr's misaligned blit path too
  std::vector<unsigned char> src(bytes), back(bytes, 0);
  std::iota(src.begin(), src.end(), 0);
  Buffer dev = d.alloc(bytes);
  Buffer pinned = d.alloc(bytes, Memory::pinned_host);
  const Stats before = d.stats();
  d.copy_to_device(dev, src.data(), bytes);   // pageable: locked for the copy
  d.copy_to_host(back.data(), dev, bytes);
  EXPECT_EQ(back, src);
  const Stats pageable = d.stats() - before;
  EXPECT_EQ(pageable.bytes_staged, 2 * bytes);

  std::memcpy(pinned.host_as<unsigned char>(), src.data(), bytes);
  Buffer dev2 = d.alloc(bytes);
  const Stats before_pinned = d.stats();
  d.copy_to_device(dev2, pinned.host_as<unsigned char>(), bytes);  // pinned: straight to the copy engine
  std::memset(pinned.host_as<unsigned char>(), 0, bytes);
  d.copy_to_host(pinned.host_as<unsigned char>(), dev2, bytes);
  EXPECT_EQ(std::memcmp(pinned.host_as<unsigned char>(), src.data(), bytes), 0);
  EXPECT_EQ((d.stats() - before_pinned).bytes_staged, 0u);
  // An odd offset: ROCr picks its misaligned copy kernel.
  d.copy_to_device(dev, src.data() + 1, 4097, 3);
  std::vector<unsigned char> part(4097);
  d.copy_to_host(part.data(), dev, 4097, 3);
  EXPECT_TRUE(std::equal(part.begin(), part.end(), src.begin() + 1));
}

TEST(HsadSim, EveryGpuIsFoundAndRunsItsOwnQueue) {
  const std::size_t gpus = std::stoul(env("HSAD_SIM_GPUS", "1"));
  const std::string path = start_trace();
  const Runtime rt = Runtime::open("rocr");
  ASSERT_EQ(rt.devices().size(), gpus);
  for (const Device& d : rt.devices()) EXPECT_TRUE(sorts(d, 2048, Options::parse("all")));
  std::map<std::string, int> queues;
  for (const TraceLine& t : read_trace(path)) {
    if (t["kernel"] == "bitonic_step") ++queues[t["queue"]];
  }
  EXPECT_EQ(queues.size(), gpus);  // one queue per device, each with the whole sort
  for (const auto& [q, count] : queues) EXPECT_EQ(count, 66) << "queue " << q;
  std::remove(path.c_str());
}

// Device::can_access_peer on rocr also opens the other GPU's memory to this GPU's kernels, as
// cuCtxEnablePeerAccess does on cuda: before it, GPU 1's Buffer as an argument of a GPU 0 kernel
// is refused when recorded (ROCr has not mapped it for GPU 0's agent: on an AMD GPU the kernel
// would fault); after it, memory GPU 1 allocated before and after both pass, and GPU 0's kernel
// writes them.
// Memory::device_fine_grained as an application may misuse it: on one simulated GPU (no XGMI
// hive, no fine-grained pool) it is refused naming the kind and how to get one; where it exists
// it is device memory (no host pointer), another GPU's kernel stores into it, and what it stored
// is read back, the cache model leaving it in memory.
TEST(HsadSim, FineGrainedMemoryWithoutAPoolIsRefusedByName) {
  if (std::stoul(env("HSAD_SIM_GPUS", "1")) != 1) GTEST_SKIP() << "two or more simulated GPUs form a hive with the pool";
  try {
    (void)rocr_device(0).alloc(4096, Memory::device_fine_grained);
    FAIL() << "a fine-grained allocation without a fine-grained pool was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::unsupported) << e.what();
    EXPECT_NE(std::string(e.what()).find("Memory::device_fine_grained"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("HSA_FORCE_FINE_GRAIN_PCIE"), std::string::npos) << e.what();
  }
}

TEST(HsadSimPeers, CanAccessPeerOpensTheOtherGpusMemoryToThisOnesKernels) {
  if (std::stoul(env("HSAD_SIM_GPUS", "1")) < 2) GTEST_SKIP() << "one simulated GPU: run under hsad-sim --gpus 2";
  const Device& d0 = rocr_device(0);
  const Device& d1 = rocr_device(1);
  constexpr unsigned long long kCount = 300;
  std::vector<double> values(kCount);
  std::iota(values.begin(), values.end(), 0.5);
  Buffer src = d0.alloc(kCount * 8);
  d0.copy_to_device(src, values.data(), kCount * 8);
  Buffer early = d1.alloc(kCount * 8);
  const Kernel copy = d0.kernel("hsad_copy_f64");
  Batch refused;
  const std::string m = test::error_text([&] { refused.exec(copy, Dim3{kCount}, Dim3{64}, {early, src, kCount}); });
  EXPECT_NE(m.find("argument 0 ("), std::string::npos) << m;
  EXPECT_NE(m.find("is not memory device"), std::string::npos) << m;
  ASSERT_TRUE(d0.can_access_peer(d1));
  Buffer late = d1.alloc(kCount * 8);
  Batch b;
  b.exec(copy, Dim3{kCount}, Dim3{64}, {early, src, kCount}).exec(copy, Dim3{kCount}, Dim3{64}, {late, src, kCount});
  Queue q = d0.create_queue();
  q.run(b);
  for (const Buffer* written : {&early, &late}) {
    std::vector<double> got(kCount);
    d1.copy_to_host(got.data(), *written, kCount * 8);
    EXPECT_EQ(got, values);
  }
  // The grant is one way: GPU 0's memory is still closed to GPU 1's kernels.
  Batch back;
  EXPECT_NE(test::error_text([&] { back.exec(d1.kernel("hsad_copy_f64"), Dim3{kCount}, Dim3{64}, {src, early, kCount}); })
                .find("is not memory device"),
            std::string::npos);
}

// After the test above, which must see the peer refused before can_access_peer opens it.
TEST(HsadSimPeers, FineGrainedMemoryTakesAnotherGpusStores) {
  if (std::stoul(env("HSAD_SIM_GPUS", "1")) < 2) GTEST_SKIP() << "one simulated GPU: run under hsad-sim --gpus 2";
  const Device& d0 = rocr_device(0);
  const Device& d1 = rocr_device(1);
  constexpr unsigned long long kCount = 333;  // a partial last work-group
  std::vector<double> values(kCount);
  std::iota(values.begin(), values.end(), 1.25);
  Buffer src = d0.alloc(kCount * 8);
  d0.copy_to_device(src, values.data(), kCount * 8);
  Buffer fine = d1.alloc(kCount * 8, Memory::device_fine_grained);
  EXPECT_EQ(fine.host_ptr(), nullptr);  // device memory: the host reaches it by copies
  ASSERT_TRUE(d0.can_access_peer(d1));
  Batch b;
  b.exec(d0.kernel("hsad_copy_f64"), Dim3{kCount}, Dim3{64}, {fine, src, kCount});
  Queue q = d0.create_queue();
  q.run(b);
  std::vector<double> got(kCount);
  d1.copy_to_host(got.data(), fine, kCount * 8);
  EXPECT_EQ(got, values);
}

// A queue of 2 packets (the least the library takes) is made at ROCr's least (ROCr refused it
// with an INVALID_ARGUMENT blamed on the size's being no power of two); a cooperative queue's
// size is checked as an ordinary one's (3 was taken).
TEST(HsadSim, QueueSizesAreCheckedAlikeAndRaisedToROCrsLeast) {
  Queue two = rocr_device().create_queue(2);
  EXPECT_GE(two.size(), 2u);
  EXPECT_EQ(two.size() & (two.size() - 1), 0u) << two.size();
  for (const auto& make : {std::function<void()>([] { (void)rocr_device().create_queue(3); }),
                           std::function<void()>([] { (void)rocr_device().create_cooperative_queue(3); })}) {
    EXPECT_NE(test::error_text(make).find("queue size 3 is not a power of two"), std::string::npos) << test::error_text(make);
  }
}

TEST(HsadSim, AFullRingMakesTheSubmitterWait) {
  Queue small = rocr_device().create_queue(64);
  const Kernel k = rocr_device().kernel("bitonic_step");
  const std::uint32_t n = 1 << 12;
  auto keys = random_keys(n);
  Buffer buf = rocr_device().alloc(n * 4);
  rocr_device().copy_to_device(buf, keys.data(), n * 4);
  Batch b;
  for (std::uint32_t stage = 0; stage < 12; ++stage) {
    for (std::uint32_t pass = 0; pass <= stage; ++pass) b.exec(k, Dim3{n / 2}, Dim3{256}, {buf, stage, pass, 1u, n});
  }
  for (int repeat = 0; repeat < 4; ++repeat) {  // 4 x 78 dispatches through a 64-packet ring
    rocr_device().copy_to_device(buf, keys.data(), n * 4);
    small.run(b, Options::parse("all"));
  }
  std::vector<std::uint32_t> out(n);
  rocr_device().copy_to_host(out.data(), buf, n * 4);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(out, keys);
}

TEST(HsadSim, AWrongArgumentCountIsRefused) {
  Batch b;
  try {
    b.exec(rocr_device().kernel("bitonic_step"), Dim3{256}, Dim3{256}, {1u, 2u});
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("wrong argument count: got 2, kernel 'bitonic_step' takes 5"), std::string::npos)
        << e.what();
  }
}

TEST(HsadSim, AMissingCodeObjectForTheTargetIsRefused) {
  // Only another target's code object: the agent's ISA has no match.
  std::ifstream in(HSAD_AMD_BUNDLE, std::ios::binary);
  const std::string bundle((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string other = rocr_device().info().isa == "gfx908" ? "gfx90a" : "gfx908";
  const std::string path = "/tmp/hsad_other_" + std::to_string(getpid()) + ".co";
  std::ofstream(path, std::ios::binary) << select_code_object(bundle, other);
  setenv("HSAD_AMD_CODE_OBJECTS", path.c_str(), 1);
  try {
    (void)rocr_device().kernel("bitonic_step");
    FAIL() << "loaded a kernel without a code object for " << rocr_device().info().isa;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no code object for " + rocr_device().info().isa + " (have: " + other + ")"),
              std::string::npos)
        << e.what();
  }
  std::remove(path.c_str());
}

// Run with hsad-sim --fault 3: the third user dispatch faults as a wave trap; ROCr calls the
// queue's error callback, and the waiter gets that error long before its timeout (no hang, no
// abort). A batch on a new queue then works.
TEST(HsadSimFault, TheFaultReachesTheWaiterAndANewQueueWorks) {
  if (env("HSAD_SIM_FAULT").empty()) GTEST_SKIP() << "run under hsad-sim --fault N";
  const Device& d = rocr_device();
  const Kernel k = d.kernel("bitonic_step");
  Buffer keys = d.alloc(1024 * 4);
  Batch b;
  for (std::uint32_t pass = 0; pass < 8; ++pass) b.exec(k, Dim3{512}, Dim3{256}, {keys, 3u, pass % 4, 1u, 1024u});
  const auto start = std::chrono::steady_clock::now();
  {
    Queue q = d.create_queue();
    try {
      q.run(b, Options::parse("all"), std::chrono::seconds(20));
      FAIL() << "the faulting batch completed";
    } catch (const Error& e) {
      EXPECT_EQ(e.backend(), "rocr");
      EXPECT_NE(std::string(e.what()).find("the queue stopped: HSA_STATUS_ERROR_EXCEPTION"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));  // the callback, not the timeout
  EXPECT_TRUE(sorts(d, 1024, Options::parse("all")));  // a new queue works
}

// The seed's whole iteration as one submission: ROCr's async copies chained to the dispatches by
// signals and a barrier-AND packet, one host wait.
TEST(HsadSimBatch, CopyInSortCopyOutIsOneSubmission) {
  const std::string path = start_trace();
  for (const char* flags : {"all", "signal,kernarg,nosync,fence"}) {  // pinned, then pageable host memory
    SCOPED_TRACE(flags);
    const Options o = Options::parse(flags);
    const std::uint32_t n = 1024;
    bench::BitonicWorkload w(rocr_device(), n, o, bench::BitonicWorkload::Copies::in_batch);
    const Stats s = sort_counted(w);
    EXPECT_EQ(s.host_waits, 1u);
    EXPECT_EQ(s.doorbells, 1u);
    EXPECT_EQ(s.copies, 2u);
    EXPECT_EQ(s.packets, 55u + 1u);  // the dispatches, and the barrier-AND that waits for the copy in
    EXPECT_EQ(s.bytes_staged, o.pinned ? 0u : 2u * n * 4);
    // system scope: the barrier-AND's acquire after the copy in, the last dispatch's release
    // before the copy out.
    EXPECT_EQ(s.system_fences, 2u);
  }
  const std::vector<TraceLine> q = queue_of(read_trace(path), "bitonic_step");
  ASSERT_FALSE(q.empty());
  EXPECT_EQ(q.front()["type"], "barrier_and");
  EXPECT_EQ(q.front()["acquire"], "system");
  std::remove(path.c_str());
}

TEST(HsadSimBatch, TheBaselineWaitsAfterEveryCommand) {
  const std::uint32_t n = 256;
  bench::BitonicWorkload w(rocr_device(), n, Options::none(), bench::BitonicWorkload::Copies::in_batch);
  const Stats s = sort_counted(w);
  EXPECT_EQ(s.host_waits, 36u + 2u);
}

TEST(HsadSimBatch, DeviceToDeviceAndOffsets) {
  const Device& d = rocr_device();
  const std::size_t bytes = 100003;
  std::vector<unsigned char> src(bytes), back(bytes);
  std::iota(src.begin(), src.end(), 3);
  Buffer a = d.alloc(bytes), b = d.alloc(bytes + 64);
  Batch batch;
  batch.copy_to_device(a, src.data(), bytes).copy(b, a, bytes, 5).copy_to_host(back.data(), b, bytes, 5);
  d.create_queue().run(batch, Options{});
  EXPECT_EQ(back, src);
}

TEST(HsadSimBatch, ACopyBetweenBackendsIsRefused) {
  const Device cpu = Runtime::open("cpu").device();
  Buffer gpu_buf = rocr_device().alloc(256), cpu_buf = cpu.alloc(256);
  Batch b;
  try {
    b.copy(gpu_buf, cpu_buf, 256);
    FAIL() << "recorded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a copy between devices of different backends (cpu to rocr)"), std::string::npos)
        << e.what();
  }
  std::vector<char> host(256);
  b.copy_to_host(host.data(), gpu_buf, 256);
  try {
    cpu.create_queue().run(b, Options{});
    FAIL() << "a rocr copy ran on a cpu queue";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the batch names device"), std::string::npos) << e.what();
  }
}

// A producer and a consumer on two queues (or, under hsad-sim --gpus 2, two GPUs): the
// consumer's copy of the keys, which starts after a barrier-AND on the producer's signal, sees
// them sorted; nobody waited on the host in between.
TEST(HsadSimWaits, TheConsumerSeesTheProducersResult) {
  const std::string path = start_trace();
  const Runtime rt = Runtime::open("rocr");
  const Device& producer_device = rt.device(0);
  const Device& consumer_device = rt.device(rt.devices().size() - 1);
  const std::uint32_t n = 1u << 13;  // 91 dispatches: long enough to still run when the consumer starts
  auto keys = random_keys(n);
  Buffer keys_buf = producer_device.alloc(n * 4);
  producer_device.copy_to_device(keys_buf, keys.data(), n * 4);
  Batch producer;
  const Kernel step = producer_device.kernel("bitonic_step");
  for (std::uint32_t stage = 0; stage < 13; ++stage) {
    for (std::uint32_t pass = 0; pass <= stage; ++pass) producer.exec(step, Dim3{n / 2}, Dim3{256}, {keys_buf, stage, pass, 1u, n});
  }
  Buffer out = consumer_device.alloc(n * 4);
  Buffer host = consumer_device.alloc(n * 4, Memory::pinned_host);
  Queue pq = producer_device.create_queue(), cq = consumer_device.create_queue();
  const Stats before = producer_device.stats() + (&producer_device == &consumer_device ? Stats{} : consumer_device.stats());
  Submission p = pq.submit(producer, Options{});
  Batch consumer;
  consumer.wait(p).copy(out, keys_buf, n * 4).copy_to_host(host.host_ptr(), out, n * 4);
  Submission c = cq.submit(consumer, Options{});
  const Stats after = producer_device.stats() + (&producer_device == &consumer_device ? Stats{} : consumer_device.stats());
  EXPECT_EQ((after - before).host_waits, 0u);
  EXPECT_EQ((after - before).device_waits, 1u);
  c.wait();
  p.wait();
  std::sort(keys.begin(), keys.end());
  EXPECT_TRUE(std::equal(keys.begin(), keys.end(), host.host_as<std::uint32_t>())) << "the consumer copied unsorted keys";
  std::remove(path.c_str());
}

TEST(HsadSimTimestamps, ROCrsProfilingTimesEveryDispatchAndCopy) {
  const std::uint32_t n = 256;
  Options o = Options{};
  o.profile = true;
  bench::BitonicWorkload w(rocr_device(), n, o, bench::BitonicWorkload::Copies::in_batch);
  auto keys = random_keys(n);
  std::copy(keys.begin(), keys.end(), w.input());
  Submission s = w.submit();
  s.wait();
  const std::vector<CommandTime> t = s.timestamps();
  ASSERT_EQ(t.size(), 36u + 2u);
  EXPECT_EQ(t.front().what, "copy_to_device");
  EXPECT_EQ(t[1].what, "bitonic_step");
  EXPECT_EQ(t.back().what, "copy_to_host");
  for (std::size_t i = 0; i < t.size(); ++i) {
    EXPECT_GT(t[i].start_ns, 0u) << i;
    EXPECT_LE(t[i].start_ns, t[i].end_ns) << i;
    if (i) {
      EXPECT_GE(t[i].start_ns, t[i - 1].end_ns) << "command " << i << " started before the one before ended";
    }
  }
  std::sort(keys.begin(), keys.end());
  EXPECT_TRUE(w.output_matches(keys));
}

namespace {
std::string module_path(const char* name) { return std::string(HSAD_MODULES_DIR) + "/" + name; }

// The library's 120-dispatch sort of 2^15 keys with `step`, copies in the batch.
Batch sort_batch(const Kernel& step, const Buffer& keys, void* host, std::uint32_t n) {
  Batch b;
  b.copy_to_device(keys, host, n * 4);
  std::uint32_t stages = 0;
  while ((1u << stages) < n) ++stages;
  for (std::uint32_t stage = 0; stage < stages; ++stage) {
    for (std::uint32_t pass = 0; pass <= stage; ++pass) b.exec(step, Dim3{n / 2}, Dim3{256}, {keys, stage, pass, 1u, n});
  }
  b.copy_to_host(host, keys, n * 4);
  return b;
}
}  // namespace

TEST(HsadSimModule, ABundlesEntryForTheAgentIsLoadedWithItsKernels) {
  const Module m = rocr_device().load_module(module_path("bundle.hsaco"));
  EXPECT_EQ(TargetId::parse(m.target()).processor, rocr_device().info().isa);
  EXPECT_EQ(m.origin(), module_path("bundle.hsaco"));
  EXPECT_EQ(m.kernel_names(), (std::vector<std::string>{"module_add", "module_add_one", "module_add_one_3d", "module_add_one_global_id",
                                                        "module_scale"}));
  const Kernel k = m.kernel("module_scale");
  EXPECT_EQ(k.info().explicit_arg_count(), 3u);
  EXPECT_EQ(explicit_end(k.info()), 16u);
  EXPECT_EQ(k.info().wavefront_size, rocr_device().info().wavefront_size);
}

TEST(HsadSimModule, AnotherTargetsCodeObjectIsRefusedNamingWhatItHas) {
  const bool is_908 = rocr_device().info().isa == "gfx908";
  const std::string path = module_path(is_908 ? "xnack.hsaco" : "gfx908.hsaco");
  const std::string m = test::error_text([&] { rocr_device().load_module(path); });
  EXPECT_NE(m.find("has no code object for " + rocr_device().info().isa), std::string::npos) << m;
  EXPECT_NE(m.find(is_908 ? "(it has: gfx90a:xnack+, gfx90a:xnack-)" : "(it has: gfx908)"), std::string::npos) << m;
}

TEST(HsadSimModule, AKernelTheModuleLacksIsRefusedListingItsKernels) {
  const Module m = rocr_device().load_module(module_path("bundle.hsaco"));
  const std::string e = test::error_text([&] { m.kernel("module_missing"); });
  EXPECT_NE(e.find("no kernel named 'module_missing' in module '" + module_path("bundle.hsaco") +
                   "' (it has: module_add, module_add_one, module_add_one_3d, module_add_one_global_id, module_scale)"),
            std::string::npos)
      << e;
}

TEST(HsadSimModule, TruncatedAndForeignCodeIsRefused) {
  std::ifstream in(module_path("gfx908.hsaco"), std::ios::binary);
  const std::string elf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string half = elf.substr(0, elf.size() / 2);
  const std::string m = test::error_text([&] { rocr_device().load_module(half.data(), half.size()); });
  EXPECT_NE(m.find("'<memory>': malformed code object"), std::string::npos) << m;
  const std::string ptx = "//\n.version 8.0\n.target sm_80\n.address_size 64\n";
  EXPECT_NE(test::error_text([&] { rocr_device().load_module(ptx.data(), ptx.size()); }).find("is PTX: NVIDIA code cannot run on"),
            std::string::npos);
}

// The library's own bundle loaded again as an application's module: its kernels run beside the
// library's kernels of the same names (two executables, one name).
TEST(HsadSimModule, ModulesCoexistWithTheLibrarysKernels) {
  const Module m = rocr_device().load_module(HSAD_AMD_BUNDLE);
  const std::uint32_t n = 1u << 12;
  for (const Kernel& step : {m.kernel("bitonic_step"), rocr_device().kernel("bitonic_step")}) {
    auto keys = random_keys(n);
    Buffer buf = rocr_device().alloc(n * 4);
    rocr_device().create_queue().run(sort_batch(step, buf, keys.data(), n), Options{});
    EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  }
  EXPECT_NE(m.kernel("bitonic_step").impl().kernel_object, rocr_device().kernel("bitonic_step").impl().kernel_object);
}

// Module, kernel and batch released while a submission that dispatches the module's kernel is
// still queued behind other work: the code stays loaded until that submission completed. (The
// simulated GPU finds a kernel by the code object ROCr's loader placed: freed code would make
// the dispatch fail.)
TEST(HsadSimModule, CodeOutlivesItsModuleWhileASubmissionRunsIt) {
  const std::uint32_t n = 1u << 15;
  auto keys = random_keys(n);
  auto first = random_keys(1u << 16);
  Buffer buf = rocr_device().alloc(n * 4), busy = rocr_device().alloc(first.size() * 4);
  Queue q = rocr_device().create_queue();
  Submission ahead = q.submit(sort_batch(rocr_device().kernel("bitonic_step"), busy, first.data(), 1u << 16), Options{});
  Submission s;
  {
    const Module m = rocr_device().load_module(HSAD_AMD_BUNDLE);
    const Batch b = sort_batch(m.kernel("bitonic_step"), buf, keys.data(), n);
    s = q.submit(b, Options{});
  }  // the module, its kernel and the batch are gone; the submission is queued behind `ahead`
  s.wait();
  ahead.wait();
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
}

// Run with hsad-sim --fault N: an async copy that waits for a dispatch of a queue that faults
// would block ROCr's copy engine (which every queue shares) for good; the failed submission
// releases it, so later copies, and the loader's (a module), still work.
TEST(HsadSimFaultCopies, ACopyBehindAFaultDoesNotBlockLaterCopies) {
  if (env("HSAD_SIM_FAULT").empty()) GTEST_SKIP() << "run under hsad-sim --fault N";
  const Device& d = rocr_device();
  const std::uint32_t n = 1024;
  auto keys = random_keys(n);
  Buffer buf = d.alloc(n * 4);
  Batch b = sort_batch(d.kernel("bitonic_step"), buf, keys.data(), n);
  EXPECT_THROW(d.create_queue().run(b, Options{}, std::chrono::seconds(20)), Error);
  std::vector<std::uint32_t> back(n);
  d.copy_to_device(buf, keys.data(), n * 4);
  d.copy_to_host(back.data(), buf, n * 4);
  EXPECT_EQ(back, keys);
  EXPECT_NO_THROW(d.load_module(module_path("bundle.hsaco")));
  EXPECT_TRUE(sorts(d, 1024, Options{}));
}

// The Laplacian's slabs over every simulated GPU (hsad-sim --gpus 2): each packet's fences as
// the rule says. A dispatch releases at system scope exactly where another agent reads what it
// wrote (the copy engine pushing a boundary plane, or whoever waits for its submission's end):
// those are the dispatches carrying a signal; every other dispatch keeps agent scope. Only a
// submission's first packet acquires at system scope (the host wrote before it): step 0's
// interior; later ones start with a barrier-AND that does, and their dispatches follow it.
TEST(HsadSimSlabs, DispatchesReleaseAtSystemScopeOnlyWhereAnotherAgentReads) {
  const std::string path = start_trace();
  const Runtime rt = Runtime::open("rocr");
  if (rt.devices().size() < 2) GTEST_SKIP() << "one simulated GPU: HsadSim.TwoGpus.SlabFences runs this under --gpus 2";
  bench::LaplacianConfig c;
  c.nx = 20, c.ny = 12, c.nz = 9, c.kernel = 7, c.split = 2, c.m = 4, c.iters = 2;
  bench::LaplacianSlabs w(rt.devices(), c, Options{});
  const Stats before = rt.device(0).stats() + rt.device(1).stats();
  w.run();
  const Stats s = rt.device(0).stats() + rt.device(1).stats() - before;
  EXPECT_EQ(s.host_waits, 1u) << "the host waited between steps";
  std::size_t system = 0, agent = 0, barriers_waiting_for_others = 0;
  for (const TraceLine& t : read_trace(path)) {
    if (t["type"] == "barrier_and" && t["acquire"] == "system") ++barriers_waiting_for_others;
    if (t["kernel"].rfind("laplacian7", 0) != 0) continue;
    SCOPED_TRACE("queue " + t["queue"] + " packet " + t["packet"]);
    EXPECT_EQ(t["acquire"], t["packet"] == "0" ? "system" : "agent");
    EXPECT_EQ(t["release"], t["signal"] == "1" ? "system" : "agent");
    ++(t["release"] == "system" ? system : agent);
  }
  // Per step and device: the boundary plane (2 dispatches, the second before the push) and the
  // interior (2, the second ending its submission): half at each scope, but for the last step's
  // interior on the first GPU, whose submission ends with a barrier-AND (waiting for the other
  // queues' last step) that releases for it.
  EXPECT_EQ(system, 2u * 2 * c.iters - 1);
  EXPECT_EQ(agent, 2u * 2 * c.iters + 1);
  EXPECT_GT(barriers_waiting_for_others, 0u);
  std::remove(path.c_str());
}

TEST(HsadSimBatch, ACopyThatStartsABatchWaitsForTheQueuesEarlierSubmissions) {
  // Submissions on one queue run in order, as a stream's do: a batch that begins with an async
  // copy (the driver's copy engine, not the ring) must still wait for the work submitted before.
  if (env("HSAD_SIM_EXEC") == "host") GTEST_SKIP() << "a module's kernel runs only as machine code";
  const Kernel add_one = rocr_device().load_module(std::string(HSAD_MODULES_DIR) + "/bundle.hsaco").kernel("module_add_one");
  constexpr std::uint32_t n = 4096;
  const std::vector<std::uint32_t> zeros(n, 0);
  // The second batch nosync with pinned and with pageable memory, then the baseline (host waits).
  for (const char* flags : {"all", "signal,kernarg,nosync,fence", "none"}) {
    SCOPED_TRACE(flags);
    const Options o = Options::parse(flags);
    Buffer buf = rocr_device().alloc(n * 4);
    std::vector<std::uint32_t> out(n, 0);
    Batch first, second;
    first.copy_to_device(buf, zeros.data(), n * 4);
    for (int i = 0; i < 20; ++i) first.exec(add_one, Dim3{n}, Dim3{256}, {buf, n});
    second.copy_to_host(out.data(), buf, n * 4);
    Queue q = rocr_device().create_queue();
    Submission a = q.submit(first, Options{});
    Submission b = q.submit(second, o);
    b.wait();
    a.wait();
    EXPECT_EQ(std::count(out.begin(), out.end(), 20u), std::ptrdiff_t(n)) << "first " << out[0];
  }
}

// The careless application (tests/support/careless_app.hpp) against ROCr on the simulated GPU,
// the kernel as machine code from an application's module: shorter than on the cpu agent.
TEST(HsadSimIsaCarelessApp, GetsWhatTheModelSays) {
  if (env("HSAD_SIM_EXEC") == "host") GTEST_SKIP() << "a module's kernel runs only as machine code";
  const Module m = rocr_device().load_module(module_path("bundle.hsaco"));
  for (std::uint32_t seed = 1; seed <= 2; ++seed) {
    test::run_careless_app(rocr_device(), m.kernel("module_add"), {seed, 120, 77});
    if (HasFatalFailure()) return;
  }
}
