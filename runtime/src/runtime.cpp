// Runtime: probes the backends in preference order and opens one.
#include "hsad/runtime.hpp"

#include "backends/backend.hpp"
#include "hsad/error.hpp"

namespace hsad {

const std::vector<std::string>& Runtime::backend_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (auto& b : detail::backends()) n.push_back(b.name);
    return n;
  }();
  return names;
}

std::vector<BackendStatus> Runtime::probe() {
  std::vector<BackendStatus> all;
  for (auto& b : detail::backends()) all.push_back(b.probe());
  return all;
}

Runtime Runtime::open(std::string_view backend) {
  std::string why;
  for (auto& b : detail::backends()) {
    if (backend != "auto" && backend != b.name) continue;
    BackendStatus st = b.probe();
    if (!st.available) {
      if (backend != "auto") throw Error(Errc::driver_missing, b.name, "open", "backend unavailable: " + st.reason);
      why += b.name + ": " + st.reason + "; ";
      continue;
    }
    Runtime rt;
    rt.backend_ = b.name;
    for (auto& d : b.open()) rt.devices_.emplace_back(std::move(d));
    if (rt.devices_.empty()) {
      if (backend != "auto") throw Error(Errc::driver_missing, b.name, "open", "no device found");
      continue;
    }
    return rt;
  }
  std::string valid = "auto";
  for (auto& n : backend_names()) valid += ", " + n;
  if (backend != "auto") throw Error("runtime", "open", "unknown backend '" + std::string(backend) + "'", "valid: " + valid);
  throw Error(Errc::driver_missing, "runtime", "open", "no backend available: " + why);
}

const Device& Runtime::device(std::size_t index) const {
  if (index >= devices_.size()) {
    throw Error(backend_, "device", "device " + std::to_string(index) + " requested, " +
                                        std::to_string(devices_.size()) + " present");
  }
  return devices_[index];
}

}  // namespace hsad
