// Which fence scopes each packet of a batch carries. The host only touches data before the
// first packet and after the last, so only those two need system scope (the seed's p_optFence).
#pragma once

#include <cstddef>

#include "aql_packets/packet.hpp"

namespace hsad::aql {

struct Fences {
  Scope acquire;
  Scope release;
  bool operator==(const Fences& o) const { return acquire == o.acquire && release == o.release; }
};

// narrow = the `fence` flag. Without it every packet is system scope both ways. With it, a
// packet fences at system scope on a side where the host or a copy engine (which reaches memory
// outside the agent's caches) is its neighbour: the start and end of a submission, a copy, a
// wait for another device. Agent scope elsewhere.
Fences fences_between(bool system_before, bool system_after, bool narrow);
// A batch of dispatches only: system scope before the first and after the last.
Fences fences_for(std::size_t index, std::size_t count, bool narrow);

// How many of a batch's fences are system scope: 2 * count without narrowing, 2 with it.
std::size_t system_fence_count(std::size_t count, bool narrow);

// Test only: HSAD_TEST_NARROW_FENCES makes every packet the library writes fence narrower than
// correct, to show that hsad-sim's cache model catches a fence too narrow. "release": no packet
// releases at system scope (not the last of a submission, not the one before a copy or another
// device's read); "all": no fence of any packet is system scope. Unset: the header as given.
// Applied where headers are encoded (encode()), so no packet escapes it; the library's counters
// still count the fences the policy chose.
Header narrowed_for_test(Header h);

}  // namespace hsad::aql
