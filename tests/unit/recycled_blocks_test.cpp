// RecycledBlocks (pools/recycled_blocks.hpp): a block given back is the next one taken on that
// thread, the list is bounded, and a thread's blocks go back to the heap when it ends (under ASan
// the leak check at exit would name any that did not).
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "pools/recycled_blocks.hpp"

using hsad::detail::RecycledBlocks;

namespace {
using Blocks = RecycledBlocks<96>;

TEST(RecycledBlocks, AGivenBlockIsTheNextTakenOnThatThread) {
  void* a = Blocks::take();
  Blocks::give(a);
  EXPECT_EQ(Blocks::take(), a);
  Blocks::give(a);
}

TEST(RecycledBlocks, BlocksTakenTogetherAreDistinctAndWritable) {
  std::vector<void*> held;
  std::set<void*> distinct;
  for (int i = 0; i < 200; ++i) {
    held.push_back(Blocks::take());
    std::memset(held.back(), i, 96);
    distinct.insert(held.back());
  }
  EXPECT_EQ(distinct.size(), held.size());
  for (void* p : held) Blocks::give(p);  // 64 kept, the rest to the heap
  std::set<void*> again;
  for (int i = 0; i < 64; ++i) again.insert(Blocks::take());
  for (void* p : again) EXPECT_EQ(distinct.count(p), 1u) << "a kept block comes back";
  for (void* p : again) Blocks::give(p);
}

TEST(RecycledBlocks, AThreadsBlocksGoBackWhenItEnds) {
  std::vector<void*> taken;
  for (int i = 0; i < 32; ++i) taken.push_back(Blocks::take());
  // Freed on another thread, as a submission waited for elsewhere is: they join that thread's
  // list, which its end gives back to the heap.
  std::thread other([&] {
    for (void* p : taken) Blocks::give(p);
    EXPECT_EQ(Blocks::take(), taken.back());
    Blocks::give(taken.back());
  });
  other.join();  // its 32 blocks are back on the heap, or LeakSanitizer names them at exit
}
}  // namespace
