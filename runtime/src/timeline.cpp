// Timeline: numbering submissions and finding a recent one's completion by its number.
#include "timeline.hpp"

#include "backends/backend.hpp"

namespace hsad::detail {

void Timeline::record(const std::shared_ptr<CompletionImpl>& completion) {
  std::lock_guard<std::mutex> lock(mutex_);
  recent_.push_back(completion);
  submitted_.store(submitted_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  // Released submissions at the front are complete: forget them, so the view stays as short as
  // the work still in flight.
  while (!recent_.empty() && recent_.front().expired()) {
    recent_.pop_front();
    ++first_;
  }
}

std::shared_ptr<CompletionImpl> Timeline::completion_of(std::uint64_t number) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (number < first_ || number > submitted_.load(std::memory_order_relaxed)) return nullptr;
  return recent_[number - first_].lock();
}

void Timeline::append_in_flight(std::vector<std::weak_ptr<CompletionImpl>>& out) const {
  std::vector<std::shared_ptr<CompletionImpl>> held;
  {
    std::lock_guard<std::mutex> lock(mutex_);  // a leaf: ended() asks the driver, outside it
    for (const auto& weak : recent_) {
      if (auto c = weak.lock()) held.push_back(std::move(c));
    }
  }
  for (const auto& c : held) {
    if (!c->ended()) out.push_back(c);
  }
}

}  // namespace hsad::detail
