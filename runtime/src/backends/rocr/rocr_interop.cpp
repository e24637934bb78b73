// The rocr device and the application's own memory: what hsa_amd_pointer_info says of a pointer
// decides whether a Buffer may be made over it (Device::adopt), and of which kind.
#include <cstdlib>
#include <memory>
#include <sstream>

#include "backends/rocr/rocr_device.hpp"
#include "hsad/error.hpp"

namespace hsad::rocr {
namespace {
std::string hex(const void* p) {
  std::ostringstream s;
  s << p;
  return s.str();
}

const char* type_name(hsa_amd_pointer_type_t t) {
  switch (t) {
    case HSA_EXT_POINTER_TYPE_HSA: return "a ROCr allocation";
    case HSA_EXT_POINTER_TYPE_LOCKED: return "locked host memory";
    case HSA_EXT_POINTER_TYPE_GRAPHICS: return "graphics interop memory";
    case HSA_EXT_POINTER_TYPE_IPC: return "IPC memory";
    default: return "unknown memory";
  }
}
}  // namespace

Memory RocrDevice::adopt_memory(void* ptr, std::size_t bytes) {
  hsa_amd_pointer_info_t info{};
  info.size = sizeof info;
  std::uint32_t count = 0;
  hsa_agent_t* agents = nullptr;
  const hsa_status_t status = api_.hsa_amd_pointer_info(ptr, &info, std::malloc, &count, &agents);
  const std::unique_ptr<hsa_agent_t, decltype(&std::free)> held(agents, &std::free);
  if (status != HSA_STATUS_SUCCESS || info.type == HSA_EXT_POINTER_TYPE_UNKNOWN) {
    throw Error(Errc::invalid_argument, "rocr", "adopt",
                hex(ptr) + " is not memory ROCr knows (hsa_amd_pointer_info: " +
                    (status == HSA_STATUS_SUCCESS ? std::string("unknown") : status_text(status)) + ")",
                "adopt memory from hipMalloc, hipHostMalloc, hsa_amd_memory_pool_allocate or hsa_amd_memory_lock");
  }
  const auto* p = static_cast<const unsigned char*>(ptr);
  const auto* base = static_cast<const unsigned char*>(info.agentBaseAddress);
  if (info.hostBaseAddress && info.hostBaseAddress != info.agentBaseAddress) {
    // Locked memory the GPU sees at another address: a Buffer has one address for both.
    throw Error(Errc::invalid_argument, "rocr", "adopt",
                hex(ptr) + " is " + type_name(info.type) + " that the GPU sees at " + hex(info.agentBaseAddress) +
                    " and the host at " + hex(info.hostBaseAddress),
                "adopt memory whose device and host addresses agree (hipHostMalloc, or a fine-grained pool)");
  }
  if (p < base || p - base > std::ptrdiff_t(info.sizeInBytes) || bytes > info.sizeInBytes - std::size_t(p - base)) {
    throw Error(Errc::invalid_argument, "rocr", "adopt",
                std::to_string(bytes) + " bytes at " + hex(ptr) + " overrun the allocation at " + hex(base) + " of " +
                    std::to_string(info.sizeInBytes) + " bytes (" + type_name(info.type) + ")",
                "adopt a range inside one allocation");
  }
  bool reachable = false;
  for (std::uint32_t i = 0; i < count; ++i) reachable |= agents[i].handle == agent_.handle;
  if (!reachable) {
    throw Error(Errc::invalid_argument, "rocr", "adopt",
                hex(ptr) + " is " + type_name(info.type) + " that agent '" + info_.name + "' may not access (" +
                    (info.agentOwner.handle == agent_.handle ? "its own, not mapped for it"
                     : info.agentOwner.handle == pools_.host_agent.handle ? "host memory"
                                                                          : "another GPU's memory") +
                    ")",
                "allow the access first: hsa_amd_agents_allow_access, hipDeviceEnablePeerAccess, or hipHostMalloc");
  }
  // Memory the host owns (fine-grained or locked) is what Memory::pinned_host means here.
  const bool host = info.type == HSA_EXT_POINTER_TYPE_LOCKED || info.agentOwner.handle == pools_.host_agent.handle;
  return host ? Memory::pinned_host : Memory::device;
}

NativeDevice RocrDevice::native() const {
  NativeDevice n;
  n.device = agent_.handle;
  n.host_agent = pools_.host_agent.handle;
  n.device_pool = pools_.device.handle;
  n.host_pool = pools_.fine_host.handle;
  n.kernarg_pool = pools_.kernarg.handle;
  return n;
}

}  // namespace hsad::rocr
