// The cuda backend of a build made without the CUDA toolkit's headers (an AMD machine's): it is
// never available, and says why, so Runtime::probe and hsad-info name the cause.
#include "backends/cuda/cuda_backend.hpp"

namespace hsad::cuda {
BackendStatus probe() {
  return {"cuda", false,
          "this build has no cuda backend: it was configured without the CUDA toolkit's cuda.h (install the toolkit and "
          "build again)"};
}
std::vector<std::shared_ptr<detail::DeviceImpl>> open() { return {}; }
}  // namespace hsad::cuda
