// The batch fence policy.
#include "aql_packets/fence_policy.hpp"

namespace hsad::aql {

Fences fences_between(bool system_before, bool system_after, bool narrow) {
  if (!narrow) return {Scope::system, Scope::system};
  return {system_before ? Scope::system : Scope::agent, system_after ? Scope::system : Scope::agent};
}

Fences fences_for(std::size_t index, std::size_t count, bool narrow) {
  return fences_between(index == 0, index + 1 == count, narrow);
}

std::size_t system_fence_count(std::size_t count, bool narrow) {
  if (count == 0) return 0;
  return narrow ? 2 : 2 * count;
}

}  // namespace hsad::aql
