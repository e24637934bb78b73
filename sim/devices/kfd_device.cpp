// The /dev/kfd device node, for programs run under hsad-sim that open it themselves before they
// ask ROCr anything (rocminfo opens it read-write to check the user's access). The simulated KFD
// (the stand-in libhsakmt) needs no device node; this preloaded library answers an open of
// /dev/kfd with one of /dev/null, as a machine with the driver and the access would. Every other
// open goes through untouched.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/types.h>

#include <cstdarg>
#include <cstring>

namespace {
using OpenFn = int (*)(const char*, int, ...);

int next_open(const char* path, int flags, mode_t mode) {
  static const auto real = reinterpret_cast<OpenFn>(dlsym(RTLD_NEXT, "open"));
  return real(path, flags, mode);
}
}  // namespace

extern "C" __attribute__((visibility("default"))) int open(const char* path, int flags, ...) {
  mode_t mode = 0;
  if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {
    va_list ap;
    va_start(ap, flags);
    mode = static_cast<mode_t>(va_arg(ap, int));
    va_end(ap);
  }
  if (std::strcmp(path, "/dev/kfd") == 0) return next_open("/dev/null", flags & ~O_CREAT, 0);
  return next_open(path, flags, mode);
}
