// KFD's events: a table by id under one mutex; waiters sleep on an epoch word that every set and
// every interrupt bumps. A signal event is also signaled where its slot in the events page holds
// anything but "unsignaled": a kernel (HIP's printf and hostcalls set interrupt signals from the
// device) or an SDMA fence wrote the id there, as on hardware.
#include "sim_events.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>

#include "agent/futex.hpp"

namespace hsad::sim {
namespace {

constexpr std::uint32_t kSignalSlots = 4096;                 // KFD_SIGNAL_EVENT_LIMIT
constexpr std::uint64_t kUnsignaled = ~std::uint64_t(0);     // KFD's UNSIGNALED_EVENT_SLOT
constexpr std::uint32_t kFirstOtherId = 0x40000000;          // non-signal events, above the slots
constexpr auto kLongestSleep = std::chrono::milliseconds(2);

struct Event {
  EventType type = EventType::signal;
  bool auto_reset = true;
  bool signaled = false;
  std::uint64_t age = 1;  // KFD 1.14: bumped by every set; a waiter that saw another age returns at once
  std::uint64_t fault_address = 0;
  std::uint32_t fault_node = 0;
};

std::mutex mutex;
std::map<std::uint32_t, Event>& events() {
  static auto* m = new std::map<std::uint32_t, Event>();  // never destroyed: ROCr waits at exit
  return *m;
}
std::uint64_t* page = nullptr;  // the events page's slots, under mutex
std::uint32_t next_other = kFirstOtherId;

// Bumped by every event that fires: what sleeping waiters wait on.
std::uint32_t epoch = 0;
void fire() {
  __atomic_add_fetch(&epoch, 1, __ATOMIC_RELEASE);
  agent::futex_wake_all(&epoch);
}

// Under mutex: whether `e` (id `id`) is signaled now, its slot looked at too.
bool signaled_now(std::uint32_t id, Event& e) {
  if (e.signaled) return true;
  if (e.type == EventType::signal && page && id < kSignalSlots &&
      __atomic_load_n(&page[id], __ATOMIC_ACQUIRE) != kUnsignaled) {
    e.signaled = true;
    e.age += 1;
  }
  return e.signaled;
}

void consume(std::uint32_t id, Event& e) {
  if (!e.auto_reset) return;
  e.signaled = false;
  if (e.type == EventType::signal && page && id < kSignalSlots) __atomic_store_n(&page[id], kUnsignaled, __ATOMIC_RELEASE);
}
}  // namespace

void set_events_page(std::uint64_t address, std::uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex);
  page = reinterpret_cast<std::uint64_t*>(address);
  for (std::uint64_t i = 0; i < std::min<std::uint64_t>(bytes / 8, kSignalSlots); ++i) page[i] = kUnsignaled;
}

bool has_events_page() {
  std::lock_guard<std::mutex> lock(mutex);
  return page != nullptr;
}

bool create_event(EventType type, bool auto_reset, CreatedEvent* out) {
  std::lock_guard<std::mutex> lock(mutex);
  std::uint32_t id = 0;
  if (type == EventType::signal) {
    while (id < kSignalSlots && events().count(id)) ++id;
    if (id == kSignalSlots) return false;
    if (page) page[id] = kUnsignaled;
    out->slot = id;
    out->trigger_data = id;
  } else {
    id = next_other++;
    out->slot = 0;
    out->trigger_data = 0;
  }
  Event e;
  e.type = type;
  e.auto_reset = auto_reset;
  events()[id] = e;
  out->id = id;
  return true;
}

bool destroy_event(std::uint32_t id) {
  std::lock_guard<std::mutex> lock(mutex);
  return events().erase(id) != 0;
}

bool set_event(std::uint32_t id) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = events().find(id);
    if (it == events().end()) return false;
    it->second.signaled = true;
    it->second.age += 1;
  }
  fire();
  return true;
}

bool reset_event(std::uint32_t id) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = events().find(id);
  if (it == events().end()) return false;
  it->second.signaled = false;
  if (it->second.type == EventType::signal && page && id < kSignalSlots) page[id] = kUnsignaled;
  return true;
}

WaitResult wait_events(WaitedEvent* waited, std::uint32_t count, bool all, std::uint32_t timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::min<std::chrono::milliseconds>(std::chrono::milliseconds(timeout_ms), kLongestSleep);
  for (;;) {
    const std::uint32_t seen = __atomic_load_n(&epoch, __ATOMIC_ACQUIRE);
    std::uint32_t set = 0;
    {
      std::lock_guard<std::mutex> lock(mutex);
      for (std::uint32_t i = 0; i < count; ++i) {
        auto it = events().find(waited[i].id);
        if (it == events().end()) return WaitResult::invalid;
        Event& e = it->second;
        // A waiter that last saw another age of a signal event missed a set: done at once.
        const bool missed = e.type == EventType::signal && waited[i].last_age != 0 && waited[i].last_age != e.age;
        waited[i].signaled = signaled_now(waited[i].id, e) || missed;
        set += waited[i].signaled;
      }
      if (set && (!all || set == count)) {
        for (std::uint32_t i = 0; i < count; ++i) {
          Event& e = events()[waited[i].id];
          waited[i].age = e.age;
          waited[i].fault_address = e.fault_address;
          waited[i].fault_node = e.fault_node;
          if (waited[i].signaled) consume(waited[i].id, e);
        }
        return WaitResult::complete;
      }
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      std::lock_guard<std::mutex> lock(mutex);
      for (std::uint32_t i = 0; i < count; ++i) waited[i].age = events()[waited[i].id].age;
      return WaitResult::timeout;
    }
    agent::futex_wait(&epoch, seen, deadline - now);
  }
}

void raise_memory_fault(std::uint32_t node, std::uint64_t address, bool) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto& [id, e] : events()) {
      if (e.type != EventType::memory) continue;
      e.fault_address = address;
      e.fault_node = node;
      e.signaled = true;
      e.age += 1;
    }
  }
  fire();
}

void raise_interrupt() { fire(); }

void signal_updated(const amd_signal_t* signal) {
  const std::uint64_t mailbox = __atomic_load_n(&signal->event_mailbox_ptr, __ATOMIC_RELAXED);
  if (!mailbox) return;  // a signal without an event: its waiter polls
  const std::uint32_t id = signal->event_id;
  __atomic_store_n(reinterpret_cast<std::uint64_t*>(mailbox), std::uint64_t(id), __ATOMIC_RELEASE);
  set_event(id);
}

}  // namespace hsad::sim
