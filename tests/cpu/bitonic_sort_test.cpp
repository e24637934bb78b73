// The bitonic sort on the cpu agent: every power of two up to 2^20, and key patterns.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "bitonic.hpp"
#include "bitonic_workload.hpp"
#include "cpu_test_device.hpp"
#include "ladder.hpp"
#include "hsad/hsad.hpp"

using namespace hsad;
using test::cpu_device;

namespace {
using Algo = bench::BitonicWorkload::Algo;

void expect_sorts(std::vector<std::uint32_t> keys, const Options& options, Algo algo = Algo::steps) {
  bench::BitonicWorkload w(cpu_device(), static_cast<std::uint32_t>(keys.size()), options,
                           bench::BitonicWorkload::Copies::blocking, algo);
  std::copy(keys.begin(), keys.end(), w.input());
  w.run();
  std::sort(keys.begin(), keys.end());
  EXPECT_TRUE(w.output_matches(keys));
}

std::vector<std::uint32_t> random_keys(std::size_t n, std::uint32_t seed) {
  std::vector<std::uint32_t> k(n);
  std::mt19937 rng(seed);
  for (auto& v : k) v = rng();
  return k;
}
}  // namespace

class BitonicPowerOfTwo : public ::testing::TestWithParam<int> {};

TEST_P(BitonicPowerOfTwo, SortsRandomKeys) {
  const std::size_t n = std::size_t(1) << GetParam();
  // Alternate the options so that every size also exercises baseline and optimized paths.
  expect_sorts(random_keys(n, GetParam()), GetParam() % 2 ? Options{} : Options::none());
}

INSTANTIATE_TEST_SUITE_P(CpuAgent, BitonicPowerOfTwo, ::testing::Range(1, 21),
                         [](const auto& info) { return "n_2pow" + std::to_string(info.param); });

// The LDS algorithm: sorts smaller than a chunk (one dispatch), one chunk, and several chunks
// with long passes between the local merges; the dispatches are the plan's, one packet each.
class BitonicLdsPowerOfTwo : public ::testing::TestWithParam<int> {};

TEST_P(BitonicLdsPowerOfTwo, SortsRandomKeysInThePlannedDispatches) {
  const std::uint32_t n = 1u << GetParam();
  const Options o = GetParam() % 2 ? Options{} : Options::none();
  auto keys = random_keys(n, GetParam() + 100);
  bench::BitonicWorkload w(cpu_device(), n, o, bench::BitonicWorkload::Copies::blocking, Algo::lds);
  const std::uint32_t planned = kernels::bitonic_lds_dispatches(n, kernels::bitonic_local_chunk_log2(n));
  EXPECT_EQ(w.dispatches(), planned);
  std::copy(keys.begin(), keys.end(), w.input());
  const Stats before = cpu_device().stats();
  w.run();
  EXPECT_EQ((cpu_device().stats() - before).packets, planned);
  std::sort(keys.begin(), keys.end());
  EXPECT_TRUE(w.output_matches(keys));
}

INSTANTIATE_TEST_SUITE_P(CpuAgent, BitonicLdsPowerOfTwo, ::testing::Range(1, 21),
                         [](const auto& info) { return "n_2pow" + std::to_string(info.param); });

TEST(BitonicLds, EveryChunkSizeSortsInItsPlannedDispatches) {
  const std::uint32_t n = 8192;
  for (std::uint32_t c = 1; c <= kernels::kBitonicLocalKeysLog2; ++c) {
    SCOPED_TRACE("chunk 2^" + std::to_string(c));
    auto keys = random_keys(n, c);
    bench::BitonicWorkload w(cpu_device(), n, Options{}, bench::BitonicWorkload::Copies::in_batch, Algo::lds, c);
    EXPECT_EQ(w.dispatches(), kernels::bitonic_lds_dispatches(n, c));
    std::copy(keys.begin(), keys.end(), w.input());
    w.run();
    std::sort(keys.begin(), keys.end());
    EXPECT_TRUE(w.output_matches(keys));
  }
  EXPECT_THROW(bench::BitonicWorkload(cpu_device(), n, Options{}, bench::BitonicWorkload::Copies::in_batch, Algo::lds, 13),
               Error);
}

TEST(BitonicLds, SortsEveryKeyPattern) {
  std::vector<std::uint32_t> sorted(16384), reversed(16384), equal(16384, 7);
  for (std::size_t i = 0; i < sorted.size(); ++i) sorted[i] = std::uint32_t(i), reversed[i] = std::uint32_t(16384 - i);
  auto extremes = random_keys(16384, 9);
  for (std::size_t i = 0; i < extremes.size(); i += 3) extremes[i] = i % 2 ? 0u : 0xFFFFFFFFu;
  for (const auto& k : {sorted, reversed, equal, extremes}) expect_sorts(k, Options{}, Algo::lds);
}

TEST(BitonicKeys, SortsAlreadySortedKeys) {
  std::vector<std::uint32_t> k(4096);
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = std::uint32_t(i);
  expect_sorts(k, Options{});
}

TEST(BitonicKeys, SortsReversedKeys) {
  std::vector<std::uint32_t> k(4096);
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = std::uint32_t(k.size() - i);
  expect_sorts(k, Options{});
}

TEST(BitonicKeys, SortsAllEqualKeys) { expect_sorts(std::vector<std::uint32_t>(4096, 7), Options{}); }

TEST(BitonicKeys, SortsExtremeValues) {
  auto k = random_keys(1024, 9);
  for (std::size_t i = 0; i < k.size(); i += 3) k[i] = i % 2 ? 0u : 0xFFFFFFFFu;
  expect_sorts(k, Options{});
}

TEST(BitonicKeys, EveryLadderRowSorts) {
  const auto keys = random_keys(32768, 1);
  for (const bench::LadderRow& row : bench::ladder(Options{})) {
    SCOPED_TRACE(row.config);
    expect_sorts(keys, row.options);
  }
}
