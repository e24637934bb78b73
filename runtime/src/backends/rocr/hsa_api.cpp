// Loading ROCr once, on first use, and turning its statuses into hsad::Error.
#include "backends/rocr/hsa_api.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "hsad/error.hpp"

namespace hsad::rocr {
namespace {
#define HSAD_STR2(x) #x
#define HSAD_STR(x) HSAD_STR2(x)

struct Loaded {
  Api api;
  std::string why;
  bool ok = false;
};

// hsa_init's failure alone says little ("out of resources"); name the usual cause.
std::string init_failure(hsa_status_t status, const Api& a) {
  const char* text = nullptr;
  a.hsa_status_string(status, &text);
  std::string why = std::string("hsa_init failed: ") + (text ? text : "unknown status");
  if (access("/dev/kfd", F_OK) != 0) why += " (no /dev/kfd: the amdgpu kernel driver is not loaded, or no AMD GPU)";
  return why;
}

Loaded load() {
  Loaded l;
  const char* env = std::getenv("HSAD_ROCR_LIBRARY");
  const std::string library = env && *env ? env : "libhsa-runtime64.so.1";
  l.api.handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!l.api.handle) {
    l.why = library + " not found (ROCr is not installed): " + dlerror();
    return l;
  }
#define HSAD_HSA_LOAD(name)                                                            \
  l.api.name = reinterpret_cast<decltype(l.api.name)>(dlsym(l.api.handle, HSAD_STR(name))); \
  if (!l.api.name) {                                                                   \
    l.why = library + " lacks " HSAD_STR(name) " (ROCr too old)";                      \
    return l;                                                                          \
  }
  HSAD_HSA_CALLS(HSAD_HSA_LOAD)
#undef HSAD_HSA_LOAD
  // ROCr gives the queues it makes for itself (the agent's one cooperative queue among them) a
  // handler that prints and aborts the process on a queue error; with this setting, read by
  // hsa_init, it does neither, and the library reports the error to the waiters (RocrRing). The
  // application's own setting stands; HSAD_ROCR_FAULT_HANDLER=0 leaves ROCr's behaviour alone.
  const char* handler = std::getenv("HSAD_ROCR_FAULT_HANDLER");
  if (!(handler && std::string(handler) == "0")) setenv("HSA_ENABLE_QUEUE_FAULT_MESSAGE", "0", 0);
  if (hsa_status_t s = l.api.hsa_init(); s != HSA_STATUS_SUCCESS) {
    l.why = init_failure(s, l.api);
    return l;
  }
  l.api.hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &l.api.timestamp_hz);
  if (l.api.timestamp_hz == 0) l.api.timestamp_hz = 1'000'000'000;
  l.ok = true;
  return l;
}
}  // namespace

const Api* api(std::string* why) {
  static const Loaded loaded = load();
  if (why) *why = loaded.why;
  return loaded.ok ? &loaded.api : nullptr;
}

std::string status_text(hsa_status_t status) {
  const char* text = nullptr;
  const Api* a = api();
  if (a) a->hsa_status_string(status, &text);
  return text ? std::string(text) : "HSA status 0x" + [status] {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%x", unsigned(status));
    return std::string(buf);
  }();
}

static Errc code_of(hsa_status_t status) {
  switch (int(status)) {  // int: ROCr's AMD statuses (hsa_ext_amd.h) are outside hsa_status_t
    case HSA_STATUS_ERROR_OUT_OF_RESOURCES: return Errc::out_of_memory;
    case HSA_STATUS_ERROR_INVALID_ARGUMENT:
    case HSA_STATUS_ERROR_INVALID_SIGNAL:
    case HSA_STATUS_ERROR_INVALID_QUEUE:
    case HSA_STATUS_ERROR_INVALID_ALLOCATION:
    case HSA_STATUS_ERROR_INVALID_CODE_OBJECT:
    case HSA_STATUS_ERROR_INVALID_EXECUTABLE:
    case HSA_STATUS_ERROR_INVALID_ISA: return Errc::invalid_argument;
    case HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS:
    case HSA_STATUS_ERROR_INVALID_ISA_NAME: return Errc::unsupported;
    case HSA_STATUS_ERROR_NOT_INITIALIZED: return Errc::driver_missing;
    case HSA_STATUS_ERROR_EXCEPTION:
    case HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION:
    case HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION:
    case HSA_STATUS_ERROR_MEMORY_FAULT: return Errc::device_fault;
    default: return Errc::runtime;
  }
}

void check(hsa_status_t status, const char* call, const char* hint) {
  if (status == HSA_STATUS_SUCCESS || status == HSA_STATUS_INFO_BREAK) return;
  throw Error(code_of(status), "rocr", call, status_text(status), hint);
}

}  // namespace hsad::rocr
