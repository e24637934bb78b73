// AqlRecords: taking a free record without a lock, finding one by its number, and the index that
// grows only while more submissions are held than it has places.
#include "backends/aql/aql_records.hpp"

#include "backends/aql/aql_agent.hpp"
#include "backends/backend.hpp"

namespace hsad::detail {

namespace {
constexpr std::size_t kFirstIndexSize = 256;
}

AqlRecords::AqlRecords(AqlAgent& agent, Counters& counters)
    : agent_(agent), counters_(counters), index_(new std::atomic<Record*>[kFirstIndexSize]), mask_(kFirstIndexSize - 1) {
  for (std::size_t i = 0; i < kFirstIndexSize; ++i) index_[i].store(nullptr, std::memory_order_relaxed);
}

AqlRecords::~AqlRecords() {
  for (const auto& r : records_) agent_.destroy_signal(r->signal);
}

AqlRecords::Record& AqlRecords::take() {
  Record* r = nullptr;
  const std::size_t n = records_.size();
  for (std::size_t probe = 0; probe < kProbes && probe < n; ++probe) {
    Record& candidate = *records_[cursor_];
    cursor_ = cursor_ + 1 == n ? 0 : cursor_ + 1;
    // Acquire: the last holder's uses of the signal are over before it is set again.
    if (refs_of(candidate.state.load(std::memory_order_acquire)) == 0) {
      r = &candidate;
      break;
    }
  }
  if (!r) {
    records_.reserve(records_.size() + 1);
    auto made = std::make_unique<Record>();
    made->signal = agent_.create_signal(1);
    counters_.signals_created.fetch_add(1, std::memory_order_relaxed);
    r = made.get();
    records_.push_back(std::move(made));
  } else if (records_.size() > kKept) {
    let_one_go();
  }
  // Nobody holds it, so nobody reads these until the state says whose it is.
  r->why.clear();
  r->abandoned.store(false, std::memory_order_relaxed);
  r->state.store(1, std::memory_order_release);  // number 0: no submission's yet
  return *r;
}

void AqlRecords::let_one_go() {
  Record& r = *records_[cursor_];
  // Nothing holds it, and nothing can take a reference from here: a finder's needs one already.
  if (refs_of(r.state.load(std::memory_order_acquire)) != 0) return;
  {
    std::lock_guard<std::mutex> lock(index_mutex_);  // no finder is looking at it after this
    if (r.place != kNoPlace && index_[r.place].load(std::memory_order_relaxed) == &r) {
      index_[r.place].store(nullptr, std::memory_order_relaxed);
    }
  }
  agent_.destroy_signal(r.signal);
  records_[cursor_] = std::move(records_.back());
  records_.pop_back();
  if (cursor_ >= records_.size()) cursor_ = 0;
}

void AqlRecords::publish(Record& r, std::uint64_t number) {
  // Out of the place it had for an earlier submission: a record is in one place at most, so
  // letting it go needs to clear only that one.
  if (r.place != kNoPlace && index_[r.place].load(std::memory_order_relaxed) == &r) {
    index_[r.place].store(nullptr, std::memory_order_release);
  }
  r.place = kNoPlace;
  // Its place in the index: where another referenced record sits there, the index doubles first
  // (rare: as many submissions held at once as the index has places).
  const Record* there = index_[number & mask_].load(std::memory_order_relaxed);
  if (there && there != &r) {
    const std::uint64_t s = there->state.load(std::memory_order_acquire);
    if (refs_of(s) != 0 && number_of(s) != number) {
      r.state.store(number << kRefBits | 1, std::memory_order_release);
      grow_index();  // places `r` too
      return;
    }
  }
  // Only the submission holds it (it was not findable): its one reference stays.
  r.state.store(number << kRefBits | 1, std::memory_order_release);
  r.place = number & mask_;
  index_[r.place].store(&r, std::memory_order_release);
}

void AqlRecords::grow_index() {
  std::lock_guard<std::mutex> lock(index_mutex_);
  for (std::uint64_t size = (mask_ + 1) * 2;; size *= 2) {
    auto index = std::make_unique<std::atomic<Record*>[]>(size);
    for (std::size_t i = 0; i < size; ++i) index[i].store(nullptr, std::memory_order_relaxed);
    bool fits = true;
    for (const auto& r : records_) {
      const std::uint64_t s = r->state.load(std::memory_order_acquire);
      if (refs_of(s) == 0 || number_of(s) == 0) continue;  // released, or not published
      std::atomic<Record*>& place = index[number_of(s) & (size - 1)];
      if (place.load(std::memory_order_relaxed)) {
        fits = false;
        break;
      }
      place.store(r.get(), std::memory_order_relaxed);
    }
    if (!fits) continue;
    // Every record's place is its place in the new index, or none (it is not found any more).
    for (const auto& r : records_) {
      const std::uint64_t s = r->state.load(std::memory_order_acquire);
      const std::uint64_t at = number_of(s) & (size - 1);
      r->place = index[at].load(std::memory_order_relaxed) == r.get() ? at : kNoPlace;
    }
    index_ = std::move(index);
    mask_ = size - 1;
    return;
  }
}

bool AqlRecords::try_ref(Record& r, std::uint64_t number) {
  std::uint64_t s = r.state.load(std::memory_order_acquire);
  for (;;) {
    // Released (no references: it may be taken again at any time) or on to a later submission.
    if (refs_of(s) == 0 || number_of(s) != number) return false;
    if (refs_of(s) == kRefMask) return false;  // 16 million holders: treated as released
    if (r.state.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel, std::memory_order_acquire)) return true;
  }
}

AqlRecords::Record* AqlRecords::find(std::uint64_t number) {
  std::lock_guard<std::mutex> lock(index_mutex_);
  Record* r = index_[number & mask_].load(std::memory_order_acquire);
  return r && try_ref(*r, number) ? r : nullptr;
}

std::vector<AqlRecords::Record*> AqlRecords::referenced() {
  std::vector<Record*> held;
  std::lock_guard<std::mutex> lock(index_mutex_);
  for (std::uint64_t i = 0; i <= mask_; ++i) {
    Record* r = index_[i].load(std::memory_order_acquire);
    if (!r) continue;
    const std::uint64_t s = r->state.load(std::memory_order_acquire);
    // A record taken again by a later submission is also still at its earlier number's place.
    if (refs_of(s) == 0 || (number_of(s) & mask_) != i) continue;
    if (try_ref(*r, number_of(s))) held.push_back(r);
  }
  return held;
}

void AqlRecords::mark_abandoned(Record& r, const std::string& why) {
  if (r.abandoned.load(std::memory_order_relaxed)) return;
  r.why = why;
  r.abandoned.store(true, std::memory_order_release);
}

}  // namespace hsad::detail
