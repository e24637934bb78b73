// Runtime: finds the backends, says why one is unavailable, opens the best one's devices.
#pragma once

#include "hsad/export.hpp"

#include <string>
#include <string_view>
#include <vector>

#include "hsad/device.hpp"

namespace hsad {

struct HSAD_API BackendStatus {
  std::string name;       // "rocr", "cuda", "cpu"
  bool available = false;
  std::string reason;     // why not, or what was found
};

class HSAD_API Runtime {
 public:
  // "auto" picks rocr, then cuda, then cpu: the first with a device. Any other name opens that
  // backend or throws hsad::Error carrying the reason it is unavailable.
  static Runtime open(std::string_view backend = "auto");
  // Every backend, in preference order, with its availability and why.
  static std::vector<BackendStatus> probe();
  static const std::vector<std::string>& backend_names();

  const std::string& backend() const { return backend_; }
  const std::vector<Device>& devices() const { return devices_; }
  const Device& device(std::size_t index = 0) const;

 private:
  std::string backend_;
  std::vector<Device> devices_;
};

}  // namespace hsad
