// A simulated GPU's L2 over its own device memory, write-back, as AMD's memory model describes it
// for gfx90a, gfx908 and gfx1030 (LLVM's AMDGPUUsage, "Memory Model"): the agent's kernels read
// and write the L2; the host, another GPU and a copy engine see memory. Only a release at system
// scope (a packet's fence, buffer_wbl2) puts what the L2 holds dirty into memory, and only an
// acquire at system scope (a packet's fence, buffer_invl2) makes the L2 read memory again. So a
// fence too narrow gives a wrong result here, as it would on the hardware.
//
// The model holds a copy of each cached allocation (its shadow) and, per 128-byte line, which
// bytes are dirty. Capacity is unbounded: nothing is ever evicted, so nothing reaches memory by
// luck, which makes a missing fence fail every time instead of sometimes.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "whole_words.hpp"

namespace hsad::isa {

class L2Cache;

// Who wrote a line last, for the diagnosis (--cache report): a dispatch's description ("kernel
// 'K', dispatch N of queue Q on GPU G"), kept for the 65535 latest (a tag is reused after that;
// 0: unknown, such as a test's writes).
std::uint16_t writer_tag(const std::string& description);
std::string writer_name(std::uint16_t tag);

// The L2's lines of one allocation of its GPU's device memory.
class CachedRange {
 public:
  CachedRange(L2Cache& l2, std::uint64_t base, std::uint64_t size);
  ~CachedRange();
  CachedRange(const CachedRange&) = delete;
  CachedRange& operator=(const CachedRange&) = delete;

  std::uint64_t base() const { return base_; }
  std::uint64_t size() const { return size_; }
  L2Cache& l2() const { return l2_; }

  // Where a read of [address, address + bytes) finds the L2's bytes (each line filled from memory
  // first where the L2 does not hold it, or held it before the last invalidation).
  const std::uint8_t* read(std::uint64_t address, std::uint32_t bytes);
  // A write into the L2 (write-allocate); the bytes are dirty until a write-back. `writer`: a
  // writer_tag, kept per line for the diagnosis.
  void write(std::uint64_t address, const void* src, std::uint32_t bytes, std::uint16_t writer = 0);
  // An atomic (at most 8 bytes, aligned): `op` gets the L2's bytes while no one else changes
  // its line; they are dirty afterwards.
  template <class Op>
  void atomic(std::uint64_t address, std::uint32_t bytes, Op&& op, std::uint16_t writer = 0) {
    Line& l = line(address);
    const std::uint32_t epoch = lock_current(l, index(address));
    op(shadow_ + (address - base_));
    mark_dirty(l, index(address), std::uint32_t(address - base_) % kLineBytes, bytes, writer);
    unlock(l, epoch);
  }

  // The diagnosis: the first line of [lo, hi) holding dirty bytes, and its last writer (a racy
  // look, for a report only). False where none does.
  bool dirty_in(std::uint64_t lo, std::uint64_t hi, std::uint64_t* line_address, std::uint16_t* writer) const;
  // The diagnosis, cheaply: how many of its lines wait on the L2's dirty list (lines written since
  // the last write-back), and the writer_tag of the latest.
  std::uint64_t listed_lines() const { return listed_lines_.load(std::memory_order_relaxed); }
  std::uint16_t last_writer() const { return last_writer_.load(std::memory_order_relaxed); }

  // What a copy engine's or the host's access does to the lines of [lo, hi): dirty bytes go to
  // memory first (a copy reads memory); after a write to memory, the lines are read again.
  void write_back(std::uint64_t lo, std::uint64_t hi);
  void forget(std::uint64_t lo, std::uint64_t hi);

  static constexpr std::uint32_t kLineBytes = 128;

  // The lanes of one instruction, in order: a line is checked once for the lanes that read it,
  // and held once for the lanes that write it (one line at a time: never two, so no two writers
  // wait for each other). Released at the end of the instruction.
  class Lanes {
   public:
    explicit Lanes(CachedRange& range, std::uint16_t writer = 0) : r_(range), writer_(writer) {}
    ~Lanes() { release(); }
    Lanes(const Lanes&) = delete;
    Lanes& operator=(const Lanes&) = delete;

