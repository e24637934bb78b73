#include "sim_cache.hpp"

#include <dlfcn.h>

namespace hsad::bench {

std::optional<SimCacheLines> sim_cache_lines() {
  using Counters = int (*)(std::uint32_t, std::uint64_t*);
  // ROCr's libhsakmt, already loaded by the rocr backend; hsad-sim's alone has this symbol.
  static const Counters counters = [] {
    void* thunk = dlopen("libhsakmt.so.1", RTLD_LAZY | RTLD_NOLOAD);
    return thunk ? reinterpret_cast<Counters>(dlsym(thunk, "hsaKmtSimCacheCounters")) : nullptr;
  }();
  std::uint64_t c[4] = {0, 0, 0, 0};
  if (!counters || !counters(0, c)) return std::nullopt;
  return SimCacheLines{c[1], c[3]};
}

}  // namespace hsad::bench
