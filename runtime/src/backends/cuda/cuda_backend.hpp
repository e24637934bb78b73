// The cuda backend's entry points for the runtime, without the driver's header.
#pragma once

#include "backends/backend.hpp"

namespace hsad::cuda {
BackendStatus probe();
std::vector<std::shared_ptr<detail::DeviceImpl>> open();
}  // namespace hsad::cuda
