// The batch fence policy: system scope only where the host is involved.
#include <gtest/gtest.h>

#include "aql_packets/fence_policy.hpp"

using namespace hsad::aql;

TEST(FencePolicy, BaselineIsSystemScopeOnEveryPacket) {
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(fences_for(i, 5, false), (Fences{Scope::system, Scope::system}));
}

TEST(FencePolicy, NarrowFirstPacketAcquiresFromSystem) {
  EXPECT_EQ(fences_for(0, 120, true), (Fences{Scope::system, Scope::agent}));
}

TEST(FencePolicy, NarrowLastPacketReleasesToSystem) {
  EXPECT_EQ(fences_for(119, 120, true), (Fences{Scope::agent, Scope::system}));
}

TEST(FencePolicy, NarrowMiddlePacketsAreAgentScope) {
  for (std::size_t i = 1; i < 119; ++i) EXPECT_EQ(fences_for(i, 120, true), (Fences{Scope::agent, Scope::agent}));
}

TEST(FencePolicy, NarrowSinglePacketIsSystemBothWays) {
  EXPECT_EQ(fences_for(0, 1, true), (Fences{Scope::system, Scope::system}));
}

TEST(FencePolicy, SystemFenceCountMatchesPolicy) {
  for (std::size_t n : {1u, 2u, 7u, 120u}) {
    for (bool narrow : {false, true}) {
      std::size_t counted = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const Fences f = fences_for(i, n, narrow);
        counted += (f.acquire == Scope::system) + (f.release == Scope::system);
      }
      EXPECT_EQ(counted, system_fence_count(n, narrow)) << "n=" << n << " narrow=" << narrow;
    }
  }
  EXPECT_EQ(system_fence_count(120, false), 240u);
  EXPECT_EQ(system_fence_count(120, true), 2u);
}
