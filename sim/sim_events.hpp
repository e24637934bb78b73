// KFD events of the simulated GPU, and what the command processor does on a signal update: an
// AMD signal created with an event (ROCr's InterruptSignal, HSA_ENABLE_INTERRUPT=1) names an
// event mailbox and id; writing the id to the mailbox and raising the interrupt wakes the event's
// waiters. So a host waiting on a signal sleeps in hsaKmtWaitOnEvent until the packet that
// completes it, instead of spinning in ROCr on a core the simulated GPU needs.
#pragma once

#include <hsa/amd_hsa_signal.h>
#include <hsakmt.h>

#include <cstdint>

namespace hsad::sim {

HsaEvent* create_event(HSA_EVENTTYPE type, bool signaled);
void destroy_event(HsaEvent* event);
void set_event(HsaEvent* event);
// Waits for one (or all) of the events up to `ms`, and at most a few ms: ROCr polls the signals
// without events (a queue's inactive signal) between waits. True where satisfied.
bool wait_events(HsaEvent* const* events, std::uint32_t count, bool all, std::uint32_t ms);

// What KFD does on a GPU memory fault without XNACK: every memory event (ROCr creates one, for
// its VM-fault handler) gets the fault's data (node, address, NotPresent, FATAL_PROCESS) and fires.
void raise_memory_fault(std::uint32_t node, std::uint64_t address, bool write);

// An interrupt for events whose mailboxes were written already (an SDMA trap packet: ROCr's fence
// before it wrote the event's id): their waiters wake.
void raise_interrupt();

// The command processor's side of a signal the packet processor just updated.
void signal_updated(const amd_signal_t* signal);

}  // namespace hsad::sim
