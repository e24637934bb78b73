// Counters that show what a flag really changed: tests assert them exactly,
// benchmarks print them beside the latency.
#pragma once

#include <cstdint>

namespace hsad {

struct Stats {
  std::uint64_t packets = 0;             // AQL packets written (or launches, on CUDA)
  std::uint64_t doorbells = 0;           // doorbell rings (or stream flushes)
  std::uint64_t host_waits = 0;          // blocking waits of the host on a completion signal
  std::uint64_t signals_created = 0;     // completion signals created (pools count at setup)
  std::uint64_t kernarg_allocations = 0; // kernarg memory allocations (pools count one at setup)
  std::uint64_t system_fences = 0;       // system-scope acquire or release fences in packet headers
  std::uint64_t bytes_copied = 0;        // host<->device transfer bytes
  std::uint64_t bytes_staged = 0;        // of those, bytes bounced through a staging buffer (pageable)

  Stats operator+(const Stats& o) const {
    return {packets + o.packets,
            doorbells + o.doorbells,
            host_waits + o.host_waits,
            signals_created + o.signals_created,
            kernarg_allocations + o.kernarg_allocations,
            system_fences + o.system_fences,
            bytes_copied + o.bytes_copied,
            bytes_staged + o.bytes_staged};
  }
  Stats operator-(const Stats& o) const {
    return {packets - o.packets,
            doorbells - o.doorbells,
            host_waits - o.host_waits,
            signals_created - o.signals_created,
            kernarg_allocations - o.kernarg_allocations,
            system_fences - o.system_fences,
            bytes_copied - o.bytes_copied,
            bytes_staged - o.bytes_staged};
  }
};

}  // namespace hsad
