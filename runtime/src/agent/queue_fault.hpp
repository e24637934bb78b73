// Why the agent stopped a queue, as values: the text a person reads and, where a work-group
// touched memory outside every allocation, the address and the direction, so that a driver in
// front of the agent (the simulated GPU's KFD) can raise its memory event without reading text.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace hsad::agent {

struct MemoryAccess {
  std::uint64_t address = 0;
  bool write = false;
};

struct QueueFault {
  std::string what;
  std::optional<MemoryAccess> access;  // set: a memory fault at this access
};

// Thrown from a work-group (the simulated GPU's interpreter) for an access outside every
// allocation: the agent stops the queue with a QueueFault that carries the access.
class MemoryAccessFault : public std::runtime_error {
 public:
  MemoryAccessFault(const std::string& what, MemoryAccess access) : std::runtime_error(what), access(access) {}
  MemoryAccess access;
};

}  // namespace hsad::agent
