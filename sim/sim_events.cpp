#include "sim_events.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <vector>

#include "agent/futex.hpp"
#include "sim_memory.hpp"

namespace hsad::sim {
namespace {

// An event and its mailbox: the word a signal's event_mailbox_ptr names. Non-zero: signaled
// (auto-reset: a satisfied wait clears it).
struct SimEvent {
  HsaEvent event{};
  std::uint64_t mailbox = 0;
};

// Bumped by every event that fires: what sleeping waiters wait on.
std::uint32_t epoch = 0;

void fire() {
  __atomic_add_fetch(&epoch, 1, __ATOMIC_RELEASE);
  agent::futex_wake_all(&epoch);
}

constexpr auto kLongestSleep = std::chrono::milliseconds(2);

std::mutex memory_events_mutex;
std::vector<SimEvent*>& memory_events() {
  static auto* v = new std::vector<SimEvent*>;
  return *v;
}

}  // namespace

void raise_memory_fault(std::uint32_t node, std::uint64_t address, bool write) {
  std::lock_guard<std::mutex> lock(memory_events_mutex);
  for (SimEvent* e : memory_events()) {
    HsaMemoryAccessFault& f = e->event.EventData.EventData.MemoryAccessFault;
    f = {};
    f.NodeId = node;
    f.VirtualAddress = address;
    f.Failure.NotPresent = 1;  // outside every allocation: no page there
    f.Failure.ReadOnly = 0;
    (void)write;
    f.Flags = HSA_EVENTID_MEMORY_FATAL_PROCESS;
    __atomic_store_n(&e->mailbox, 1, __ATOMIC_RELEASE);
  }
  fire();
}

HsaEvent* create_event(HSA_EVENTTYPE type, bool signaled) {
  static std::atomic<HSAuint32> next{1};
  auto* e = new SimEvent;
  e->event.EventId = next++;
  e->event.EventData.EventType = type;
  e->event.EventData.HWData2 = reinterpret_cast<HSAuint64>(&e->mailbox);
  e->mailbox = signaled ? 1 : 0;
  // Kernels write it too: a wave that sets an interrupt signal (HIP's printf and hostcalls) stores
  // the signal's event id in its mailbox, as on hardware.
  register_host(&e->mailbox, sizeof e->mailbox);
  if (type == HSA_EVENTTYPE_MEMORY) {
    std::lock_guard<std::mutex> lock(memory_events_mutex);
    memory_events().push_back(e);
  }
  return &e->event;
}

void destroy_event(HsaEvent* event) {
  auto* e = reinterpret_cast<SimEvent*>(event);
  {
    std::lock_guard<std::mutex> lock(memory_events_mutex);
    auto& v = memory_events();
    v.erase(std::remove(v.begin(), v.end(), e), v.end());
  }
  deregister_host(&e->mailbox);
  delete e;
}

void set_event(HsaEvent* event) {
  __atomic_store_n(&reinterpret_cast<SimEvent*>(event)->mailbox, 1, __ATOMIC_RELEASE);
  fire();
}

bool wait_events(HsaEvent* const* events, std::uint32_t count, bool all, std::uint32_t ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::min<std::chrono::milliseconds>(
                                                               std::chrono::milliseconds(ms), kLongestSleep);
  for (;;) {
    const std::uint32_t seen = __atomic_load_n(&epoch, __ATOMIC_ACQUIRE);
    std::uint32_t set = 0;
    for (std::uint32_t i = 0; i < count; ++i) {
      if (events[i] && __atomic_exchange_n(&reinterpret_cast<SimEvent*>(events[i])->mailbox, 0, __ATOMIC_ACQ_REL)) ++set;
    }
    if (set && (!all || set == count)) return true;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    agent::futex_wait(&epoch, seen, deadline - now);
  }
}

void raise_interrupt() { fire(); }

void signal_updated(const amd_signal_t* signal) {
  const std::uint64_t mailbox = __atomic_load_n(&signal->event_mailbox_ptr, __ATOMIC_RELAXED);
  if (!mailbox) return;  // a signal without an event: its waiter polls
  __atomic_store_n(reinterpret_cast<std::uint64_t*>(mailbox), std::uint64_t(signal->event_id), __ATOMIC_RELEASE);
  fire();
}

}  // namespace hsad::sim
