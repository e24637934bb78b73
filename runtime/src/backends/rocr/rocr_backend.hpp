// The rocr backend's entry points for the runtime, without ROCr's headers.
#pragma once

#include "backends/backend.hpp"

namespace hsad::rocr {
BackendStatus probe();
std::vector<std::shared_ptr<detail::DeviceImpl>> open();
}  // namespace hsad::rocr
