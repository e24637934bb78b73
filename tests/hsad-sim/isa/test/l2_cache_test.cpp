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
#include <utility>
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
// aligned 4, 8 or 16-byte word as one (whole_words.hpp), so a word stored with all its bytes equal
// is read with all its bytes equal, never part old and part new. Each line holds such a dword at
// byte 4, an 8-byte word at 8 and a 16-byte word at 16; line 0 also a dirty dword at 0 (its clean
// bytes are read again around it), line 1 nothing dirty (read again whole). On one CPU the threads
// take turns and nothing can tear; on two or more the words were torn while a line's clean bytes
// were read again one by one.
std::uint8_t pattern(std::uint32_t k) { return std::uint8_t(k % 251 + 1); }  // never 0: memory's first value
std::uint64_t torn_words(const std::uint8_t* p) {  // p: byte 4 of a line
  std::uint64_t torn = 0;
  for (const auto& [at, size] : {std::pair<int, int>{0, 4}, {4, 8}, {12, 16}}) {
    for (int b = 1; b < size; ++b) {
      if (p[at + b] != p[at]) {
        ++torn;
        break;
      }
    }
  }
  return torn;
}
void store_words(std::uint8_t* line, std::uint32_t k) {  // as torn_words reads them, each in one store
  const std::uint32_t v = pattern(k) * 0x01010101u;
  __atomic_store_n(reinterpret_cast<std::uint32_t*>(line + 4), v, __ATOMIC_RELAXED);
  __atomic_store_n(reinterpret_cast<std::uint64_t*>(line + 8), std::uint64_t(v) << 32 | v, __ATOMIC_RELAXED);
  _mm_store_si128(reinterpret_cast<__m128i*>(line + 16), _mm_set1_epi32(int(v)));
}
bool sixteen_bytes_whole() { return __builtin_cpu_supports("avx"); }  // whole_words.hpp: an SSE move is atomic with AVX

TEST(L2Cache, ALineReadAgainWhileTheHostStoresKeepsItsWordsWhole) {
  if (!sixteen_bytes_whole()) GTEST_SKIP() << "an aligned 16-byte move is one access only on CPUs with AVX";
  Device d;
  auto* bytes = reinterpret_cast<std::uint8_t*>(d.memory.data());
  ASSERT_EQ(d.at(0) % 16, 0u) << "the words are not aligned";
  d.write(0, 7);  // line 0: bytes 0-3 dirty
  std::atomic<std::uint32_t> stored{0};
  std::atomic<bool> done{false};
  std::thread host([&] {
    for (std::uint32_t k = 1; !done.load(std::memory_order_relaxed); ++k) {
      store_words(bytes, k);
      store_words(bytes + 128, k);
      stored.store(k, std::memory_order_release);
    }
  });
  while (stored.load(std::memory_order_acquire) == 0) std::this_thread::yield();
  std::uint64_t torn = 0;
  for (int i = 0; i < 200000; ++i) {
    d.l2.invalidate();
    torn += torn_words(d.range.read(d.at(1), 28));
    torn += torn_words(d.range.read(d.at(32 + 1), 28));
  }
  done = true;
  host.join();
  EXPECT_EQ(torn, 0u) << "words read part old, part new";
  // Read again once the host is done: its last words, and the dirty dword kept.
  d.l2.invalidate();
  const std::uint8_t last = pattern(stored.load());
  for (const std::size_t line : {0u, 32u}) {
    const std::uint8_t* p = d.range.read(d.at(line + 1), 28);
    for (int b = 0; b < 28; ++b) ASSERT_EQ(p[b], last) << "line " << line / 32 << ", byte " << 4 + b;
  }
  EXPECT_EQ(d.read(0), 7u);
}

