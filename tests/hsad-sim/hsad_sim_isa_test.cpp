// The simulated GPU executing AMD machine code behind the unmodified ROCr, through the library:
// the project's kernels (embedded code objects) and the interpreter's test kernels (a module),
// with the checks isa_tests runs on the interpreter alone (isa/test/kernel_checks.cpp); and the
// kernel faults that must reach the waiter as an hsad::Error naming kernel, pc and instruction.
// Run under hsad-sim (--exec isa, the default; under --exec host the project's kernels run as
// host builds and what needs machine code is skipped).
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <regex>

#include "hsad/hsad.hpp"
#include "kernel_checks.hpp"
#include "memory_checks.hpp"

using namespace hsad;
using hsad::isa::testing::Runner;

namespace {

const Device& device() {
  static const Runtime rt = Runtime::open("rocr");
  return rt.device();
}

bool host_builds() {
  const char* e = std::getenv("HSAD_SIM_EXEC");
  return e && std::string(e) == "host";
}

#define REQUIRE_MACHINE_CODE() \
  if (host_builds()) GTEST_SKIP() << "hsad-sim --exec host runs host builds: this kernel has none"

std::string test_kernels_path() { return std::string(HSAD_ISA_KERNELS_DIR) + "/isa_" + device().info().isa + ".co"; }

// The checks' Runner over the library: buffers, copies and dispatches in batches on one queue.
class DeviceRunner : public Runner {
 public:
  DeviceRunner() : queue_(device().create_queue()) {
    if (!host_builds()) module_ = device().load_module(test_kernels_path());
  }
  std::string processor() const override { return device().info().isa; }
  unsigned wave_size() const override { return device().info().wavefront_size; }
  bool runs_machine_code() const override { return !host_builds(); }
  void* alloc(std::size_t bytes) override {
    Buffer b = device().alloc(bytes);
    void* p = b.device_ptr();
    queue_.run(Batch{}.copy_to_device(b, std::vector<std::uint8_t>(bytes, 0).data(), bytes), Options{});
    buffers_.emplace(p, std::move(b));
    return p;
  }
  void upload(void* dst, const void* host, std::size_t bytes) override {
    const auto& [b, offset] = buffer_at(dst);
    queue_.run(Batch{}.copy_to_device(b, host, bytes, offset), Options{});
  }
  void download(void* host, const void* src, std::size_t bytes) override {
    const auto& [b, offset] = buffer_at(src);
    queue_.run(Batch{}.copy_to_host(host, b, bytes, offset), Options{});
  }
  void run(const std::string& kernel, Dim3 grid, Dim3 group, const std::vector<Arg>& args) override {
    queue_.run(Batch{}.exec(kernel_named(kernel), grid, group, args), Options{});
  }
  void run_partial_groups(const std::string& kernel, Dim3 grid, Dim3 group, const std::vector<Arg>& args) override {
    queue_.run(Batch{}.exec_partial_groups(kernel_named(kernel), grid, group, args), Options{});
  }
  Kernel kernel_named(const std::string& kernel) const {
    const bool own = module_ && kernel.rfind("isa_", 0) == 0;
    return own ? module_.kernel(kernel) : device().kernel(kernel);
  }
  using Runner::download;
  using Runner::upload;

