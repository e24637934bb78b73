// memory-bench's workloads on the cpu agent: every workload on odd sizes at many work-group
// sizes against the CPU's sums, the dispatches each records, the bytes it counts, the kernels'
// index helpers, and bad sizes refused by name.
#include <gtest/gtest.h>

#include "cpu_test_device.hpp"
#include "error_text.hpp"
#include "hsad/hsad.hpp"
#include "memory.hpp"
#include "memory_checks.hpp"
#include "memory_workload.hpp"

using namespace hsad;
using test::cpu_device;
using bench::MemoryKind;

namespace {
std::string refusal(const bench::MemoryConfig& c) {
  return test::error_text([&] { bench::validate(c, DeviceInfo{}); });
}
}  // namespace

TEST(Memory, EveryWorkloadMatchesTheCpuAtEveryBlock) {
  test::expect_every_memory_workload_matches(cpu_device(), {1, 7, 32, 48, 64, 100, 256, 1024});
}

TEST(Memory, EachWorkloadRecordsItsDispatches) {
  // Per iteration: one kernel for the sums; yAx adds one work-group's sum of the partials; a
  // reduction is 35 / 7 = 5 passes of (pack,) reduce and sum.
  const std::pair<MemoryKind, std::size_t> expected[] = {
      {MemoryKind::row_sums, 1},     {MemoryKind::column_sums, 1},       {MemoryKind::row_sums_lds, 1},
      {MemoryKind::yax, 2},          {MemoryKind::yax_wave, 2},          {MemoryKind::reduce_staged, 15},
      {MemoryKind::reduce_fused, 10}};
  for (const auto& [kind, dispatches] : expected) {
    bench::MemoryConfig c = test::odd_memory_config(kind);
    c.iters = 3;
    bench::MemoryWorkload w(cpu_device(), c, Options{});
    EXPECT_EQ(w.dispatches_per_iteration(), dispatches) << bench::memory_workload_name(kind);
  }
}

TEST(Memory, TheBytesAreTheInputOnceAndTheOutput) {
  auto bytes = [](MemoryKind kind) {
    return bench::MemoryWorkload(cpu_device(), test::odd_memory_config(kind), Options{}).bytes();
  };
  EXPECT_EQ(bytes(MemoryKind::row_sums), (37.0 * 53 + 37) * 4);
  EXPECT_EQ(bytes(MemoryKind::column_sums), (37.0 * 53 + 53) * 4);
  EXPECT_EQ(bytes(MemoryKind::yax_wave), (37.0 * 53 + 37 + 53) * 8);
  // Staged and fused have the same work to do: the staged form's extra passes are its cost.
  EXPECT_EQ(bytes(MemoryKind::reduce_staged), (29.0 * 35 + 35) * 8);
  EXPECT_EQ(bytes(MemoryKind::reduce_fused), bytes(MemoryKind::reduce_staged));
}

TEST(Memory, TheSeedSizesAreTheNotes) {
  EXPECT_EQ(bench::memory_seed_size(MemoryKind::row_sums).rows, 16384u);
  EXPECT_EQ(bench::memory_seed_size(MemoryKind::yax).cols, 32768u);
  const auto r = bench::memory_seed_size(MemoryKind::reduce_fused);
  EXPECT_EQ(r.sites, 262144u);
  EXPECT_EQ(double(r.sites) * r.width * sizeof(double), 201326592.0);  // the notes' 201 MB per pass
  EXPECT_EQ(r.words / r.width, 12u);
  EXPECT_EQ(bench::memory_seed_size(MemoryKind::row_sums, 4).rows, 4096u);
  EXPECT_EQ(bench::memory_seed_size(MemoryKind::reduce_fused, 4).sites, 16384u);
}

TEST(MemoryKernels, TheTreeFoldsAnySizeToItsFirstValue) {
  for (std::uint32_t n : {1u, 2u, 3u, 7u, 48u, 64u, 96u, 1000u, 1024u}) {
    std::vector<double> v(n);
    for (std::uint32_t i = 0; i < n; ++i) v[i] = i + 1;
    for (std::uint32_t half = kernels::group_sum_first_half(n); half > 0; half /= 2) {
      for (std::uint32_t t = 0; t < n; ++t) kernels::group_sum_step(v.data(), t, n, half);
    }
    EXPECT_EQ(v[0], double(n) * (n + 1) / 2) << n;
  }
}

