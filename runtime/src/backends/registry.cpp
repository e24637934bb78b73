// The backends in preference order: rocr, then cuda, then the cpu agent.
#include "backends/backend.hpp"
#include "backends/cpu/cpu_device.hpp"
#include "backends/cuda/cuda_backend.hpp"
#include "backends/rocr/rocr_backend.hpp"

namespace hsad::detail {

const std::vector<BackendEntry>& backends() {
  static const std::vector<BackendEntry> all = {
      {"rocr", &rocr::probe, &rocr::open},
      {"cuda", &cuda::probe, &cuda::open},
      {"cpu", &cpu::CpuDevice::probe, &cpu::CpuDevice::open},
  };
  return all;
}

}  // namespace hsad::detail
