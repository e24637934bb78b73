#include "sim_cache.hpp"

#include <dlfcn.h>

namespace hsad::bench {

std::optional<SimCacheLines> sim_cache_lines() {
  using Counters = int (*)(std::uint32_t, std::uint64_t*);
  // hsad-sim's door, preloaded into the process: it alone has this symbol.
  static const Counters counters = reinterpret_cast<Counters>(dlsym(RTLD_DEFAULT, "hsad_sim_cache_counters"));
  std::uint64_t c[4] = {0, 0, 0, 0};
  if (!counters || !counters(0, c)) return std::nullopt;
  return SimCacheLines{c[1], c[3]};
}

}  // namespace hsad::bench
