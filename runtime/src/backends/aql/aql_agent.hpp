// What an AQL backend (cpu agent, rocr) supplies to the shared submission path:
// signals and kernarg memory of the agent, and the ring side of each queue.
#pragma once

#include <hsa/hsa.h>

#include <cstdint>

#include "backends/backend.hpp"

namespace hsad::detail {

class AqlRing {
 public:
  virtual ~AqlRing() = default;
  virtual std::uint32_t size() const = 0;  // packets, a power of two
  virtual void* base() const = 0;
  virtual std::uint64_t add_write_index(std::uint64_t n) = 0;
  virtual std::uint64_t load_read_index() const = 0;
  virtual void ring_doorbell(std::uint64_t index) = 0;
  // Throws hsad::Error when the queue is in error (a kernel faulted or threw).
  virtual void throw_if_failed() const = 0;
  virtual bool failed() const = 0;
};

class AqlAgent {
 public:
  virtual ~AqlAgent() = default;
  virtual hsa_signal_t create_signal(std::int64_t initial) = 0;
  virtual void destroy_signal(hsa_signal_t signal) noexcept = 0;
  virtual void store_signal(hsa_signal_t signal, std::int64_t value) = 0;
  // True once the value is 0; false at the deadline. Throws if `ring` fails meanwhile.
  virtual bool wait_signal_zero(hsa_signal_t signal, Clock::time_point deadline, const AqlRing& ring) = 0;
  virtual void* alloc_kernarg(std::size_t bytes) = 0;
  virtual void free_kernarg(void* ptr) noexcept = 0;
  virtual const char* backend_name() const = 0;
};

}  // namespace hsad::detail