TEST(MemoryKernels, AStridedSumVisitsEachElementOnce) {
  std::vector<float> p(101);
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = float(1u << (i % 20));
  for (std::uint32_t n : {1u, 3u, 32u, 100u, 200u}) {
    double total = 0;
    for (std::uint32_t t = 0; t < n; ++t) total += kernels::strided_sum<false>(p.data(), p.data(), 101, t, n);
    double expected = 0;
    for (float x : p) expected += x;
    EXPECT_EQ(total, expected) << n;
  }
}

TEST(MemoryKernels, AReduceGroupAddsEachWordOfItsItems) {
  // Items of a group starting at item 10 hold word (10 + t) % 4; word 1's items are t = 3, 7, 11.
  const double values[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  EXPECT_EQ(kernels::reduce_group_word(values, 10, 12, 4, 1), 4 + 8 + 12);
  EXPECT_EQ(kernels::reduce_group_word(values, 10, 12, 4, 2), 1 + 5 + 9);
  // Fewer items than words: the words no item holds are 0.
  EXPECT_EQ(kernels::reduce_group_word(values, 0, 2, 4, 3), 0);
}

TEST(MemorySizes, BadSizesAreRefusedByName) {
  auto c = test::odd_memory_config(MemoryKind::yax);
  c.block = 64;
  c.rows = 0;
  EXPECT_NE(refusal(c).find("--rows"), std::string::npos) << refusal(c);
  c.rows = 37, c.cols = 0;
  EXPECT_NE(refusal(c).find("yax needs at least 1 column, got 0"), std::string::npos) << refusal(c);
  c.cols = 3000000;
  EXPECT_NE(refusal(c).find("--cols must be at most 2097152"), std::string::npos) << refusal(c);
  c.cols = 53, c.block = 0;
  EXPECT_NE(refusal(c).find("work-group size must be 1 to 1024, got 0"), std::string::npos) << refusal(c);
  c.block = 1025;
  EXPECT_NE(refusal(c).find("got 1025"), std::string::npos) << refusal(c);
  auto r = test::odd_memory_config(MemoryKind::reduce_staged);
  r.block = 128;
  r.width = 0;
  EXPECT_NE(refusal(r).find("--width (doubles summed per pass) must be at least 1, got 0"), std::string::npos) << refusal(r);
  r.width = 7, r.words = 36;
  EXPECT_NE(refusal(r).find("whole number of --width (7), got 36"), std::string::npos) << refusal(r);
  r.words = 35, r.sites = 0;
  EXPECT_NE(refusal(r).find("reduce-staged needs at least 1 site"), std::string::npos) << refusal(r);
  // An item per word of a pass: sites x width work-items must fit a grid.
  r.sites = 1u << 26, r.width = 256, r.words = 512;
  EXPECT_NE(refusal(r).find("sites x width exceeds a grid's 2^32 - 1 work-items"), std::string::npos) << refusal(r);
}

TEST(MemorySizes, AMatrixLargerThanTheDeviceIsRefused) {
  auto c = bench::memory_seed_size(MemoryKind::yax);
  c.block = 64;
  DeviceInfo small;
  small.name = "a small device";
  small.memory_bytes = std::uint64_t(8) << 30;
  const std::string m = test::error_text([&] { bench::validate(c, small); });
  EXPECT_NE(m.find("yax needs 10.0"), std::string::npos) << m;  // 8 GiB of matrix, 2 GiB of copy scratch
  EXPECT_NE(m.find("a small device"), std::string::npos) << m;
}

TEST(MemorySizes, AnUnknownWorkloadIsRefusedNamingTheValidOnes) {
  const std::string m = test::error_text([] { bench::parse_memory_workload("transpose"); });
  EXPECT_NE(m.find("unknown workload 'transpose'"), std::string::npos) << m;
  EXPECT_NE(m.find("row-sums, column-sums, row-sums-lds, yax, yax-wave, reduce-staged, reduce-fused, all"),
            std::string::npos) << m;
  EXPECT_EQ(bench::parse_memory_workload("yax-wave"), MemoryKind::yax_wave);
}
