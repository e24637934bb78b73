// ROCr's cooperative queue on the simulated GPU, through HSA alone (what HIP's cooperative
// launches rest on, without HIP): the agent says it has cooperative queues, the queue ROCr makes
// of type COOPERATIVE gets the device's GWS from the simulated KFD, and on it ockl's grid barrier,
// armed by ds_gws_init as CLR arms it, holds every work-group until all arrived. The same kernel
// on an ordinary queue stops that queue with an error instead of hanging, and a grid too large to
// be resident at once is refused. Runs under ASan in the sanitizer stage, where the HIP programs
// cannot.
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "aql_packets/hidden_args.hpp"
#include "file_bytes.hpp"
#include "grid_rounds.hpp"
#include "hsad/code_object.hpp"

namespace {

#define HSA_OK(call) ASSERT_EQ((call), HSA_STATUS_SUCCESS) << #call

bool host_builds() {
  const char* e = std::getenv("HSAD_SIM_EXEC");
  return e && std::string(e) == "host";
}

// hsa_init / hsa_shut_down, and what the tests need of the first GPU.
class Hsa {
 public:
  Hsa() { ok_ = hsa_init() == HSA_STATUS_SUCCESS; }
  ~Hsa() {
    if (ok_) hsa_shut_down();
  }
  Hsa(const Hsa&) = delete;
  Hsa& operator=(const Hsa&) = delete;
  bool ok() const { return ok_; }

  std::vector<hsa_agent_t> gpus() const {
    std::vector<hsa_agent_t> found;
    hsa_iterate_agents(
        [](hsa_agent_t a, void* data) {
          hsa_device_type_t type;
          hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &type);
          if (type == HSA_DEVICE_TYPE_GPU) static_cast<std::vector<hsa_agent_t>*>(data)->push_back(a);
          return HSA_STATUS_SUCCESS;
        },
        &found);
    return found;
  }
  // The GPU's kernarg region: fine-grained memory both sides reach (arguments and data here).
  static hsa_region_t kernarg_region(hsa_agent_t gpu) {
    hsa_region_t found{0};
    hsa_agent_iterate_regions(
        gpu,
        [](hsa_region_t r, void* data) {
          hsa_region_global_flag_t flags;
          if (hsa_region_get_info(r, HSA_REGION_INFO_GLOBAL_FLAGS, &flags) != HSA_STATUS_SUCCESS) return HSA_STATUS_SUCCESS;
          if (!(flags & HSA_REGION_GLOBAL_FLAG_KERNARG)) return HSA_STATUS_SUCCESS;
          *static_cast<hsa_region_t*>(data) = r;
          return HSA_STATUS_INFO_BREAK;
        },
        &found);
    return found;
  }

 private:
  bool ok_ = false;
};

// The interpreter's test kernels (tests/hsad-sim/isa/kernels) loaded for the GPU.
class Kernels {
 public:
  Kernels(hsa_agent_t gpu, const std::string& elf) : gpu_(gpu), elf_(elf) {
    if (hsa_code_object_reader_create_from_memory(elf_.data(), elf_.size(), &reader_) != HSA_STATUS_SUCCESS) return;
    if (hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, &exe_) !=
        HSA_STATUS_SUCCESS) {
      return;
    }
    ok_ = hsa_executable_load_agent_code_object(exe_, gpu, reader_, nullptr, nullptr) == HSA_STATUS_SUCCESS &&
          hsa_executable_freeze(exe_, nullptr) == HSA_STATUS_SUCCESS;
  }
  ~Kernels() {
    if (exe_.handle) hsa_executable_destroy(exe_);
    if (reader_.handle) hsa_code_object_reader_destroy(reader_);
  }
  Kernels(const Kernels&) = delete;
  Kernels& operator=(const Kernels&) = delete;
  bool ok() const { return ok_; }

  // Code object v5 and later (hipcc 7's default) list hidden arguments after the explicit ones, which
  // the dispatcher fills as the code object says (grid and work-group sizes, block counts): here
  // with the library's own planner, as an application using HSA would with its own.
  void fill_hidden(const std::string& name, void* kernarg, std::uint32_t grid, std::uint32_t group) const {
    for (const hsad::CodeObjectKernel& k : hsad::read_code_object(elf_).kernels) {
      if (k.info.name == name) {
        hsad::aql::fill_hidden_args(hsad::aql::plan_hidden_args(k.info), kernarg, hsad::Dim3{grid}, hsad::Dim3{group},
                                    hsad::aql::HiddenContext{});
      }
    }
  }

  // The kernel object and kernarg segment size of `name`; 0 where it has none.
  std::uint64_t object(const std::string& name, std::uint32_t* kernarg_bytes) const {
    hsa_executable_symbol_t s;
    if (hsa_executable_get_symbol_by_name(exe_, (name + ".kd").c_str(), &gpu_, &s) != HSA_STATUS_SUCCESS) return 0;
    std::uint64_t object = 0;
    hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &object);
    hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, kernarg_bytes);
    return object;
  }

 private:
  hsa_agent_t gpu_;
  std::string elf_;
  hsa_code_object_reader_t reader_{0};
  hsa_executable_t exe_{0};
  bool ok_ = false;
};

