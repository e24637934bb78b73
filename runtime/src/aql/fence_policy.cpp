// The batch fence policy.
#include "aql/fence_policy.hpp"

namespace hsad::aql {

Fences fences_for(std::size_t index, std::size_t count, bool narrow) {
  if (!narrow) return {Scope::system, Scope::system};
  const bool first = index == 0;
  const bool last = index + 1 == count;
  return {first ? Scope::system : Scope::agent, last ? Scope::system : Scope::agent};
}

std::size_t system_fence_count(std::size_t count, bool narrow) {
  if (count == 0) return 0;
  return narrow ? 2 : 2 * count;
}

}  // namespace hsad::aql
