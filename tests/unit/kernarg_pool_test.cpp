// KernargPool: alignment, no reuse while in flight, exhaustion, ring-order reclaim.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <vector>

#include "hsad/error.hpp"
#include "pools/kernarg_pool.hpp"

using hsad::KernargPool;

namespace {
struct Memory {
  explicit Memory(std::size_t bytes) : ptr(std::aligned_alloc(64, bytes)), size(bytes) {}
  ~Memory() { std::free(ptr); }
  void* ptr;
  std::size_t size;
};
std::uintptr_t addr(void* p) { return reinterpret_cast<std::uintptr_t>(p); }
}  // namespace

TEST(KernargPool, BlocksAre64ByteAlignedAndDisjoint) {
  Memory m(64 * 64);
  KernargPool pool(m.ptr, m.size);
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> ranges;
  for (std::size_t bytes : {1u, 24u, 64u, 65u, 200u}) {
    auto b = pool.try_acquire(bytes);
    ASSERT_TRUE(b);
    EXPECT_EQ(addr(b->ptr) % 64, 0u);
    ranges.push_back({addr(b->ptr), addr(b->ptr) + bytes});
  }
  for (std::size_t i = 0; i < ranges.size(); ++i)
    for (std::size_t j = i + 1; j < ranges.size(); ++j)
      EXPECT_TRUE(ranges[i].second <= ranges[j].first || ranges[j].second <= ranges[i].first);
}

TEST(KernargPool, ExhaustedPoolRefusesInsteadOfOverwriting) {
  Memory m(4 * 64);
  KernargPool pool(m.ptr, m.size);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(pool.try_acquire(64));
  EXPECT_FALSE(pool.try_acquire(64));
  EXPECT_EQ(pool.blocks_in_use(), 4u);
}

TEST(KernargPool, BlockIsReusedOnlyAfterRelease) {
  Memory m(2 * 64);
  KernargPool pool(m.ptr, m.size);
  auto a = pool.try_acquire(64);
  auto b = pool.try_acquire(64);
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(pool.try_acquire(64));
  pool.release(a->ticket);
  auto c = pool.try_acquire(64);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->ptr, a->ptr);  // the released block, never b's
}

TEST(KernargPool, OutOfOrderReleaseReclaimsInRingOrder) {
  Memory m(3 * 64);
  KernargPool pool(m.ptr, m.size);
  auto a = pool.try_acquire(64), b = pool.try_acquire(64), c = pool.try_acquire(64);
  pool.release(b->ticket);  // a still in flight: b's space must not come back before a's
  EXPECT_FALSE(pool.try_acquire(64));
  pool.release(a->ticket);
  auto d = pool.try_acquire(64), e = pool.try_acquire(64);
  ASSERT_TRUE(d && e);
  EXPECT_EQ(d->ptr, a->ptr);
  EXPECT_EQ(e->ptr, b->ptr);
  EXPECT_FALSE(pool.try_acquire(64));  // c is still held
  (void)c;
}

TEST(KernargPool, WrapsAroundWithoutSplittingABlock) {
  Memory m(5 * 64);
  KernargPool pool(m.ptr, m.size);
  auto a = pool.try_acquire(3 * 64);
  auto b = pool.try_acquire(64);
  ASSERT_TRUE(a && b);
  pool.release(a->ticket);
  // 1 unit left at the end, 3 free at the start: a 2-unit block must go to the start, whole.
  auto c = pool.try_acquire(128);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->ptr, m.ptr);
}

TEST(KernargPool, RequestLargerThanPoolIsAnError) {
  Memory m(2 * 64);
  KernargPool pool(m.ptr, m.size);
  EXPECT_THROW(pool.try_acquire(3 * 64), hsad::Error);
}

TEST(KernargPool, MisalignedMemoryIsRefused) {
  Memory m(4 * 64);
  EXPECT_THROW(KernargPool(static_cast<char*>(m.ptr) + 8, 128), hsad::Error);
  EXPECT_THROW(KernargPool(m.ptr, 100), hsad::Error);
}

TEST(KernargPool, ManyCyclesNeverHandOutABlockInUse) {
  Memory m(16 * 64);
  KernargPool pool(m.ptr, m.size);
  std::vector<KernargPool::Block> live;
  std::set<std::uintptr_t> in_use;
  for (int round = 0; round < 1000; ++round) {
    auto b = pool.try_acquire(64 * (1 + round % 3));
    if (b) {
      EXPECT_EQ(in_use.count(addr(b->ptr)), 0u);
      in_use.insert(addr(b->ptr));
      live.push_back(*b);
    }
    if (!b || live.size() > 5) {
      pool.release(live.front().ticket);
      in_use.erase(addr(live.front().ptr));
      live.erase(live.begin());
    }
  }
}