// Memory from a region, freed when it goes.
struct RegionMemory {
  RegionMemory(hsa_region_t region, std::size_t bytes) {
    if (hsa_memory_allocate(region, bytes, &p) == HSA_STATUS_SUCCESS) std::memset(p, 0, bytes);
  }
  ~RegionMemory() {
    if (p) hsa_memory_free(p);
  }
  RegionMemory(const RegionMemory&) = delete;
  RegionMemory& operator=(const RegionMemory&) = delete;
  void* p = nullptr;
};

struct Signal {
  Signal() { hsa_signal_create(1, 0, nullptr, &s); }
  ~Signal() { hsa_signal_destroy(s); }
  Signal(const Signal&) = delete;
  Signal& operator=(const Signal&) = delete;
  hsa_signal_t s{0};
};

struct Queue {
  Queue(hsa_agent_t gpu, hsa_queue_type32_t type) {
    status = hsa_queue_create(gpu, 1024, type, &Queue::on_error, this, UINT32_MAX, UINT32_MAX, &q);
  }
  ~Queue() {
    if (status == HSA_STATUS_SUCCESS) hsa_queue_destroy(q);
  }
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;
  static void on_error(hsa_status_t s, hsa_queue_t*, void* self) { static_cast<Queue*>(self)->error = s; }

