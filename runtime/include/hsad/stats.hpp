// Counters that show what a flag really changed: tests assert them exactly,
// benchmarks print them beside the latency.
#pragma once

#include "hsad/export.hpp"

#include <cstdint>

namespace hsad {

struct HSAD_API Stats {
  std::uint64_t packets = 0;             // AQL packets written (or launches, on CUDA)
  std::uint64_t doorbells = 0;           // doorbell rings (or stream flushes)
  std::uint64_t host_waits = 0;          // blocking waits of the host on a completion signal
  std::uint64_t signals_created = 0;     // completion signals created (pools count at setup)
  std::uint64_t kernarg_allocations = 0; // kernarg memory allocations (pools count one at setup)
  std::uint64_t system_fences = 0;       // system-scope acquire or release fences in packet headers
  std::uint64_t bytes_copied = 0;        // host<->device and device<->device transfer bytes
  std::uint64_t bytes_staged = 0;        // of those, bytes bounced through a staging buffer (pageable)
  std::uint64_t copies = 0;              // transfers: blocking ones and copy commands of batches
  std::uint64_t device_waits = 0;        // waits for another submission done on the device (barrier-AND, stream wait)
  std::uint64_t kernarg_writes = 0;      // kernarg blocks written by the host (AQL; an unchanged replay writes none)
  std::uint64_t images_built = 0;        // replay's one-time work: packet images (AQL) or graphs (cuda) built
  std::uint64_t early_launches = 0;      // cuda, sm_90+: launches allowed to start before their predecessor ended
  std::uint64_t device_loops = 0;        // device-run loops submitted (Batch::loop_begin): each iterates with no host
  // cuda: calls into libcuda made by submits (launches, graph launches, the completion's write, a
  // graph's capture and update, making the context current). Not counted on the AQL backends.
  std::uint64_t driver_calls = 0;

  template <class F>
  static Stats combine(const Stats& a, const Stats& b, F f) {
    return {f(a.packets, b.packets),           f(a.doorbells, b.doorbells),
            f(a.host_waits, b.host_waits),     f(a.signals_created, b.signals_created),
            f(a.kernarg_allocations, b.kernarg_allocations), f(a.system_fences, b.system_fences),
            f(a.bytes_copied, b.bytes_copied), f(a.bytes_staged, b.bytes_staged),
            f(a.copies, b.copies),             f(a.device_waits, b.device_waits),
            f(a.kernarg_writes, b.kernarg_writes), f(a.images_built, b.images_built),
            f(a.early_launches, b.early_launches), f(a.device_loops, b.device_loops),
            f(a.driver_calls, b.driver_calls)};
  }
  Stats operator+(const Stats& o) const { return combine(*this, o, [](std::uint64_t x, std::uint64_t y) { return x + y; }); }
  Stats operator-(const Stats& o) const { return combine(*this, o, [](std::uint64_t x, std::uint64_t y) { return x - y; }); }
};

}  // namespace hsad
