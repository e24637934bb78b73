// The batch fence policy.
#include "aql_packets/fence_policy.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

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

namespace {
enum class Narrowing { none, release, all };

Narrowing narrowing_from_environment() {
  const char* v = std::getenv("HSAD_TEST_NARROW_FENCES");
  if (!v || !*v) return Narrowing::none;
  if (std::strcmp(v, "release") == 0) return Narrowing::release;
  if (std::strcmp(v, "all") == 0) return Narrowing::all;
  // A test that asks for a narrowing this library does not know must not pass as if it had one.
  std::fprintf(stderr, "hsadispatch: HSAD_TEST_NARROW_FENCES must be release or all, not '%s'\n", v);
  std::abort();
}
}  // namespace

Header narrowed_for_test(Header h) {
  static const Narrowing n = narrowing_from_environment();
  if (n == Narrowing::none) return h;
  if (h.release == Scope::system) h.release = Scope::agent;
  if (n == Narrowing::all && h.acquire == Scope::system) h.acquire = Scope::agent;
  return h;
}

}  // namespace hsad::aql
