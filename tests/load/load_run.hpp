// The load a busy application puts on the library: threads, each with a queue of its own, all
// sharing one small queue too, sorting, looping, copying, allocating and freeing under every
// option set, with waits of odd timeouts and submissions dropped. Every result is checked against
// the host's, every error is kept, and the memory the process holds is read before and after.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "hsad/hsad.hpp"

namespace hsad::load {

struct LoadConfig {
  unsigned threads = 8;
  std::chrono::milliseconds duration{5000};
  std::uint64_t seed = 1;
  std::uint32_t max_keys_log2 = 14;          // sorts of 2 to 2^max_keys_log2 keys
  std::uint32_t shared_queue_packets = 128;  // smaller than a few large sorts: its ring fills up
  bool loops = true;                         // Jacobi solves in device-run and host-run loops
  int jacobi_n = 10;                         // their grid's points per side
  unsigned enqueue_percent = 15;             // recorded sorts sent by Queue::enqueue and finish
};

struct LoadReport {
  std::string device;
  LoadConfig config;
  double seconds = 0;
  std::uint64_t sorts = 0;             // sorts whose output was checked
  std::uint64_t replayed = 0;          // of those, submitted with Options::replay
  std::uint64_t args_changed = 0;      // of those, after set_args turned the whole network around
  std::uint64_t on_shared_queue = 0;   // of those, on the queue every thread shares
  std::uint64_t freed_in_flight = 0;   // of those, whose device buffer and batch were gone before the wait
  std::uint64_t dropped = 0;           // submissions dropped unwaited (the destructor's wait)
  std::uint64_t polled = 0;            // waited by polling ready()
  std::uint64_t callbacks = 0;         // waited through on_complete
  std::uint64_t short_waits = 0;       // waited first with a timeout of 1 ms
  std::uint64_t timeouts = 0;          // of those, that ran out (expected: then waited again)
  std::uint64_t enqueued = 0;          // sorts enqueued with no handle, then finished (Queue::finish)
  std::uint64_t device_loops = 0;      // Jacobi solves in a device-run loop, iterations checked
  std::uint64_t host_loops = 0;        // the same from the host
  std::uint64_t allocations = 0;       // buffers allocated and freed beside the work
  std::uint64_t wrong = 0;             // results that differ from the host's
  std::uint64_t errors = 0;            // errors the load did not ask for
  std::vector<std::string> first_errors;  // the first few, in full
  long rss_kib_warm = 0;               // VmRSS once every thread has done some of everything
  long rss_kib_end = 0;                // VmRSS at the end
  long growth_kib() const { return rss_kib_end - rss_kib_warm; }
};

// Runs the load on `device` for config.duration, then joins every thread; never throws for what
// the work does (that goes into the report), only for a configuration it cannot run.
LoadReport run_load(const Device& device, const LoadConfig& config);

// Whether the run met its promise: nothing wrong, no error, and the process grew by less than
// `max_growth_kib` after its warm-up.
bool passed(const LoadReport& r, long max_growth_kib);

std::string to_text(const LoadReport& r);
std::string to_json(const LoadReport& r);

}  // namespace hsad::load
