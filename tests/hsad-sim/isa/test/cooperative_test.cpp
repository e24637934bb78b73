// Cooperative launches in the interpreter: every work-group of the grid resident together, grid
// barriers (ds_gws_barrier) that hold each one back until all arrived, the barrier value that
// ds_gws_init sets, and the faults for a barrier that could never complete. The kernels are
// hipcc's, through ockl's grid sync as HIP's cooperative groups call it.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "grid_rounds.hpp"
#include "loaded_code.hpp"

namespace hsad::isa::testing {
namespace {

class Cooperative : public ::testing::TestWithParam<const char*> {
 protected:
  LoadedCode code{read_file(std::string(HSAD_ISA_KERNELS_DIR) + "/isa_" + GetParam() + ".co")};
  HostMemory memory;
  GlobalWaveSync gws;

  // What CLR does before a cooperative launch of `groups` work-groups (one wave each at the barrier).
  void init_gws(std::uint32_t groups) { code.run("isa_gws_init", {1}, {1}, {groups - 1}, memory, 1, &gws); }

  std::string fault_of(const std::string& kernel, Dim3 grid, Dim3 group, const std::vector<Arg>& args,
                       GlobalWaveSync* cooperative) {
    try {
      code.run(kernel, grid, group, args, memory, 2, cooperative);
    } catch (const Fault& f) {
      return f.what();
    }
    ADD_FAILURE() << kernel << " ran to its end";
    return {};
  }
};

constexpr std::uint32_t kGroups = 8, kBlock = 256, kItems = kGroups * kBlock, kRounds = 3;

TEST_P(Cooperative, TheGridBarrierHoldsEveryWorkGroupUntilAllArrived) {
  std::vector<std::uint32_t> start(kItems);
  std::iota(start.begin(), start.end(), 1u);
  auto* a = memory.copy_of(start);
  auto* b = memory.make<std::uint32_t>(kItems);
  init_gws(kGroups);
  EXPECT_EQ(gws.value(0), kGroups - 1);
  code.run("isa_grid_rounds", {kItems}, {kBlock}, {a, b, kItems, kRounds}, memory, 2, &gws);
  EXPECT_EQ(std::vector<std::uint32_t>(a, a + kItems), test::grid_rounds(start, kBlock, kRounds));
  EXPECT_EQ(gws.value(0), kGroups - 1) << "a completed barrier arms itself again with its operand";
}

// Seven work-groups, the last a partial one of 77 work-items (two waves, the second partly
// masked; its blockDim.x is 77, so the kernel takes its index from ockl's global id), in a grid
// whose size is a multiple of nothing used here: the grid barrier counts work-groups, not full
// ones.
TEST_P(Cooperative, APartialLastWorkGroupPassesTheGridBarrierToo) {
  constexpr std::uint32_t groups = 7, items = 6 * kBlock + 77;
  std::vector<std::uint32_t> start(items);
  std::iota(start.begin(), start.end(), 3u);
  auto* a = memory.copy_of(start);
  auto* b = memory.make<std::uint32_t>(items);
  init_gws(groups);
  code.run("isa_grid_rounds", {items}, {kBlock}, {a, b, items, kRounds}, memory, 2, &gws);
  EXPECT_EQ(std::vector<std::uint32_t>(a, a + items), test::grid_rounds(start, kBlock, kRounds));
}

// The same launch with the barrier value left at 0: the first wave at the barrier passes alone,
// work-group 0 runs ahead and is one barrier out of step with the others from then on: wrong
// sums, or a barrier that never completes at the end. Either way the check above can fail.
TEST_P(Cooperative, WithoutItsInitTheBarrierDoesNotHoldTheGrid) {
  std::vector<std::uint32_t> start(kItems);
  std::iota(start.begin(), start.end(), 1u);
  auto* a = memory.copy_of(start);
  auto* b = memory.make<std::uint32_t>(kItems);
  try {
    code.run("isa_grid_rounds", {kItems}, {kBlock}, {a, b, kItems, kRounds}, memory, 2, &gws);
    EXPECT_NE(std::vector<std::uint32_t>(a, a + kItems), test::grid_rounds(start, kBlock, kRounds));
  } catch (const Fault& f) {
    EXPECT_NE(std::string(f.what()).find("can never complete"), std::string::npos) << f.what();
  }
}

TEST_P(Cooperative, AWorkGroupSpinningOnAnotherOnesWriteLetsItRun) {
  auto* counter = memory.make<std::uint32_t>(1);
  auto* out = memory.make<std::uint32_t>(kItems);
  code.run("isa_grid_spin", {kItems}, {kBlock}, {counter, kGroups, out}, memory, 2, &gws);
  EXPECT_EQ(std::vector<std::uint32_t>(out, out + kItems), std::vector<std::uint32_t>(kItems, kGroups));
}

TEST_P(Cooperative, AGridBarrierThatCanNeverCompleteIsAFaultNotAHang) {
  init_gws(kGroups);
  auto* out = memory.make<std::uint32_t>(kItems);
  const std::string f = fault_of("isa_grid_sync_skipped", {kItems}, {kBlock}, {out}, &gws);
  EXPECT_NE(f.find("kernel 'isa_grid_sync_skipped'"), std::string::npos) << f;
  EXPECT_NE(f.find("can never complete"), std::string::npos) << f;
  EXPECT_NE(f.find("resource 0: 7 of 8 waves arrived"), std::string::npos) << f;
}

TEST_P(Cooperative, AGridBarrierOutsideACooperativeLaunchIsAFault) {
  auto* a = memory.make<std::uint32_t>(kItems);
  auto* b = memory.make<std::uint32_t>(kItems);
  const std::string f = fault_of("isa_grid_rounds", {kItems}, {kBlock}, {a, b, kItems, kRounds}, nullptr);
  EXPECT_NE(f.find("ds_gws_barrier"), std::string::npos) << f;
  EXPECT_NE(f.find("a grid barrier outside a cooperative launch"), std::string::npos) << f;
}

TEST_P(Cooperative, GwsInitOnAQueueWithoutGwsIsAFault) {
  const std::string f = fault_of("isa_gws_init", {1}, {1}, {std::uint32_t(7)}, nullptr);
  EXPECT_NE(f.find("ds_gws_init"), std::string::npos) << f;
  EXPECT_NE(f.find("holds no global wave sync resources"), std::string::npos) << f;
}

INSTANTIATE_TEST_SUITE_P(Targets, Cooperative, ::testing::Values("gfx90a", "gfx908", "gfx1030"));

}  // namespace
}  // namespace hsad::isa::testing
