// KernargPool: one allocation made at setup, carved into 64-byte aligned blocks handed out in
// ring order. A block is reused only after the dispatch that read it is released (completed);
// when none is free the caller must wait: the pool never overwrites a block still in flight.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

namespace hsad {

class KernargPool {
 public:
  static constexpr std::size_t kAlignment = 64;  // a cache line: no false sharing between dispatches

  struct Block {
    void* ptr = nullptr;
    std::uint64_t ticket = 0;  // give it back with release(ticket)
  };

  // `base` must be 64-byte aligned and `bytes` a multiple of 64. The pool does not own the memory.
  KernargPool(void* base, std::size_t bytes);

  // A block of at least `bytes`, or nothing if the free space cannot hold it now.
  std::optional<Block> try_acquire(std::size_t bytes);
  // Frees one block. Blocks may be released in any order; space is reclaimed in ring order.
  void release(std::uint64_t ticket);

  std::size_t capacity_bytes() const { return units_ * kAlignment; }
  std::size_t blocks_in_use() const;
  // A request larger than this can never succeed.
  std::size_t max_block_bytes() const { return capacity_bytes(); }

 private:
  struct Record {
    std::uint64_t end = 0;  // the ring position (in units) just past this block
    bool released = false;
  };
  Record& record(std::uint64_t ticket) { return records_[ticket % records_.size()]; }

  unsigned char* base_;
  std::uint64_t units_;
  mutable std::mutex mutex_;
  std::uint64_t head_ = 0;         // next free unit, monotonically increasing
  std::uint64_t tail_ = 0;         // oldest unit still in use
  std::uint64_t next_ticket_ = 0;  // tickets are consecutive: ticket t's record is records_[t % n]
  std::uint64_t oldest_ticket_ = 0;
  std::vector<Record> records_;
};

}  // namespace hsad
