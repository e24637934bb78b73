// The L2 model alone (sim/isa/l2_cache.hpp): what the GPU writes stays in the L2 until a
// write-back, what others write to memory is seen after an invalidation, dirty bytes are never
// lost or written over others' bytes, and writers racing a write-back lose nothing.
#include "l2_cache.hpp"

#include <gtest/gtest.h>

#include <emmintrin.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

namespace hsad::isa {
namespace {

struct Device {
  std::vector<std::uint32_t> memory = std::vector<std::uint32_t>(4096, 0);  // 16 KiB: 128 lines
  L2Cache l2;
  CachedRange range{l2, reinterpret_cast<std::uint64_t>(memory.data()), memory.size() * 4};
  std::uint64_t at(std::size_t i) const { return reinterpret_cast<std::uint64_t>(memory.data() + i); }
  std::uint32_t read(std::size_t i) {
    std::uint32_t v;
    std::memcpy(&v, range.read(at(i), 4), 4);
    return v;
  }
  void write(std::size_t i, std::uint32_t v) { range.write(at(i), &v, 4); }
};

TEST(L2Cache, AWriteStaysInTheL2UntilASystemRelease) {
  Device d;
  d.write(5, 42);
  EXPECT_EQ(d.read(5), 42u);       // the GPU sees its own write
  EXPECT_EQ(d.memory[5], 0u);      // the host does not
  d.l2.invalidate();               // an acquire keeps dirty bytes: they are the newest
  EXPECT_EQ(d.read(5), 42u);
  d.l2.write_back();
  EXPECT_EQ(d.memory[5], 42u);
  EXPECT_EQ(d.l2.counters().lines_written_back, 1u);
}

TEST(L2Cache, TheHostsWriteIsSeenOnlyAfterASystemAcquire) {
  Device d;
  EXPECT_EQ(d.read(7), 0u);  // the line is now in the L2
  d.memory[7] = 9;           // the host (or another GPU, or the copy engine) writes memory
  EXPECT_EQ(d.read(7), 0u);  // stale: no acquire yet
  d.l2.invalidate();
  EXPECT_EQ(d.read(7), 9u);
  EXPECT_EQ(d.l2.counters().lines_invalidated, 1u);
}

TEST(L2Cache, AWriteBackWritesOnlyTheBytesTheGpuWrote) {
  Device d;
  d.write(0, 1);   // line 0, bytes 0-3 dirty
  d.memory[1] = 77;  // the host writes another word of the same line
  d.l2.write_back();
  EXPECT_EQ(d.memory[0], 1u);
  EXPECT_EQ(d.memory[1], 77u);  // not overwritten by the L2's stale copy of the line
  d.l2.invalidate();
  EXPECT_EQ(d.read(1), 77u);
}

TEST(L2Cache, ACopyEngineRangeOperationWritesBackAndForgets) {
  Device d;
  d.write(40, 3);
  d.range.write_back(d.at(40), d.at(41));
  EXPECT_EQ(d.memory[40], 3u);
  d.memory[40] = 4;
  d.range.forget(d.at(40), d.at(41));
  EXPECT_EQ(d.read(40), 4u);
}

TEST(L2Cache, AtomicsRunInTheL2) {
  Device d;
  for (int i = 0; i < 10; ++i) {
    d.range.atomic(d.at(3), 4, [](std::uint8_t* p) { __atomic_fetch_add(reinterpret_cast<std::uint32_t*>(p), 1u, __ATOMIC_SEQ_CST); });
  }
  EXPECT_EQ(d.read(3), 10u);
  EXPECT_EQ(d.memory[3], 0u);
  d.l2.write_back();
  EXPECT_EQ(d.memory[3], 10u);
}

TEST(L2Cache, WritersRacingWriteBacksAndInvalidationsLoseNothing) {
  Device d;
  constexpr std::size_t kWords = 4096;
  std::vector<std::thread> writers;
  for (unsigned t = 0; t < 2; ++t) {
    writers.emplace_back([&d, t] {
      CachedRange::Lanes lanes(d.range);
      for (std::uint32_t round = 1; round <= 20; ++round) {
        for (std::size_t i = t; i < kWords; i += 2) {
          const std::uint32_t v = round * 10 + t;
          lanes.write(d.at(i), &v, 4);
        }
        lanes.release();
      }
    });
  }
  std::thread fences([&d] {
    for (int i = 0; i < 200; ++i) {
      d.l2.write_back();
      d.l2.invalidate();
    }
  });
  for (auto& w : writers) w.join();
  fences.join();
  d.l2.write_back();
  for (std::size_t i = 0; i < kWords; ++i) ASSERT_EQ(d.memory[i], 200u + i % 2) << "word " << i;
}

// Words another agent stores in memory while the L2 reads their line again: AMD GPUs read an
// aligned 8 or 16-byte word as one (whole_words.hpp), so a word written with equal dwords is read
// with equal dwords, never half old and half new. Line 0 holds a dirty dword (its clean bytes are
// read again around it), line 1 none (read again whole). On one CPU the threads take turns and
// nothing can tear; on two or more the words were torn while a line's clean bytes were read again
// one by one.
std::uint64_t torn_words(const std::uint8_t* p) {  // at p: an 8-byte word, then a 16-byte one
  std::uint32_t v[6];
  std::memcpy(v, p, 24);
  return (v[0] != v[1]) + (v[2] != v[3] || v[3] != v[4] || v[4] != v[5]);
}
void store_words(std::uint8_t* p, std::uint32_t k) {  // as torn_words reads them, each in one store
  __atomic_store_n(reinterpret_cast<std::uint64_t*>(p), std::uint64_t(k) << 32 | k, __ATOMIC_RELAXED);
  _mm_store_si128(reinterpret_cast<__m128i*>(p + 8), _mm_set1_epi32(int(k)));
}

TEST(L2Cache, ALineReadAgainWhileTheHostStoresKeepsItsWordsWhole) {
  Device d;
  auto* bytes = reinterpret_cast<std::uint8_t*>(d.memory.data());
  ASSERT_EQ(d.at(0) % 16, 0u) << "the words are not aligned";
  d.write(0, 1);  // line 0: bytes 0-3 dirty; the words at bytes 8-31 clean
  std::atomic<bool> started{false}, done{false};
  std::thread host([&] {
    for (std::uint32_t k = 1; !done.load(std::memory_order_relaxed); ++k) {
      store_words(bytes + 8, k);
      store_words(bytes + 128 + 8, k);
      started.store(true, std::memory_order_relaxed);
    }
  });
  while (!started.load(std::memory_order_relaxed)) std::this_thread::yield();
  std::uint64_t torn = 0;
  for (int i = 0; i < 200000; ++i) {
    d.l2.invalidate();
    torn += torn_words(d.range.read(d.at(2), 24));
    torn += torn_words(d.range.read(d.at(32 + 2), 24));
  }
  done = true;
  host.join();
  EXPECT_EQ(torn, 0u) << "words read half old, half new";
  EXPECT_EQ(d.read(0), 1u);  // the dirty dword kept
}

// The other way: the GPU's words written back while the host loads them from memory. Line 0 has
// only those words dirty (written back around the rest), line 1 all of its bytes.
TEST(L2Cache, AWriteBackWhileTheHostLoadsKeepsTheWordsWhole) {
  Device d;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(d.memory.data());
  ASSERT_EQ(d.at(0) % 16, 0u) << "the words are not aligned";
  std::atomic<bool> started{false}, done{false};
  std::thread host([&] {
    std::uint64_t torn = 0;
    while (!done.load(std::memory_order_relaxed)) {
      started.store(true, std::memory_order_relaxed);
      for (std::uint32_t at : {8u, 128u + 8u}) {
        std::uint32_t v[6];
        const std::uint64_t word = __atomic_load_n(reinterpret_cast<const std::uint64_t*>(bytes + at), __ATOMIC_RELAXED);
        std::memcpy(v, &word, 8);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(v + 2), _mm_load_si128(reinterpret_cast<const __m128i*>(bytes + at + 8)));
        torn += torn_words(reinterpret_cast<const std::uint8_t*>(v));
      }
    }
    EXPECT_EQ(torn, 0u) << "words loaded half old, half new";
  });
  while (!started.load(std::memory_order_relaxed)) std::this_thread::yield();
  for (std::uint32_t k = 1; k <= 200000; ++k) {
    std::uint32_t line[32];
    std::fill(line, line + 32, k);
    d.range.write(d.at(2), line, 24);    // line 0, bytes 8-31
    d.range.write(d.at(32), line, 128);  // line 1, whole
    d.l2.write_back();
  }
  done = true;
  host.join();
}

// An instruction's lanes mark the bytes they wrote when they let the line go: exactly those bytes,
// also a write across the middle of a line (bytes 60-67 lie in both of its dirty words).
TEST(L2Cache, LanesMarkExactlyTheBytesTheyWrote) {
  Device d;
  {
    CachedRange::Lanes lanes(d.range);
    const std::uint64_t across[2] = {0x1111111111111111ull, 0};
    lanes.write(d.at(15), &across[0], 8);  // bytes 60-67 of line 0
    const std::uint32_t v = 7;
    lanes.write(d.at(40), &v, 4);  // line 1, bytes 32-35
  }
  for (std::size_t i = 0; i < 64; ++i) d.memory[i] = 0xaaaaaaaa;  // the host writes the rest meanwhile
  d.l2.write_back();
  for (std::size_t i = 0; i < 64; ++i) {
    const std::uint32_t want = i == 15 || i == 16 ? 0x11111111u : i == 40 ? 7u : 0xaaaaaaaau;
    EXPECT_EQ(d.memory[i], want) << "word " << i;
  }
  EXPECT_EQ(d.l2.counters().lines_written_back, 2u);
}

// Two queues of one GPU release at system scope at once (a boundary and an interior batch ending
// together): each release completes its signal only when every byte dirty before it is in memory,
// also when the other release took the dirty lines first and is still writing them.
TEST(L2Cache, ASecondWriteBackReturnsOnlyWhenTheFirstsLinesAreInMemory) {
  constexpr std::size_t kWords = std::size_t(8) << 20 >> 2;  // 8 MiB: the first write-back takes a while
  std::vector<std::uint32_t> memory(kWords, 0);
  L2Cache l2;
  CachedRange range(l2, reinterpret_cast<std::uint64_t>(memory.data()), kWords * 4);
  {
    CachedRange::Lanes lanes(range);
    for (std::size_t i = 0; i < kWords; i += 32) {  // one word per line, every line dirty
      const std::uint32_t v = 1;
      lanes.write(reinterpret_cast<std::uint64_t>(&memory[i]), &v, 4);
    }
  }
  std::thread first([&l2] { l2.write_back(); });
  while (l2.counters().write_backs == 0) std::this_thread::yield();  // the first took the lines
  l2.write_back();
  // Read as the copy engine would, the moment the second release's signal completes.
  std::size_t missing = 0;
  for (std::size_t i = kWords; i >= 32; i -= 32) missing += __atomic_load_n(&memory[i - 32], __ATOMIC_RELAXED) != 1;
  first.join();
  EXPECT_EQ(missing, 0u) << "lines not yet in memory when the second write-back returned";
}

}  // namespace
}  // namespace hsad::isa
