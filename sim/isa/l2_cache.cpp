#include "l2_cache.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <new>

namespace hsad::isa {
namespace {

// Pages are committed only where lines are used: a large allocation costs nothing until touched.
void* map_zeroed(std::uint64_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}

std::uint64_t page_round(std::uint64_t bytes) { return (bytes + 4095) & ~std::uint64_t(4095); }

inline void relax() { __builtin_ia32_pause(); }

// The bytes of a line [0, n) between memory and the L2's copy that `dirty` (one bit per byte, two
// words of bits) marks as taken (dirty_ones: the dirty ones, else the clean ones): 16, 8 and 4-byte
// groups of them through `whole` (which copies aligned 4, 8 and 16 bytes in one access), a dword
// only partly taken byte by byte. The groups count from the line's start, which has the address's
// alignment where a range starts on a page (KFD's allocations); elsewhere `whole` still copies
// right, only in smaller pieces (it looks at the memory side's own alignment).
template <class Whole>
void copy_line(std::uint8_t* to, const std::uint8_t* from, std::uint32_t n, const std::uint64_t dirty[2], bool dirty_ones,
               Whole&& whole) {
  const auto taken = [&](std::uint32_t b, std::uint32_t bytes) {  // the group's bits taken, as a mask of `bytes` bits
    const std::uint64_t bits = (dirty[b / 64] >> (b % 64)) & ((1ull << bytes) - 1);
    return dirty_ones ? bits : ~bits & ((1ull << bytes) - 1);
  };
  const bool every = dirty_ones ? (~dirty[0] | ~dirty[1]) == 0 : (dirty[0] | dirty[1]) == 0;
  if (every && n % 16 == 0) {  // the usual line: all of it in one call
    whole(to, from, n);
    return;
  }
  for (std::uint32_t g = 0; g < n; g += 16) {
    if (g + 16 <= n && taken(g, 16) == 0xffff) {
      whole(to + g, from + g, 16);
      continue;
    }
    for (std::uint32_t h = g; h < std::min(g + 16, n); h += 8) {
      const std::uint64_t mask = taken(h, 8);
      if (h + 8 <= n && mask == 0xff) {
        whole(to + h, from + h, 8);
        continue;
      }
      for (std::uint32_t d = h; d < std::min(h + 8, n); d += 4) {
        const std::uint64_t dword = (mask >> (d - h)) & 0xf;
        if (d + 4 <= n && dword == 0xf) {
          whole(to + d, from + d, 4);
          continue;
        }
        for (std::uint32_t b = d; b < std::min(d + 4, n); ++b) {
          if ((dword >> (b - d)) & 1) to[b] = from[b];
        }
      }
    }
  }
}

}  // namespace

CachedRange::CachedRange(L2Cache& l2, std::uint64_t base, std::uint64_t size) : l2_(l2), base_(base), size_(size) {
  line_count_ = (size + kLineBytes - 1) / kLineBytes;
  mapped_bytes_ = page_round(line_count_ * kLineBytes);
  lines_bytes_ = page_round(line_count_ * sizeof(Line));
  shadow_ = static_cast<std::uint8_t*>(map_zeroed(mapped_bytes_));
  // Zeroed pages are lines never filled (state 0) and clean: no constructor needs to run.
  static_assert(sizeof(Line) == 24 && alignof(Line) == 8);
  lines_ = static_cast<Line*>(map_zeroed(lines_bytes_));
}

CachedRange::~CachedRange() {
  munmap(shadow_, mapped_bytes_);
  munmap(lines_, lines_bytes_);
}

std::uint32_t CachedRange::lock_current(Line& l, std::uint64_t i) {
  std::uint32_t s = l.state.load(std::memory_order_relaxed);
  for (;;) {
    if (s & kHeld) {
      relax();
      s = l.state.load(std::memory_order_relaxed);
      continue;
    }
    if (l.state.compare_exchange_weak(s, s | kHeld, std::memory_order_acquire, std::memory_order_relaxed)) break;
  }
  const std::uint32_t epoch = l2_.epoch();
  if (s != epoch) {
    fill(l, i);
    l2_.current_lines_.fetch_add(1, std::memory_order_relaxed);
  }
  return epoch;
}

void CachedRange::fill(Line& l, std::uint64_t i) {
  // The bytes the L2 holds dirty are newer than memory's: only the others are read again, each
  // naturally aligned 8 or 16 bytes of them in one read (whole_words.hpp), as the host or another
  // GPU may be storing such a word in memory meanwhile.
  std::uint8_t* to = shadow_ + i * kLineBytes;
  const auto* from = reinterpret_cast<const std::uint8_t*>(base_ + i * kLineBytes);
  const std::uint32_t n = std::uint32_t(std::min<std::uint64_t>(kLineBytes, size_ - i * kLineBytes));
  copy_line(to, from, n, l.dirty, false, [](std::uint8_t* t, const std::uint8_t* f, std::uint32_t bytes) {
    read_whole_words(reinterpret_cast<std::uint32_t*>(t), f, bytes / 4);
  });
}

void CachedRange::list(Line& l, std::uint64_t i, std::uint16_t writer) {
  l.listed = 1;
  l2_.listed(this, i);
  listed_lines_.fetch_add(1, std::memory_order_relaxed);
  last_writer_.store(writer, std::memory_order_relaxed);
}

bool CachedRange::flush(Line& l, std::uint64_t i) {
  if ((l.dirty[0] | l.dirty[1]) == 0) return false;
  // Only the dirty bytes, each naturally aligned 8 or 16 of them in one store: the host or
  // another GPU may be loading such a word from memory meanwhile.
  const std::uint8_t* from = shadow_ + i * kLineBytes;
  auto* to = reinterpret_cast<std::uint8_t*>(base_ + i * kLineBytes);
  const std::uint32_t n = std::uint32_t(std::min<std::uint64_t>(kLineBytes, size_ - i * kLineBytes));
  copy_line(to, from, n, l.dirty, true, [](std::uint8_t* t, const std::uint8_t* f, std::uint32_t bytes) {
    write_whole_words(t, f, bytes);
  });
  l.dirty[0] = l.dirty[1] = 0;
  return true;
}

const std::uint8_t* CachedRange::read(std::uint64_t address, std::uint32_t bytes) {
  const std::uint32_t epoch = l2_.epoch();
  const std::uint64_t first = index(address), last = index(address + bytes - 1);
  for (std::uint64_t i = first; i <= last; ++i) {
    Line& l = lines_[i];
    // Filled in this epoch and not held: the L2 has it (a read racing a write may see either).
    if (l.state.load(std::memory_order_acquire) == epoch) continue;
    unlock(l, lock_current(l, i));
  }
  return shadow_ + (address - base_);
}

void CachedRange::write(std::uint64_t address, const void* src, std::uint32_t bytes, std::uint16_t writer) {
  const auto* from = static_cast<const std::uint8_t*>(src);
  while (bytes) {
    const std::uint64_t i = index(address);
    const std::uint32_t offset = std::uint32_t(address - base_) % kLineBytes;
    const std::uint32_t n = std::min(bytes, kLineBytes - offset);
    Line& l = lines_[i];
    const std::uint32_t epoch = lock_current(l, i);
    write_whole_words(shadow_ + (address - base_), from, n);
    mark_dirty(l, i, offset, n, writer);
    unlock(l, epoch);
    address += n, from += n, bytes -= n;
  }
}

void CachedRange::write_back(std::uint64_t lo, std::uint64_t hi) {
  lo = std::max(lo, base_), hi = std::min(hi, base_ + size_);
  if (lo >= hi) return;
  for (std::uint64_t i = index(lo); i <= index(hi - 1); ++i) {
    Line& l = lines_[i];
    if (l.state.load(std::memory_order_acquire) == 0) continue;  // never filled: nothing dirty
    const std::uint32_t held = lock_current(l, i);
    if (flush(l, i)) l2_.lines_written_back_.fetch_add(1, std::memory_order_relaxed);
    unlock(l, held);
  }
}

void CachedRange::forget(std::uint64_t lo, std::uint64_t hi) {
  lo = std::max(lo, base_), hi = std::min(hi, base_ + size_);
  if (lo >= hi) return;
  for (std::uint64_t i = index(lo); i <= index(hi - 1); ++i) {
    Line& l = lines_[i];
    if (l.state.load(std::memory_order_acquire) == 0) continue;
    lock_current(l, i);
    flush(l, i);  // bytes outside [lo, hi) of an edge line stay written
    unlock(l, 0);  // stale: read from memory at the next use
  }
}

bool CachedRange::dirty_in(std::uint64_t lo, std::uint64_t hi, std::uint64_t* line_address, std::uint16_t* writer) const {
  lo = std::max(lo, base_), hi = std::min(hi, base_ + size_);
  if (lo >= hi) return false;
  for (std::uint64_t i = index(lo); i <= index(hi - 1); ++i) {
    const Line& l = lines_[i];
    if (l.state.load(std::memory_order_acquire) == 0 || (l.dirty[0] | l.dirty[1]) == 0) continue;
    *line_address = base_ + i * kLineBytes;
    *writer = l.writer;
    return true;
  }
  return false;
}

std::uint64_t L2Cache::dirty_lines(std::uint16_t* first_writer) {
  std::lock_guard<std::mutex> lock(dirty_mutex_);
  std::uint64_t n = 0;
  for (const auto& [range, i] : dirty_) {
    const CachedRange::Line& l = range->lines_[i];
    if ((l.dirty[0] | l.dirty[1]) == 0) continue;
    if (n++ == 0) *first_writer = l.writer;
  }
  return n;
}

namespace {
std::mutex writers_mutex;
std::vector<std::string>& writers() {
  static auto* w = new std::vector<std::string>(0x10000);  // never destroyed: used at exit
  return *w;
}
std::uint32_t next_writer = 1;  // under writers_mutex: 1 to 65535, round
}  // namespace

std::uint16_t writer_tag(const std::string& description) {
  std::lock_guard<std::mutex> lock(writers_mutex);
  const std::uint16_t tag = std::uint16_t(next_writer);
  next_writer = next_writer == 0xffff ? 1 : next_writer + 1;
  writers()[tag] = description;
  return tag;
}

std::string writer_name(std::uint16_t tag) {
  std::lock_guard<std::mutex> lock(writers_mutex);
  return tag && !writers()[tag].empty() ? writers()[tag] : std::string("an unknown writer");
}

void L2Cache::listed(CachedRange* range, std::uint64_t line) {
  std::lock_guard<std::mutex> lock(dirty_mutex_);
  dirty_.emplace_back(range, line);
}

void L2Cache::write_back() {
  std::lock_guard<std::mutex> one_at_a_time(write_back_mutex_);
  std::shared_lock<std::shared_mutex> alive(ranges_);
  std::vector<std::pair<CachedRange*, std::uint64_t>> lines;
  {
    std::lock_guard<std::mutex> lock(dirty_mutex_);
    lines.swap(dirty_);
  }
  write_backs_.fetch_add(1, std::memory_order_relaxed);
  std::uint64_t written = 0;
  for (const auto& [range, i] : lines) {
    CachedRange::Line& l = range->lines_[i];
    // Held while written: a write to the line waits, then marks it dirty (and listed) again.
    std::uint32_t s = l.state.load(std::memory_order_relaxed);
    for (;;) {
      if (s & CachedRange::kHeld) {
        relax();
        s = l.state.load(std::memory_order_relaxed);
        continue;
      }
      if (l.state.compare_exchange_weak(s, s | CachedRange::kHeld, std::memory_order_acquire, std::memory_order_relaxed)) break;
    }
    written += range->flush(l, i);
    l.listed = 0;
    range->listed_lines_.fetch_sub(1, std::memory_order_relaxed);
    range->unlock(l, s);
  }
  lines_written_back_.fetch_add(written, std::memory_order_relaxed);
}

void L2Cache::invalidate() {
  invalidations_.fetch_add(1, std::memory_order_relaxed);
  lines_invalidated_.fetch_add(current_lines_.exchange(0, std::memory_order_relaxed), std::memory_order_relaxed);
  // Epochs live in 31 bits, and 0 means never filled: after 2^31 - 1 invalidations, back to 1.
  std::uint32_t e = epoch_.load(std::memory_order_relaxed), next;
  do {
    next = (e + 1) & ~CachedRange::kHeld;
    if (next == 0) next = 1;
  } while (!epoch_.compare_exchange_weak(e, next, std::memory_order_acq_rel));
}

void L2Cache::retire(CachedRange* range) {
  std::unique_lock<std::shared_mutex> alone(ranges_);
  std::lock_guard<std::mutex> lock(dirty_mutex_);
  dirty_.erase(std::remove_if(dirty_.begin(), dirty_.end(), [&](const auto& e) { return e.first == range; }), dirty_.end());
}

L2Cache::Counters L2Cache::counters() const {
  Counters c;
  c.write_backs = write_backs_.load(std::memory_order_relaxed);
  c.invalidations = invalidations_.load(std::memory_order_relaxed);
  c.lines_written_back = lines_written_back_.load(std::memory_order_relaxed);
  c.lines_invalidated = lines_invalidated_.load(std::memory_order_relaxed);
  return c;
}

}  // namespace hsad::isa