// The other way: the GPU's words written back while the host loads them from memory. Line 0 has
// only those words dirty (written back around bytes 0-3), line 1 all of its bytes.
TEST(L2Cache, AWriteBackWhileTheHostLoadsKeepsTheWordsWhole) {
  if (!sixteen_bytes_whole()) GTEST_SKIP() << "an aligned 16-byte move is one access only on CPUs with AVX";
  Device d;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(d.memory.data());
  ASSERT_EQ(d.at(0) % 16, 0u) << "the words are not aligned";
  d.memory[0] = 0x5a5a5a5a;  // the host's, never written back over
  std::atomic<bool> started{false}, done{false};
  std::thread host([&] {
    std::uint64_t torn = 0;
    while (!done.load(std::memory_order_relaxed)) {
      started.store(true, std::memory_order_relaxed);
      for (std::uint32_t line : {0u, 128u}) {
        alignas(16) std::uint8_t v[28];
        const std::uint32_t dword = __atomic_load_n(reinterpret_cast<const std::uint32_t*>(bytes + line + 4), __ATOMIC_RELAXED);
        const std::uint64_t word = __atomic_load_n(reinterpret_cast<const std::uint64_t*>(bytes + line + 8), __ATOMIC_RELAXED);
        std::memcpy(v, &dword, 4);
        std::memcpy(v + 4, &word, 8);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(v + 12), _mm_load_si128(reinterpret_cast<const __m128i*>(bytes + line + 16)));
        torn += torn_words(v);
      }
    }
    EXPECT_EQ(torn, 0u) << "words loaded part old, part new";
  });
  while (!started.load(std::memory_order_relaxed)) std::this_thread::yield();
  constexpr std::uint32_t kRounds = 400000;
  for (std::uint32_t k = 1; k <= kRounds; ++k) {
    std::uint8_t line[128];
    std::memset(line, pattern(k), sizeof line);
    d.range.write(d.at(1), line, 28);    // line 0, bytes 4-31
    d.range.write(d.at(32), line, 128);  // line 1, whole
    d.l2.write_back();
  }
  done = true;
  host.join();
  // Memory holds the last round's bytes where the GPU wrote, and the host's elsewhere.
  const std::uint32_t last = pattern(kRounds) * 0x01010101u;
  EXPECT_EQ(d.memory[0], 0x5a5a5a5au);
  for (std::size_t i = 1; i < 8; ++i) EXPECT_EQ(d.memory[i], last) << "word " << i;
  for (std::size_t i = 8; i < 32; ++i) EXPECT_EQ(d.memory[i], 0u) << "word " << i;
  for (std::size_t i = 32; i < 64; ++i) EXPECT_EQ(d.memory[i], last) << "word " << i;
}

// The pieces a partly dirty line is copied in, byte for byte: a dirty dword and a clean one in one
// 8 bytes, a dirty 8 bytes, single dirty bytes, and a range that ends inside a line at a size no
// whole word divides (100 bytes).
TEST(L2Cache, APartlyDirtyLineIsReadAgainAndWrittenBackByteForByte) {
  alignas(16) std::uint8_t memory[112];
  std::memset(memory, 0x11, sizeof memory);
  L2Cache l2;
  CachedRange range(l2, reinterpret_cast<std::uint64_t>(memory), 100);
  const auto at = [&](std::size_t i) { return reinterpret_cast<std::uint64_t>(memory) + i; };
  std::uint8_t gpu[100];
  std::memcpy(gpu, range.read(at(0), 100), 100);  // the line, filled from memory
  const std::pair<std::size_t, std::size_t> writes[] = {{0, 4}, {12, 4}, {40, 8}, {61, 1}, {97, 1}, {98, 2}};
  for (const auto& [from, size] : writes) {
    for (std::size_t b = from; b < from + size; ++b) gpu[b] = std::uint8_t(0xa0 + b);
    range.write(at(from), gpu + from, std::uint32_t(size));
  }
  std::memset(memory, 0x22, sizeof memory);  // the host writes every byte of memory meanwhile
  const auto dirty = [&](std::size_t b) {
    for (const auto& [from, size] : writes) {
      if (b >= from && b < from + size) return true;
    }
    return false;
  };
  l2.invalidate();  // the clean bytes are read again from memory; the dirty ones stay
  const std::uint8_t* l2_bytes = range.read(at(0), 100);
  for (std::size_t b = 0; b < 100; ++b) ASSERT_EQ(l2_bytes[b], dirty(b) ? gpu[b] : 0x22) << "the L2's byte " << b;
  l2.write_back();  // the dirty bytes go to memory; the host's others stay
  for (std::size_t b = 0; b < 100; ++b) ASSERT_EQ(memory[b], dirty(b) ? gpu[b] : 0x22) << "memory's byte " << b;
  for (std::size_t b = 100; b < 112; ++b) ASSERT_EQ(memory[b], 0x22) << "byte " << b << " past the range";
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
