// ToolRanges: NVTX where its headers were found at build time, roctx where libroctx64.so loads.
#include "tool_ranges.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

#if defined(HSAD_HAVE_NVTX)
#include <nvtx3/nvToolsExt.h>
#endif

namespace hsad::detail {
namespace {
struct Roctx {
  int (*push)(const char*) = nullptr;
  int (*pop)() = nullptr;
};

bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v && *v;
}

struct Tools {
  bool on = false;
  Roctx roctx;
  Tools() {
    const char* forced = std::getenv("HSAD_TOOL_RANGES");
    on = forced && *forced ? std::strcmp(forced, "0") != 0 : env_set("NVTX_INJECTION64_PATH") || env_set("HSA_TOOLS_LIB");
    if (!on) return;
    // roctx: HSAD_ROCTX_LIBRARY names another build of it (the tests' recorder).
    const char* path = std::getenv("HSAD_ROCTX_LIBRARY");
    if (void* lib = dlopen(path && *path ? path : "libroctx64.so", RTLD_NOW | RTLD_LOCAL)) {
      roctx.push = reinterpret_cast<int (*)(const char*)>(dlsym(lib, "roctxRangePushA"));
      roctx.pop = reinterpret_cast<int (*)()>(dlsym(lib, "roctxRangePop"));
      if (!roctx.push || !roctx.pop) roctx = {};
    }
  }
};

const Tools& tools() {
  static const Tools t;
  return t;
}
}  // namespace

bool ToolRanges::decide() {
  const bool on = tools().on;
  on_.store(on ? 1 : 0, std::memory_order_relaxed);
  return on;
}

void ToolRanges::push(const std::string& name) {
#if defined(HSAD_HAVE_NVTX)
  nvtxRangePushA(name.c_str());
#endif
  if (tools().roctx.push) tools().roctx.push(name.c_str());
}

void ToolRanges::pop() {
#if defined(HSAD_HAVE_NVTX)
  nvtxRangePop();
#endif
  if (tools().roctx.pop) tools().roctx.pop();
}

}  // namespace hsad::detail