    const std::uint8_t* read(std::uint64_t address, std::uint32_t bytes) {
      const std::uint64_t i = r_.index(address);
      if (i == read_ && (address - r_.base_) % kLineBytes + bytes <= kLineBytes) return r_.shadow_ + (address - r_.base_);
      const std::uint8_t* p = r_.read(address, bytes);
      read_ = i;
      return p;
    }
    void write(std::uint64_t address, const void* src, std::uint32_t bytes) {
      const std::uint64_t i = r_.index(address);
      const std::uint32_t offset = std::uint32_t(address - r_.base_) % kLineBytes;
      if (offset + bytes > kLineBytes) {  // across two lines: each on its own
        release();
        r_.write(address, src, bytes, writer_);
        return;
      }
      if (i != held_) {
        release();
        held_epoch_ = r_.lock_current(r_.lines_[i], i);
        held_ = i;
      }
      write_whole_words(r_.shadow_ + (address - r_.base_), src, bytes);
      add_bits(pending_, offset, bytes);  // marked in the line once, when it is let go
    }
    // The lanes of `exec` in order, each writing the 4 bytes data(lane) at address[lane]: write()
    // with the held line and its new dirty bits in locals (the copy into the shadow may alias any
    // member, which kept the compiler storing and reloading them at every lane).
    template <class Data>
    void write_dwords(const std::uint64_t* address, std::uint64_t exec, Data&& data) {
      std::uint8_t* const shadow = r_.shadow_;
      const std::uint64_t base = r_.base_;
      std::uint64_t held = held_;
      std::uint64_t pending[2] = {pending_[0], pending_[1]};
      while (exec) {
        const std::uint32_t lane = std::uint32_t(__builtin_ctzll(exec));
        exec &= exec - 1;
        const std::uint64_t at = address[lane] - base;
        const std::uint64_t i = at / kLineBytes;
        const std::uint32_t offset = std::uint32_t(at % kLineBytes);
        const std::uint32_t v = data(lane);
        if (i != held || offset + 4 > kLineBytes) {
          held_ = held, pending_[0] = pending[0], pending_[1] = pending[1];
          write(address[lane], &v, 4);  // another line: let this one go, take that one
          held = held_, pending[0] = pending_[0], pending[1] = pending_[1];
          continue;
        }
        std::memcpy(shadow + at, &v, 4);
        add_bits(pending, offset, 4);
      }
      held_ = held, pending_[0] = pending[0], pending_[1] = pending[1];
    }
    // The lanes of `exec` in order, each reading `bytes` at address[lane]: put(lane, where the
    // L2's bytes are), read() with the line checked last in a local.
    template <class Put>
    void read_lanes(const std::uint64_t* address, std::uint64_t exec, std::uint32_t bytes, Put&& put) {
      const std::uint8_t* const shadow = r_.shadow_;
      const std::uint64_t base = r_.base_;
      std::uint64_t checked = read_;
      while (exec) {
        const std::uint32_t lane = std::uint32_t(__builtin_ctzll(exec));
        exec &= exec - 1;
        const std::uint64_t at = address[lane] - base;
        if (at / kLineBytes == checked && at % kLineBytes + bytes <= kLineBytes) {
          put(lane, shadow + at);
          continue;
        }
        read_ = checked;
        put(lane, read(address[lane], bytes));
        checked = read_;
      }
      read_ = checked;
    }
    void release() {
      if (held_ == kNone) return;
      Line& l = r_.lines_[held_];
      if (pending_[0] | pending_[1]) {
        l.dirty[0] |= pending_[0];
        l.dirty[1] |= pending_[1];
        pending_[0] = pending_[1] = 0;
        l.writer = writer_;
        if (!l.listed) r_.list(l, held_, writer_);
      }
      r_.unlock(l, held_epoch_);
      held_ = kNone;
    }

   private:
    static constexpr std::uint64_t kNone = ~0ull;
    CachedRange& r_;
    std::uint16_t writer_;
    std::uint64_t read_ = kNone, held_ = kNone;
    std::uint32_t held_epoch_ = 0;
    std::uint64_t pending_[2] = {0, 0};  // bytes of the held line written since it was taken
  };

 private:
  friend class L2Cache;
  // state: bit 31 held (a thread fills, writes or writes back the line); bits 0-30 the epoch of
  // the L2 in which the line was filled (0: never). The line is current when that epoch is the
  // L2's: an invalidation makes every line stale at once by moving to the next epoch.
  struct Line {
    std::atomic<std::uint32_t> state{0};
    std::uint16_t listed = 0;         // on the L2's dirty list (under the line's hold)
    std::uint16_t writer = 0;         // the writer_tag of its last write (under the line's hold)
    std::uint64_t dirty[2] = {0, 0};  // one bit per byte (under the line's hold)
  };
  static constexpr std::uint32_t kHeld = 1u << 31;

