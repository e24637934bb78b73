// AqlRecords: a queue's submission records. A replayed submit takes a free record, whose completion
// signal was made once, instead of a pooled signal, an AqlCompletion and a place in the timeline
// (two objects, a weak_ptr and two mutexes per submit: about a quarter of its host cost,
// docs/results.md, issue 41). A record is found again by its submission's number (a batch that
// waits for "submission k of that queue", a buffer freed while work runs), and whoever finds it
// holds a reference, so its signal is not taken by a later submit while anything waits for it.
//
// A record's state is one word, the submission's number and its references, so that finding a
// record and referencing it is one compare-and-swap that fails when the record went on to a later
// submission. A finder reaches records only through the index, under its mutex; a record is let
// go (kKept) only once it is out of the index, under that mutex, with nothing holding it.
#pragma once

#include <hsa/hsa.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace hsad::detail {

// Asks for the cache line at `p` in a state to be written (x86's PREFETCHW, a no-op on CPUs
// without it), without waiting for it: where another core wrote the line last, its transfer then
// overlaps what the caller does before the write. Only a hint: any address is safe.
inline void prefetch_for_write(const void* p) {
#if defined(__x86_64__)
  asm volatile("prefetchw %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p, 1);
#endif
}

class AqlAgent;
struct Counters;

class AqlRecords {
 public:
  struct Record {
    std::atomic<std::uint64_t> state{0};  // number << kRefBits | references; no references: free
    hsa_signal_t signal{0};               // the record's own: made with it, destroyed when it is let go
    // Set once an owner abandoned the submission (its wait timed out while it ran); `why` is
    // written before and read after it, only by holders of a reference.
    std::atomic<bool> abandoned{false};
    std::string why;
    std::uint64_t place = kNoPlace;  // its place in the index, where it is found (the writer's)
  };

  AqlRecords(AqlAgent& agent, Counters& counters);
  ~AqlRecords();  // the queue's work has stopped: destroys every record's signal
  AqlRecords(const AqlRecords&) = delete;
  AqlRecords& operator=(const AqlRecords&) = delete;

  // Under the queue's submit mutex: a free record, holding one reference (the submission's),
  // not yet found by any number. No lock and no allocation where a free record is among the next
  // few (a new one, and its signal, is made otherwise). Its signal's value is the caller's to set.
  Record& take();
  // Under the submit mutex, once the submission that took `r` was made: find(number) finds it.
  void publish(Record& r, std::uint64_t number);
  // A reference to submission `number`'s record, or nullptr where it has none any more (it was
  // released, which its Submission is only once it completed, or it never had one).
  Record* find(std::uint64_t number);
  // Every record still referenced, each with a reference of the caller's (to give back).
  std::vector<Record*> referenced();
  // Asks for the line of the signal take() will most likely hand out next (prefetch_for_write).
  void prefetch_next() const {
    if (cursor_ < records_.size()) prefetch_for_write(reinterpret_cast<const void*>(records_[cursor_]->signal.handle));
  }
  static void unref(Record& r) noexcept { r.state.fetch_sub(1, std::memory_order_acq_rel); }
  // The submission of `r` (the caller holds a reference) was abandoned: later finders see why.
  static void mark_abandoned(Record& r, const std::string& why);
  std::size_t size() const { return records_.size(); }
  // Free records kept for later submits: past these, a submit lets one free record go (its
  // signal destroyed), so a burst of submissions held at once does not keep its signals for good.
  static constexpr std::size_t kKept = 256;

 private:
  static constexpr std::uint64_t kNoPlace = ~std::uint64_t(0);
  static constexpr unsigned kRefBits = 24;  // a record's references; the number gets the other 40
  static constexpr std::uint64_t kRefMask = (std::uint64_t(1) << kRefBits) - 1;
  static constexpr std::size_t kProbes = 16;  // free records looked for before a new one is made
  static bool try_ref(Record& r, std::uint64_t number);
  static std::uint64_t number_of(std::uint64_t state) { return state >> kRefBits; }
  static std::uint64_t refs_of(std::uint64_t state) { return state & kRefMask; }
  // The index cannot hold `number` without hiding a record still referenced: double it until no
  // two referenced records share a place (under index_mutex_).
  void grow_index();
  // Past kKept records: lets the record at the cursor go if nothing holds it.
  void let_one_go();

  AqlAgent& agent_;
  Counters& counters_;
  // Written under the submit mutex; each record stays where it is until it is let go.
  std::vector<std::unique_ptr<Record>> records_;
  std::size_t cursor_ = 0;  // where take() looks first: the oldest record, usually released
  // number & mask_ -> the record that submission took. Written without a lock by publish() (the
  // one writer); read under index_mutex_, which grow_index() and let_one_go() also hold.
  std::mutex index_mutex_;
  std::unique_ptr<std::atomic<Record*>[]> index_;
  std::uint64_t mask_ = 0;
};

}  // namespace hsad::detail
