// KernargPool: a ring allocator whose space comes back in ticket order.
#include "pools/kernarg_pool.hpp"

#include <cassert>

#include "hsad/error.hpp"

namespace hsad {

KernargPool::KernargPool(void* base, std::size_t bytes)
    : base_(static_cast<unsigned char*>(base)), units_(bytes / kAlignment), records_(bytes / kAlignment) {
  if (reinterpret_cast<std::uintptr_t>(base) % kAlignment != 0 || bytes % kAlignment != 0 || units_ == 0) {
    throw Error(Errc::invalid_argument, "pool", "KernargPool", "base must be 64-byte aligned and size a non-zero multiple of 64");
  }
}

std::optional<KernargPool::Block> KernargPool::try_acquire(std::size_t bytes) {
  const std::uint64_t units = bytes == 0 ? 1 : (bytes + kAlignment - 1) / kAlignment;
  if (units > units_) {
    throw Error(Errc::invalid_argument, "pool", "KernargPool::acquire",
                "a kernarg block of " + std::to_string(bytes) + " bytes exceeds the pool's " +
                    std::to_string(capacity_bytes()) + " bytes");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  std::uint64_t start = head_;
  const std::uint64_t pos = head_ % units_;
  if (pos + units > units_) start += units_ - pos;  // does not fit before the end: skip to the start
  const std::uint64_t end = start + units;
  if (end - tail_ > units_) return std::nullopt;
  if (next_ticket_ - oldest_ticket_ >= records_.size()) return std::nullopt;
  const std::uint64_t ticket = next_ticket_++;
  record(ticket) = Record{end, false};
  head_ = end;
  return Block{base_ + (start % units_) * kAlignment, ticket};
}

void KernargPool::release(std::uint64_t ticket) {
  std::lock_guard<std::mutex> lock(mutex_);
  assert(ticket >= oldest_ticket_ && ticket < next_ticket_);
  record(ticket).released = true;
  while (oldest_ticket_ < next_ticket_ && record(oldest_ticket_).released) {
    tail_ = record(oldest_ticket_).end;
    ++oldest_ticket_;
  }
}

std::size_t KernargPool::blocks_in_use() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t n = 0;
  for (std::uint64_t t = oldest_ticket_; t < next_ticket_; ++t) n += !records_[t % records_.size()].released;
  return n;
}

}  // namespace hsad
