// The benchmarks' support: robust statistics, --n validation, JSON escaping.
#include <gtest/gtest.h>

#include "bitonic.hpp"
#include "bitonic_workload.hpp"
#include "report.hpp"
#include "summary.hpp"

#include <sstream>

using namespace hsad;

TEST(Summary, MedianAndPercentilesOfKnownSamples) {
  std::vector<double> v;
  for (int i = 10; i >= 0; --i) v.push_back(i);  // 0..10, unsorted
  const bench::Summary s = bench::summarize(v);
  EXPECT_DOUBLE_EQ(s.median, 5.0);
  EXPECT_DOUBLE_EQ(s.p10, 1.0);
  EXPECT_DOUBLE_EQ(s.p90, 9.0);
}

TEST(Summary, MedianIgnoresOneOutlier) {
  const bench::Summary s = bench::summarize({10, 11, 9, 10, 1e6});
  EXPECT_DOUBLE_EQ(s.median, 10.0);
}

TEST(BitonicSize, AcceptsPowersOfTwoFrom2To2Pow26) {
  EXPECT_EQ(bench::parse_bitonic_size("2"), 2u);
  EXPECT_EQ(bench::parse_bitonic_size("32768"), 32768u);
  EXPECT_EQ(bench::parse_bitonic_size("67108864"), 67108864u);
}

TEST(BitonicSize, RefusesEverythingElseWithTheRule) {
  for (const char* bad : {"0", "1", "3", "1000", "134217728", "-4", "abc", "", "32768x", "99999999999999"}) {
    try {
      bench::parse_bitonic_size(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("power of two from 2 to 67108864"), std::string::npos);
    }
  }
}

TEST(BitonicDispatches, MatchesTheSeedsCount) {
  EXPECT_EQ(kernels::bitonic_dispatches(32768), 120u);
  EXPECT_EQ(kernels::bitonic_dispatches(2), 1u);
}

TEST(BitonicDispatches, TheLdsAlgorithmNeedsAboutADozen) {
  EXPECT_EQ(kernels::bitonic_local_chunk_log2(32768), 11u);     // 16 work-groups
  EXPECT_EQ(kernels::bitonic_local_chunk_log2(1u << 20), 12u);   // the LDS's 4096 keys
  EXPECT_EQ(kernels::bitonic_local_chunk_log2(8192), 10u);       // at least 1024 keys
  EXPECT_EQ(kernels::bitonic_local_chunk_log2(512), 9u);         // all of them: one dispatch
  EXPECT_EQ(kernels::bitonic_local_chunk_log2(32768, 12), 12u);
  EXPECT_EQ(kernels::bitonic_local_chunk_log2(64, 12), 6u);
  EXPECT_EQ(kernels::bitonic_lds_dispatches(32768, 11), 10u);
  EXPECT_EQ(kernels::bitonic_lds_dispatches(32768, 10), 13u);  // 1 sort, stages 10-14: 1+1+1+2+2 long, 5 merges
  EXPECT_EQ(kernels::bitonic_lds_dispatches(32768, 12), 7u);   // 1 sort, then 2 per stage 12-14
  EXPECT_EQ(kernels::bitonic_lds_dispatches(1u << 20, 12), 24u);  // 1 + 8 merges + 15 long
  EXPECT_EQ(kernels::bitonic_local_chunk_log2(64), 6u);  // a sort smaller than a chunk: one dispatch
  EXPECT_EQ(kernels::bitonic_lds_dispatches(64, 6), 1u);
  EXPECT_EQ(kernels::bitonic_local_first_pass(13, 12), 2u);  // distances 8192 and 4096 are long
  EXPECT_EQ(kernels::bitonic_local_first_pass(5, 12), 0u);
}

TEST(BitonicAlgo, ChunksArePowersOfTwoThatFitTheLds) {
  EXPECT_EQ(bench::parse_bitonic_chunk("auto"), 0u);
  EXPECT_EQ(bench::parse_bitonic_chunk("4096"), 12u);
  EXPECT_EQ(bench::parse_bitonic_chunk("2"), 1u);
  for (const char* bad : {"8192", "1", "0", "1000", "-4", "x", ""}) {
    try {
      bench::parse_bitonic_chunk(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("power of two from 2 to 4096"), std::string::npos) << e.what();
    }
  }
}

TEST(BitonicAlgo, UnknownNamesAreRefusedWithTheChoices) {
  EXPECT_EQ(bench::parse_bitonic_algo("lds"), bench::BitonicWorkload::Algo::lds);
  EXPECT_EQ(bench::parse_bitonic_algo("steps"), bench::BitonicWorkload::Algo::steps);
  try {
    bench::parse_bitonic_algo("quick");
    ADD_FAILURE() << "accepted quick";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown algorithm 'quick'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("valid: steps"), std::string::npos) << e.what();
  }
}

TEST(Report, JsonEscapesQuotesAndControls) {
  EXPECT_EQ(bench::json_escape("a\"b\\c\n"), "a\\\"b\\\\c\\u000a");
}

TEST(Report, JsonDocumentWithRowsAndAnExtraArray) {
  std::ostringstream out;
  bench::print_json(out, {{"n", "4", true}}, {{{"config", "baseline"}}}, {{"peers", {{{"peer", "cub"}}}}});
  EXPECT_EQ(out.str(), "{\"n\":4,\"rows\":[{\"config\":\"baseline\"}],\"peers\":[{\"peer\":\"cub\"}]}\n");
}