  std::uint64_t index(std::uint64_t address) const { return (address - base_) / kLineBytes; }
  Line& line(std::uint64_t address) { return lines_[index(address)]; }
  // Holds the line, current (its clean bytes read again from memory where it was stale); returns
  // the epoch to release it with.
  std::uint32_t lock_current(Line& l, std::uint64_t i);
  void unlock(Line& l, std::uint32_t epoch) { l.state.store(epoch, std::memory_order_release); }
  void fill(Line& l, std::uint64_t i);
  // Bytes [offset, offset + bytes) of one line (offset + bytes <= 128) into its two 64-bit words
  // of bits: almost always within one word; else the end of word 0 and the start of word 1.
  static void add_bits(std::uint64_t bits[2], std::uint32_t offset, std::uint32_t bytes) {
    const auto low = [](std::uint32_t n) { return n >= 64 ? ~0ull : (1ull << n) - 1; };
    const std::uint32_t bit = offset % 64;
    if (bit + bytes <= 64) {
      bits[offset / 64] |= low(bytes) << bit;
    } else {
      bits[0] |= ~0ull << bit;
      bits[1] |= low(bit + bytes - 64);
    }
  }
  // The first write since a write-back also lists the line.
  void mark_dirty(Line& l, std::uint64_t i, std::uint32_t offset, std::uint32_t bytes, std::uint16_t writer) {
    add_bits(l.dirty, offset, bytes);
    l.writer = writer;
    if (!l.listed) list(l, i, writer);
  }
  void list(Line& l, std::uint64_t i, std::uint16_t writer);
  // Under the line's hold: its dirty bytes to memory. Returns whether there were any.
  bool flush(Line& l, std::uint64_t i);

  L2Cache& l2_;
  std::uint64_t base_, size_;
  std::uint8_t* shadow_ = nullptr;  // the L2's copy, at the same offsets as the allocation
  Line* lines_ = nullptr;
  std::uint64_t line_count_ = 0;
  std::uint64_t mapped_bytes_ = 0, lines_bytes_ = 0;
  std::atomic<std::uint64_t> listed_lines_{0};
  std::atomic<std::uint16_t> last_writer_{0};
};

// One GPU's L2. Thread-safe: the work-groups of every queue of the GPU use it at once, and the
// queues' packet processors fence it.
class L2Cache {
 public:
  L2Cache() = default;
  L2Cache(const L2Cache&) = delete;
  L2Cache& operator=(const L2Cache&) = delete;

  // A release at system scope: every byte dirty when it is called is in memory when it returns,
  // also the lines a write-back running at the same time (another queue's release) took first.
  void write_back();
  // An acquire at system scope: every line not dirty is read again from memory at its next use
  // (dirty bytes are the latest values and stay).
  void invalidate();

  // What the fences did, in lines (a model's count, not a measurement of any GPU).
  struct Counters {
    std::uint64_t write_backs = 0, invalidations = 0;  // fences that wrote back or invalidated
    std::uint64_t lines_written_back = 0;              // lines with dirty bytes written to memory
    std::uint64_t lines_invalidated = 0;               // current lines made stale
  };
  Counters counters() const;

  std::uint32_t epoch() const { return epoch_.load(std::memory_order_acquire); }

  // The diagnosis: how many lines hold dirty bytes now, and the last writer of the first (racy).
  std::uint64_t dirty_lines(std::uint16_t* first_writer);

  // A range stops being used (its allocation is gone for good): its lines leave the dirty list.
  void retire(CachedRange* range);

 private:
  friend class CachedRange;
  void listed(CachedRange* range, std::uint64_t line);

  std::atomic<std::uint32_t> epoch_{1};
  std::atomic<std::uint64_t> current_lines_{0};  // lines filled in this epoch
  // One write-back at a time: a release that finds the dirty list empty because another release
  // took it must still wait until those lines are in memory before its signal completes.
  std::mutex write_back_mutex_;
  std::shared_mutex ranges_;                      // write_back (shared) against retire (exclusive)
  std::mutex dirty_mutex_;
  std::vector<std::pair<CachedRange*, std::uint64_t>> dirty_;
  std::atomic<std::uint64_t> write_backs_{0}, invalidations_{0}, lines_written_back_{0}, lines_invalidated_{0};
};

}  // namespace hsad::isa
