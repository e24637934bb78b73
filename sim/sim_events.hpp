// KFD's events as the simulated GPU's driver keeps them, and what the command processor does on a
// signal update. A signal event owns a slot of the events page (the buffer the thunk hands over
// with its first event): an AMD signal with an event (ROCr's InterruptSignal) names that slot as
// its mailbox, and whoever completes the signal writes the event's id there and raises the
// interrupt, which wakes the event's waiters. So a host waiting on a signal sleeps in
// WAIT_EVENTS until the packet that completes it, instead of spinning on a core the simulated
// GPU needs.
#pragma once

#include <hsa/amd_hsa_signal.h>

#include <cstdint>

namespace hsad::sim {

// KFD's event types (kfd_ioctl.h's KFD_IOC_EVENT_*), the ones the thunk creates.
enum class EventType : std::uint32_t { signal = 0, node_change = 1, device_state_change = 2, hw_exception = 3,
                                       system_event = 4, debug_event = 5, profile_event = 6, queue_event = 7,
                                       memory = 8 };

// The events page (its address in this process), given with the first event: signal events'
// slots are its 64-bit words.
void set_events_page(std::uint64_t address, std::uint64_t bytes);
bool has_events_page();

struct CreatedEvent {
  std::uint32_t id = 0;
  std::uint32_t slot = 0;          // signal events: the events page's slot (the id); else 0
  std::uint64_t trigger_data = 0;  // what KFD gives the thunk as the event's trigger data
};
// False where no slot is left (4096 signal events).
bool create_event(EventType type, bool auto_reset, CreatedEvent* out);
bool destroy_event(std::uint32_t id);
bool set_event(std::uint32_t id);
bool reset_event(std::uint32_t id);

// One event of a WAIT_EVENTS, laid out as kfd_event_data: in, its id and (signal events, KFD
// 1.14) the age its waiter last saw; out, its memory exception and current age.
struct WaitedEvent {
  std::uint32_t id = 0;
  std::uint64_t last_age = 0;
  bool signaled = false;
  std::uint64_t age = 0;
  // A memory event that fired: the fault's address and GPU (its topology node).
  std::uint64_t fault_address = 0;
  std::uint32_t fault_node = 0;
};
// Waits until one (or all) of `events` is signaled, `timeout_ms` at most (UINT32_MAX: for ever),
// and a few ms at most in one go: ROCr polls the signals without events (a queue's inactive
// signal) between waits. False on a timeout; an unknown id fails the whole wait (errno EINVAL).
enum class WaitResult { complete, timeout, invalid };
WaitResult wait_events(WaitedEvent* events, std::uint32_t count, bool all, std::uint32_t timeout_ms);

// What KFD does on a GPU memory fault without XNACK: every memory event (ROCr creates one, for its
// VM-fault handler) gets the fault's data (the GPU, the address; the page was not present) and fires.
void raise_memory_fault(std::uint32_t node, std::uint64_t address, bool write);

// An interrupt for events whose slots were written already (an SDMA trap packet: ROCr's fence
// before it wrote the event's id): their waiters wake.
void raise_interrupt();

// The command processor's side of a signal the packet processor just updated.
void signal_updated(const amd_signal_t* signal);

}  // namespace hsad::sim
