// Which fence scopes each packet of a batch carries. The host only touches data before the
// first packet and after the last, so only those two need system scope (the seed's p_optFence).
#pragma once

#include <cstddef>

#include "aql/packet.hpp"

namespace hsad::aql {

struct Fences {
  Scope acquire;
  Scope release;
  bool operator==(const Fences& o) const { return acquire == o.acquire && release == o.release; }
};

// narrow = the `fence` flag. Without it every packet is system scope both ways.
Fences fences_for(std::size_t index, std::size_t count, bool narrow);

// How many of a batch's fences are system scope: 2 * count without narrowing, 2 with it.
std::size_t system_fence_count(std::size_t count, bool narrow);

}  // namespace hsad::aql