 private:
  std::pair<const Buffer&, std::size_t> buffer_at(const void* p) {
    auto it = buffers_.upper_bound(const_cast<void*>(p));
    if (it == buffers_.begin()) throw std::runtime_error("not a buffer of this runner");
    --it;
    return {it->second, std::size_t(static_cast<const char*>(p) - static_cast<const char*>(it->first))};
  }
  Queue queue_;
  Module module_;
  std::map<void*, Buffer> buffers_;
};

TEST(HsadSimIsaProject, BitonicSortOf32768KeysIn120Dispatches) {
  DeviceRunner r;
  isa::testing::check_bitonic(r);
}
TEST(HsadSimIsaProject, CopyAndEmpty) {
  DeviceRunner r;
  isa::testing::check_copy_and_empty(r);
}
TEST(HsadSimIsaProject, EveryLaplacianKernelMatchesTheReference) {
  DeviceRunner r;
  isa::testing::check_laplacian(r);
}

// memory-bench's kernels, on every target's machine code (gfx1030 runs them in wave32).
TEST(HsadSimIsaProject, EveryMemoryWorkloadMatchesTheCpu) {
  test::expect_every_memory_workload_matches(device(), {1, 48, 64, 256});
}

class HsadSimIsaKernels : public ::testing::Test {
 protected:
  void SetUp() override { REQUIRE_MACHINE_CODE(); }
};

TEST_F(HsadSimIsaKernels, AWorkGroupReductionThroughLdsAndBarriers) {
  DeviceRunner r;
  isa::testing::check_reduce(r);
}
TEST_F(HsadSimIsaKernels, AHistogramThroughLdsAndGlobalAtomics) {
  DeviceRunner r;
  isa::testing::check_histogram(r);
}
TEST_F(HsadSimIsaKernels, AWorkGroupsWavesRunSideBySide) {
  DeviceRunner r;
  isa::testing::check_waves_side_by_side(r);
}
TEST_F(HsadSimIsaKernels, CrossLaneOperationsFollowTheWavefrontSize) {
  DeviceRunner r;
  isa::testing::check_wave_ops(r);
}
TEST_F(HsadSimIsaKernels, DivergentLoopsEndLaneByLane) {
  DeviceRunner r;
  isa::testing::check_collatz(r);
}
TEST_F(HsadSimIsaKernels, TwoAndThreeDimensionalGridsWithPartialWorkGroups) {
  DeviceRunner r;
  isa::testing::check_grids(r);
}
TEST_F(HsadSimIsaKernels, TheKernelReadsGridDimAndBlockDimFromTheDispatchPacket) {
  DeviceRunner r;
  isa::testing::check_dims(r);
}
TEST_F(HsadSimIsaKernels, RegisterIndexing) {
  DeviceRunner r;
  isa::testing::check_gpr_index(r);
}
TEST_F(HsadSimIsaKernels, APrivateArrayLivesInScratch) {
  DeviceRunner r;
  isa::testing::check_scratch(r);
}
TEST_F(HsadSimIsaKernels, DivisionSquareRootAndFmaAreCorrectlyRounded) {
  DeviceRunner r;
  isa::testing::check_math(r);
}
TEST_F(HsadSimIsaKernels, EveryMatrixFormComputesItsBlocksBitForBit) {
  DeviceRunner r;
  isa::testing::check_mfma(r);
  isa::testing::check_mfma_partial_exec(r);
  isa::testing::check_wmma(r);
  isa::testing::check_smfmac(r);
  isa::testing::check_swmmac(r);
  isa::testing::check_sparse_partial_exec(r);
}

// A kernel that faults: the waiter gets an hsad::Error that names the kernel, the program
// counter and the instruction; nothing hangs, and a new queue works afterwards (after a memory
// fault, which stops every queue of the agent, once the device was reset).
std::string fault_of(const char* kernel, const std::function<Arg(const Buffer&)>& arg) {
  const Module m = device().load_module(test_kernels_path());
  Buffer out = device().alloc(64 * 4);
  Queue q = device().create_queue();
  try {
    q.run(Batch{}.exec(m.kernel(kernel), Dim3{64}, Dim3{64}, {arg(out)}), Options{}, std::chrono::seconds(30));
  } catch (const Error& e) {
    // The device is still usable: a new queue sorts.
    if (std::string(e.what()).find("GPU memory fault") != std::string::npos) device().reset();
    Queue fresh = device().create_queue();
    Buffer keys = device().alloc(1024 * 4);
    fresh.run(Batch{}.exec(device().kernel("bitonic_step"), Dim3{512}, Dim3{256}, {keys, 0u, 0u, 1u, 1024u}), Options{});
    return e.what();
  }
  ADD_FAILURE() << kernel << " completed";
  return {};
}

void expect_names(const std::string& m, const std::string& kernel, const std::string& instruction, const std::string& what) {
  EXPECT_NE(m.find("kernel '" + kernel + "'"), std::string::npos) << m;
  EXPECT_TRUE(std::regex_search(m, std::regex("at pc 0x[0-9a-f]+"))) << m;
  EXPECT_NE(m.find("'" + instruction), std::string::npos) << m;
  EXPECT_NE(m.find(what), std::string::npos) << m;
}

TEST(HsadSimIsaFaults, AnUnknownInstructionReachesTheWaiter) {
  REQUIRE_MACHINE_CODE();
  expect_names(fault_of("isa_unknown", [](const Buffer& b) { return Arg(b); }), "isa_unknown", "v_mqsad_pk_u16_u8",
               "does not implement");
}

TEST(HsadSimIsaFaults, ATrapReachesTheWaiter) {
  REQUIRE_MACHINE_CODE();
  expect_names(fault_of("isa_trap", [](const Buffer& b) { return Arg(b); }), "isa_trap", "s_trap", "trapped");
}

TEST(HsadSimIsaFaults, AStoreOutsideEveryAllocationReachesTheWaiter) {
  REQUIRE_MACHINE_CODE();
  // A pointer into the first page, as a null pointer plus an offset is: no allocation holds it.
  const std::string m = fault_of("isa_store", [](const Buffer&) { return Arg::unchecked(reinterpret_cast<unsigned*>(0x1000)); });
  // gfx11 and gfx12 name the store by its width.
  const std::string isa = device().info().isa;
  const bool new_names = isa.rfind("gfx11", 0) == 0 || isa.rfind("gfx12", 0) == 0;  // gfx11's names
  expect_names(m, "isa_store", new_names ? "global_store_b32" : "global_store_dword", "outside every allocation");
  // Not a wave trap: KFD's memory event, which the library's handler turned into this error.
  EXPECT_NE(m.find("GPU memory fault on"), std::string::npos) << m;
  EXPECT_NE(m.find("at address 0x1000: page not present"), std::string::npos) << m;
}

}  // namespace
