// hsad::Error's message: "backend: call failed: status (hint)".
#include "hsad/error.hpp"

namespace hsad {
namespace {
std::string compose(const std::string& backend, const std::string& call, const std::string& status,
                    const std::string& hint) {
  std::string m = "hsad[" + backend + "] " + call + ": " + status;
  if (!hint.empty()) m += " (" + hint + ")";
  return m;
}
}  // namespace

Error::Error(std::string backend, std::string call, std::string status, std::string hint)
    : std::runtime_error(compose(backend, call, status, hint)),
      backend_(std::move(backend)), call_(std::move(call)), status_(std::move(status)), hint_(std::move(hint)) {}

}  // namespace hsad