  // One kernel dispatch packet, barrier bit set, system-scope fences; the doorbell rung.
  void dispatch(std::uint64_t object, const void* kernarg, std::uint32_t grid, std::uint16_t group, hsa_signal_t done) {
    const std::uint64_t index = hsa_queue_add_write_index_screlease(q, 1);
    auto* p = static_cast<hsa_kernel_dispatch_packet_t*>(q->base_address) + (index & (q->size - 1));
    std::memset(reinterpret_cast<unsigned char*>(p) + 4, 0, sizeof(*p) - 4);
    p->workgroup_size_x = group;
    p->workgroup_size_y = p->workgroup_size_z = 1;
    p->grid_size_x = grid;
    p->grid_size_y = p->grid_size_z = 1;
    p->kernel_object = object;
    p->kernarg_address = const_cast<void*>(kernarg);
    p->completion_signal = done;
    const std::uint16_t header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                                 (1 << HSA_PACKET_HEADER_BARRIER) |
                                 (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                                 (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    __atomic_store_n(reinterpret_cast<std::uint32_t*>(p), header | (1u << 16), __ATOMIC_RELEASE);  // setup: 1 dimension
    hsa_signal_store_screlease(q->doorbell_signal, std::int64_t(index));
  }

  hsa_status_t status;
  hsa_queue_t* q = nullptr;
  hsa_status_t error = HSA_STATUS_SUCCESS;
};

// Why the simulator stopped the queue on `ring` (its door's own call; see rocr_ring.cpp).
std::string queue_error(const void* ring) {
  using Explain = std::size_t (*)(const void*, char*, std::size_t);
  auto explain = reinterpret_cast<Explain>(dlsym(RTLD_DEFAULT, "hsad_sim_queue_error"));
  char text[1024] = {};
  return explain && explain(ring, text, sizeof text) ? std::string(text) : std::string();
}

constexpr std::uint32_t kGroups = 8, kBlock = 256, kItems = kGroups * kBlock, kRounds = 3;

class HsadSimIsaCooperative : public ::testing::Test {
 protected:
  void SetUp() override {
    if (host_builds()) GTEST_SKIP() << "hsad-sim --exec host runs host builds: these kernels have none";
    ASSERT_TRUE(hsa.ok());
    ASSERT_FALSE(hsa.gpus().empty());
    gpu = hsa.gpus().front();
    char name[64] = {};
    hsa_agent_get_info(gpu, HSA_AGENT_INFO_NAME, name);
    elf = hsad::test::file_bytes(std::string(HSAD_ISA_KERNELS_DIR) + "/isa_" + name + ".co");
    kernels = std::make_unique<Kernels>(gpu, elf);
    ASSERT_TRUE(kernels->ok()) << "the interpreter's test kernels for " << name;
    region = Hsa::kernarg_region(gpu);
    ASSERT_NE(region.handle, 0u);
  }

  // isa_grid_rounds over 8 work-groups on `queue` (after isa_gws_init there when `init`): true, and
  // the result, once it completed; false where the queue reported an error or 20 s passed.
  bool run_rounds(Queue& queue, bool init, std::vector<std::uint32_t>* result, std::uint32_t groups = kGroups) {
    const std::uint32_t items = groups * kBlock;
    std::uint32_t init_bytes = 0, rounds_bytes = 0;
    const std::uint64_t gws_init = kernels->object("isa_gws_init", &init_bytes);
    const std::uint64_t rounds = kernels->object("isa_grid_rounds", &rounds_bytes);
    EXPECT_NE(gws_init, 0u);
    EXPECT_NE(rounds, 0u);
    RegionMemory a(region, items * 4), b(region, items * 4), init_args(region, std::max(init_bytes, 16u)),
        rounds_args(region, std::max(rounds_bytes, 32u));
    std::vector<std::uint32_t> start(items);
    std::iota(start.begin(), start.end(), 1u);
    std::memcpy(a.p, start.data(), items * 4);
    const std::uint32_t value = groups - 1;  // one wave of each work-group waits at the barrier
    std::memcpy(init_args.p, &value, 4);
    struct {
      void* a;
      void* b;
      std::uint32_t n, rounds;
    } args{a.p, b.p, items, kRounds};
    std::memcpy(rounds_args.p, &args, sizeof args);
    kernels->fill_hidden("isa_gws_init", init_args.p, 1, 1);
    kernels->fill_hidden("isa_grid_rounds", rounds_args.p, items, kBlock);
    Signal done;
    if (init) {
      Signal initialised;
      queue.dispatch(gws_init, init_args.p, 1, 1, initialised.s);
      hsa_signal_wait_scacquire(initialised.s, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
    }
    queue.dispatch(rounds, rounds_args.p, items, kBlock, done.s);
    // Up to 20 s, ending at a queue error, which leaves the signal where it was.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (queue.error == HSA_STATUS_SUCCESS && std::chrono::steady_clock::now() < deadline) {
      if (hsa_signal_wait_scacquire(done.s, HSA_SIGNAL_CONDITION_LT, 1, 10'000'000, HSA_WAIT_STATE_BLOCKED) == 0) {
        result->assign(static_cast<std::uint32_t*>(a.p), static_cast<std::uint32_t*>(a.p) + items);
        return true;
      }
    }
    return false;
  }

  Hsa hsa;
  hsa_agent_t gpu{0};
  std::string elf;
  std::unique_ptr<Kernels> kernels;
  hsa_region_t region{0};
};

TEST_F(HsadSimIsaCooperative, TheAgentHasACooperativeQueueWhoseGridBarrierHoldsEveryWorkGroup) {
  bool cooperative = false;
  HSA_OK(hsa_agent_get_info(gpu, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES), &cooperative));
  EXPECT_TRUE(cooperative) << "the simulated KFD reports NumGws";
  Queue queue(gpu, HSA_QUEUE_TYPE_COOPERATIVE);
  ASSERT_EQ(queue.status, HSA_STATUS_SUCCESS) << "ROCr's cooperative queue (it asks KFD for the GWS)";
  std::vector<std::uint32_t> result;
  ASSERT_TRUE(run_rounds(queue, true, &result));
  std::vector<std::uint32_t> start(kItems);
  std::iota(start.begin(), start.end(), 1u);
  EXPECT_EQ(result, hsad::test::grid_rounds(start, kBlock, kRounds));
  EXPECT_EQ(queue.error, HSA_STATUS_SUCCESS);
}

TEST_F(HsadSimIsaCooperative, AGridBarrierOnAnOrdinaryQueueStopsItWithAnError) {
  Queue queue(gpu, HSA_QUEUE_TYPE_MULTI);
  ASSERT_EQ(queue.status, HSA_STATUS_SUCCESS);
  std::vector<std::uint32_t> result;
  EXPECT_FALSE(run_rounds(queue, false, &result)) << "the dispatch must not complete";
  EXPECT_EQ(queue.error, HSA_STATUS_ERROR_EXCEPTION);
  const std::string why = queue_error(queue.q->base_address);
  EXPECT_NE(why.find("'ds_gws_barrier"), std::string::npos) << why;
  EXPECT_NE(why.find("a grid barrier outside a cooperative launch"), std::string::npos) << why;
}

// A barrier made by hand across two GPUs' cooperative queues, and no packet behind either grid:
// each grid's work-groups spin until the other grid's have counted in too, so the two must run
// at once, although the shared worker pool has one thread here (and in the one-CPU stage) and
// that one spins in the first grid: a queue's processor thread runs pool work while its own is
// in flight. Needs hsad-sim --gpus 2; skips on one GPU.
TEST_F(HsadSimIsaCooperative, TwoGpusCooperativeGridsRunSideBySide) {
  const std::vector<hsa_agent_t> gpus = hsa.gpus();
  if (gpus.size() < 2) GTEST_SKIP() << "needs two GPUs (hsad-sim --gpus 2)";
  Kernels second(gpus[1], elf);
  ASSERT_TRUE(second.ok());
  constexpr std::uint32_t groups = 4, items = groups * kBlock;
  std::uint32_t kernarg_bytes = 0;
  const std::uint64_t spin[2] = {kernels->object("isa_grid_spin", &kernarg_bytes),
                                 second.object("isa_grid_spin", &kernarg_bytes)};
  ASSERT_NE(spin[0], 0u);
  ASSERT_NE(spin[1], 0u);
  RegionMemory counter(region, 64), out0(region, items * 4), out1(region, items * 4),
      args0(region, std::max(kernarg_bytes, 32u)), args1(region, std::max(kernarg_bytes, 32u));
  struct {
    void* counter;
    std::uint32_t expected;
    void* out;
  } a0{counter.p, 2 * groups, out0.p}, a1{counter.p, 2 * groups, out1.p};
  std::memcpy(args0.p, &a0, sizeof a0);
  std::memcpy(args1.p, &a1, sizeof a1);
  kernels->fill_hidden("isa_grid_spin", args0.p, items, kBlock);
  second.fill_hidden("isa_grid_spin", args1.p, items, kBlock);
  Queue q0(gpus[0], HSA_QUEUE_TYPE_COOPERATIVE), q1(gpus[1], HSA_QUEUE_TYPE_COOPERATIVE);
  ASSERT_EQ(q0.status, HSA_STATUS_SUCCESS);
  ASSERT_EQ(q1.status, HSA_STATUS_SUCCESS);
  Signal done0, done1;
  q0.dispatch(spin[0], args0.p, items, kBlock, done0.s);
  q1.dispatch(spin[1], args1.p, items, kBlock, done1.s);
  // Each signal in turn, up to 20 s in all.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  auto completes = [&](hsa_signal_t s) {
    while (std::chrono::steady_clock::now() < deadline) {
      if (hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_LT, 1, 10'000'000, HSA_WAIT_STATE_BLOCKED) == 0) return true;
    }
    return false;
  };
  const bool completed = completes(done0.s) && completes(done1.s);
  ASSERT_TRUE(completed) << "the two grids did not run side by side";
  const auto* o0 = static_cast<const std::uint32_t*>(out0.p);
  const auto* o1 = static_cast<const std::uint32_t*>(out1.p);
  EXPECT_EQ(std::vector<std::uint32_t>(o0, o0 + items), std::vector<std::uint32_t>(items, 2 * groups));
  EXPECT_EQ(std::vector<std::uint32_t>(o1, o1 + items), std::vector<std::uint32_t>(items, 2 * groups));
}

// More work-groups than the device holds at once (4096 of 4 waves; gfx90a holds 104 CUs x 32
// waves): a GPU would never complete the grid barrier, so the simulator refuses the dispatch.
// ROCr's cooperative queue is its own, with ROCr's error handler, which aborts: a death test.
TEST_F(HsadSimIsaCooperative, AGridTooLargeToBeResidentTogetherIsRefused) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // ROCr has threads running
  EXPECT_DEATH(
      {
        Queue queue(gpu, HSA_QUEUE_TYPE_COOPERATIVE);
        std::vector<std::uint32_t> result;
        run_rounds(queue, true, &result, 4096);
      },
      "a cooperative dispatch of 4096 work-groups \\([0-9]+ waves, 0 bytes of LDS\\) does not fit on the simulated "
      "gfx[0-9a-z]+ at once");
}

}  // namespace
