// Hidden arguments: the v5 object built from tests/rocr/v5_probe.hip lists them; a plan fills
// the ones a dispatcher knows at the offsets the code object gives, and refuses the rest.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include "aql_packets/hidden_args.hpp"
#include "hsad/code_object.hpp"
#include "hsad/error.hpp"

using namespace hsad;

namespace {
KernelInfo v5_probe() {
  std::ifstream in(HSAD_V5_FIXTURE, std::ios::binary);
  const std::string elf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return read_code_object(elf).kernels.at(0).info;
}

// The probe as a kernel built without hostcall, heap and queue pointer would list it.
KernelInfo without_unfillable(KernelInfo k) {
  k.args.erase(std::remove_if(k.args.begin(), k.args.end(),
                              [](const ArgInfo& a) {
                                return a.value_kind == "hidden_hostcall_buffer" || a.value_kind == "hidden_heap_v1" ||
                                       a.value_kind == "hidden_queue_ptr";
                              }),
               k.args.end());
  return k;
}

std::size_t hidden_count(const KernelInfo& k) { return k.args.size() - k.explicit_arg_count(); }

bool lists(const KernelInfo& k, const std::string& kind) {
  return std::any_of(k.args.begin(), k.args.end(), [&](const ArgInfo& a) { return a.value_kind == kind; });
}

std::uint32_t offset_of(const KernelInfo& k, const std::string& kind) {
  for (const ArgInfo& a : k.args) {
    if (a.value_kind == kind) return a.offset;
  }
  ADD_FAILURE() << "no " << kind;
  return 0;
}

template <typename T>
T at(const std::vector<unsigned char>& kernarg, std::uint32_t offset) {
  T v;
  std::memcpy(&v, kernarg.data() + offset, sizeof v);
  return v;
}
}  // namespace

// A v5 kernel lists the hostcall buffer, the heap and the queue pointer (clang 15 whether it uses
// them or not, clang 17+ where it does); on main they were refused. Each is filled from the
// dispatch's context, and a kernel that lists them says so (needs_hostcall, needs_heap), so the
// device starts its services only then.
TEST(HiddenArgs, FillsTheHostcallBufferTheHeapAndTheQueuePointerOfAV5Kernel) {
  const KernelInfo k = v5_probe();
  const auto plan = aql::plan_hidden_args(k);
  EXPECT_EQ(plan.size(), hidden_count(k));  // every hidden argument listed is planned
  ASSERT_TRUE(lists(k, "hidden_hostcall_buffer"));
  ASSERT_TRUE(lists(k, "hidden_heap_v1"));
  EXPECT_TRUE(aql::needs_hostcall(plan));
  EXPECT_TRUE(aql::needs_heap(plan));
  EXPECT_FALSE(aql::needs_hostcall(aql::plan_hidden_args(without_unfillable(k))));
  std::vector<unsigned char> kernarg(k.kernarg_segment_size, 0xab);
  aql::HiddenContext context;
  context.hostcall_buffer = 0x1111000;
  context.heap = 0x2222000;
  context.queue_ptr = 0x3333000;
  aql::fill_hidden_args(plan, kernarg.data(), Dim3{256}, Dim3{256}, context);
  EXPECT_EQ(at<std::uint64_t>(kernarg, offset_of(k, "hidden_hostcall_buffer")), 0x1111000u);
  EXPECT_EQ(at<std::uint64_t>(kernarg, offset_of(k, "hidden_heap_v1")), 0x2222000u);
  if (lists(k, "hidden_queue_ptr")) {
    EXPECT_EQ(at<std::uint64_t>(kernarg, offset_of(k, "hidden_queue_ptr")), 0x3333000u);
  }
  if (lists(k, "hidden_multigrid_sync_arg")) {
    EXPECT_EQ(at<std::uint64_t>(kernarg, offset_of(k, "hidden_multigrid_sync_arg")), 0u);
  }
}

TEST(HiddenArgs, FillsBlockCountsGroupSizesRemaindersAndDims) {
  const KernelInfo k = without_unfillable(v5_probe());
  const auto plan = aql::plan_hidden_args(k);
  // 3 block counts, group sizes, remainders, offsets; dims (and with clang 15 the null multigrid).
  EXPECT_GE(plan.size(), 13u);
  EXPECT_EQ(plan.size(), hidden_count(k));
  std::vector<unsigned char> kernarg(k.kernarg_segment_size, 0xab);
  aql::fill_hidden_args(plan, kernarg.data(), Dim3{1000, 6, 1}, Dim3{64, 4, 1}, aql::HiddenContext{});
  EXPECT_EQ(at<std::uint32_t>(kernarg, offset_of(k, "hidden_block_count_x")), 15u);  // 1000 / 64
  EXPECT_EQ(at<std::uint32_t>(kernarg, offset_of(k, "hidden_block_count_y")), 1u);
  EXPECT_EQ(at<std::uint32_t>(kernarg, offset_of(k, "hidden_block_count_z")), 1u);
  EXPECT_EQ(at<std::uint16_t>(kernarg, offset_of(k, "hidden_group_size_x")), 64u);
  EXPECT_EQ(at<std::uint16_t>(kernarg, offset_of(k, "hidden_group_size_y")), 4u);
  EXPECT_EQ(at<std::uint16_t>(kernarg, offset_of(k, "hidden_remainder_x")), 40u);  // 1000 % 64
  EXPECT_EQ(at<std::uint16_t>(kernarg, offset_of(k, "hidden_remainder_y")), 2u);
  EXPECT_EQ(at<std::uint64_t>(kernarg, offset_of(k, "hidden_global_offset_x")), 0u);
  EXPECT_EQ(at<std::uint16_t>(kernarg, offset_of(k, "hidden_grid_dims")), 2u);
  // The caller's pointer argument at offset 0 is not touched.
  EXPECT_EQ(at<std::uint64_t>(kernarg, 0), 0xababababababababull);
}

TEST(HiddenArgs, FillsOnlyTheBytesOfEachArgument) {
  KernelInfo k;
  k.name = "narrow";
  k.kernarg_segment_size = 8;
  k.args = {{"g", 0, 2, ArgKind::hidden, "hidden_group_size_x"}, {"pad", 2, 2, ArgKind::by_value, "by_value"}};
  std::vector<unsigned char> kernarg(8, 0xff);
  aql::fill_hidden_args(aql::plan_hidden_args(k), kernarg.data(), Dim3{256}, Dim3{256}, aql::HiddenContext{});
  EXPECT_EQ(at<std::uint16_t>(kernarg, 0), 256u);
  EXPECT_EQ(at<std::uint16_t>(kernarg, 2), 0xffffu);
}

TEST(HiddenArgs, RefusesAnUnknownKind) {
  KernelInfo k;
  k.name = "future";
  k.kernarg_segment_size = 8;
  k.args = {{"x", 0, 8, ArgKind::hidden, "hidden_something_new"}};
  EXPECT_THROW((void)aql::plan_hidden_args(k), Error);
}

TEST(HiddenArgs, V4KernelsOfTheLibraryNeedNone) {
  std::ifstream in(HSAD_AMD_BUNDLE, std::ios::binary);
  const std::string bundle((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const CodeObject& co : read_code_objects(bundle)) {
    for (const CodeObjectKernel& k : co.kernels) EXPECT_NO_THROW((void)aql::plan_hidden_args(k.info)) << k.info.name;
  }
}
