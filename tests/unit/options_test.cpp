// Options parsing and the benchmark ladder.
#include <gtest/gtest.h>

#include "ladder.hpp"
#include "hsad/error.hpp"
#include "hsad/options.hpp"

using hsad::Options;

TEST(OptionsParse, AllSetsEveryFlagReplayIncluded) {
  const Options o = Options::parse("all");
  EXPECT_TRUE(o.signal && o.kernarg && o.nosync && o.fence && o.pinned && o.replay);
  EXPECT_FALSE(o.profile);
  EXPECT_EQ(o, Options::all());
}

TEST(OptionsParse, NoneSetsNothing) {
  const Options o = Options::parse("none");
  EXPECT_FALSE(o.signal || o.kernarg || o.nosync || o.fence || o.pinned || o.replay || o.profile);
  EXPECT_EQ(o, Options::none());
  EXPECT_EQ(Options::baseline(), Options::none());
}

// What an application gets without asking: every optimization that pays on the first submit.
// Replay is not among them (a CUDA graph costs more to build than to launch once).
TEST(OptionsDefault, IsTheFastPathWithoutReplay) {
  const Options o{};
  EXPECT_TRUE(o.signal && o.kernarg && o.nosync && o.fence && o.pinned);
  EXPECT_FALSE(o.replay || o.profile);
  EXPECT_EQ(o.to_string(), "signal,kernarg,nosync,fence,pinned");
  Options replayed = o;
  replayed.replay = true;
  EXPECT_EQ(replayed, Options::all());
}

TEST(OptionsParse, CommaListSetsExactlyThoseFlags) {
  const Options o = Options::parse("nosync, fence");
  EXPECT_TRUE(o.nosync);
  EXPECT_TRUE(o.fence);
  EXPECT_FALSE(o.signal || o.kernarg || o.pinned || o.replay);
}

TEST(OptionsParse, UnknownNameIsRefusedWithTheValidList) {
  try {
    Options::parse("signal,turbo");
    FAIL() << "no error";
  } catch (const hsad::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("'turbo'"), std::string::npos) << m;
    EXPECT_NE(m.find("signal, kernarg, nosync, fence, pinned"), std::string::npos) << m;
  }
}

TEST(OptionsParse, EmptyTextIsRefused) {
  EXPECT_THROW(Options::parse(""), hsad::Error);
  EXPECT_THROW(Options::parse("signal,"), hsad::Error);
}

TEST(OptionsToString, ListsFlagsInLadderOrder) {
  EXPECT_EQ(Options::parse("pinned,signal").to_string(), "signal,pinned");
  EXPECT_EQ(Options::none().to_string(), "none");
}

TEST(OptionsLadder, AllGivesBaselineThenSixCumulativeRowsEndingWithReplay) {
  const auto rows = hsad::bench::ladder(Options::all());
  ASSERT_EQ(rows.size(), 7u);
  const char* names[] = {"baseline", "+signal", "+kernarg", "+nosync", "+fence", "+pinned", "+replay"};
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i].config, names[i]);
  EXPECT_EQ(rows[0].options, Options::none());
  EXPECT_EQ(rows[5].options, Options{});
  EXPECT_EQ(rows[6].options, Options::all());
  EXPECT_TRUE(rows[3].options.signal && rows[3].options.kernarg && rows[3].options.nosync);
  EXPECT_FALSE(rows[3].options.fence);
}

TEST(OptionsLadder, SubsetAddsOnlyTheWantedFlags) {
  const auto rows = hsad::bench::ladder(Options::parse("fence,signal"));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].config, "+signal");
  EXPECT_EQ(rows[2].config, "+fence");
  EXPECT_EQ(rows[2].options, Options::parse("signal,fence"));
}

TEST(OptionsParse, AllCanBeExtendedWithReplay) {
  Options want = Options{};
  want.replay = true;
  EXPECT_EQ(Options::parse("all,replay"), want);
}
