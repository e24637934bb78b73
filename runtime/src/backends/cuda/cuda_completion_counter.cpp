// CompletionCounter: the ring of counted submissions and what is kept aside from it.
#include "backends/cuda/cuda_completion_counter.hpp"

#include <iterator>

#include "hot_path.hpp"

namespace hsad::cuda {

HSAD_HOT void CompletionCounter::note(std::uint64_t number, std::uint32_t target) {
  std::atomic<std::uint64_t>& place = ring_[number % kRing];
  const std::uint64_t old = place.load(std::memory_order_relaxed);  // only this thread writes it
  if (old) {
    const auto old_target = std::uint32_t(old);
    // Usually reached long ago: the count read for an earlier push-out answers without a read.
    if (!reached(seen_, old_target) && !reached(seen_ = count(), old_target)) {
      // Its full number, from the low 32 bits kept (numbers without a count leave gaps).
      std::uint64_t old_number = (number & ~std::uint64_t(0xffffffff)) | (old >> 32);
      if (old_number > number) old_number -= std::uint64_t(1) << 32;
      std::lock_guard<std::mutex> lock(aside_mutex_);
      for (auto it = aside_.begin(); it != aside_.end();) it = reached(seen_, it->second) ? aside_.erase(it) : std::next(it);
      aside_.emplace(old_number, old_target);
      any_aside_.store(true, std::memory_order_release);
    }
  }
  place.store(pack(number, target), std::memory_order_release);
}

std::optional<std::uint32_t> CompletionCounter::target_of(std::uint64_t number) {
  const std::uint64_t at = ring_[number % kRing].load(std::memory_order_acquire);
  if (at && at >> 32 == std::uint32_t(number)) return std::uint32_t(at);
  if (!any_aside_.load(std::memory_order_acquire)) return std::nullopt;
  std::lock_guard<std::mutex> lock(aside_mutex_);
  const auto it = aside_.find(number);
  if (it == aside_.end()) return std::nullopt;
  return it->second;
}

}  // namespace hsad::cuda
