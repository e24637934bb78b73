// hsad::Error's message: "hsad[backend] call: status (hint)", and its code's name.
#include "hsad/error.hpp"

namespace hsad {
namespace {
std::string compose(const std::string& backend, const std::string& call, const std::string& status,
                    const std::string& hint) {
  std::string m = "hsad[" + backend + "] " + call + ": " + status;
  if (!hint.empty()) m += " (" + hint + ")";
  return m;
}

// The library's own checks (recording, options, opening) are about the caller's arguments.
Errc default_code(const std::string& backend) {
  for (const char* own : {"batch", "options", "runtime", "dlpack", "module", "queue"}) {
    if (backend == own) return Errc::invalid_argument;
  }
  return Errc::runtime;
}
}  // namespace

const char* to_string(Errc code) noexcept {
  switch (code) {
    case Errc::runtime: return "runtime";
    case Errc::invalid_argument: return "invalid_argument";
    case Errc::timeout: return "timeout";
    case Errc::device_fault: return "device_fault";
    case Errc::queue_stopped: return "queue_stopped";
    case Errc::out_of_memory: return "out_of_memory";
    case Errc::unsupported: return "unsupported";
    case Errc::driver_missing: return "driver_missing";
    case Errc::loop_limit: return "loop_limit";
  }
  return "unknown";
}

Error::Error(std::string backend, std::string call, std::string status, std::string hint)
    : std::runtime_error(compose(backend, call, status, hint)), code_(default_code(backend)),
      backend_(std::move(backend)), call_(std::move(call)), status_(std::move(status)), hint_(std::move(hint)) {}

Error::Error(Errc code, std::string backend, std::string call, std::string status, std::string hint)
    : std::runtime_error(compose(backend, call, status, hint)), code_(code), backend_(std::move(backend)),
      call_(std::move(call)), status_(std::move(status)), hint_(std::move(hint)) {}

Error Error::at(std::uint64_t submission, std::int64_t command) const {
  Error e = *this;
  e.submission_ = submission;
  e.command_ = command;
  return e;
}

}  // namespace hsad
