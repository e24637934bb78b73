// Timeline: numbering submissions and finding a recent one's completion by its number.
#include "timeline.hpp"

#include <algorithm>

#include "backends/backend.hpp"

namespace hsad::detail {

void Timeline::record(const std::shared_ptr<CompletionImpl>& completion) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::uint64_t number = submitted_.load(std::memory_order_relaxed) + 1;
  recent_.push_back({number, completion});
  submitted_.store(number, std::memory_order_release);
  // Released submissions at the front are complete: forget them, so the view stays as short as
  // the work still in flight.
  while (!recent_.empty() && recent_.front().completion.expired()) recent_.pop_front();
}

std::shared_ptr<CompletionImpl> Timeline::completion_of(std::uint64_t number) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = std::lower_bound(recent_.begin(), recent_.end(), number,
                                   [](const Entry& e, std::uint64_t n) { return e.number < n; });
  if (it == recent_.end() || it->number != number) return nullptr;
  return it->completion.lock();
}

void Timeline::append_in_flight(std::vector<InFlight>& out) const {
  std::vector<std::shared_ptr<CompletionImpl>> held;
  {
    std::lock_guard<std::mutex> lock(mutex_);  // a leaf: ended() asks the driver, outside it
    for (const Entry& e : recent_) {
      if (auto c = e.completion.lock()) held.push_back(std::move(c));
    }
  }
  for (const auto& c : held) {
    if (!c->ended()) out.push_back({c, nullptr, c->gone()});
  }
}

bool InFlight::ended() const {
  if (mark) return mark->ended();
  if (gone && gone->load(std::memory_order_acquire)) return true;
  const auto c = completion.lock();
  if (c) return c->ended();
  // Released but its destructor has not yet said so: it will, at the next look.
  return !gone;
}

}  // namespace hsad::detail
