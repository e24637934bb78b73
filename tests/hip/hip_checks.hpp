// What the HIP test programs share: one line per check ("ok  " or "FAIL"), a HIP call that fails
// is a failed check naming the call and HIP's words, and the closing count.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdio>
#include <string>

namespace hip_checks {
inline int passed = 0, failed = 0;

inline void check(bool ok, const std::string& what) {
  ++(ok ? passed : failed);
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
}

inline bool call(hipError_t e, const char* what) {
  if (e == hipSuccess) return true;
  check(false, std::string(what) + ": " + hipGetErrorString(e));
  return false;
}

// "NAME: N passed, M failed"; the exit code: 0 when something passed and nothing failed.
inline int finish(const char* name) {
  std::printf("%s: %d passed, %d failed\n", name, passed, failed);
  return failed == 0 && passed > 0 ? 0 : 1;
}
}  // namespace hip_checks

#define HIP(x) hip_checks::call((x), #x)
