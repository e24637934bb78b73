// GPU memory faults as errors instead of abort(): ROCr's VM-fault handler calls abort() unless a
// system event handler is registered and accepts the event (hsa_amd_register_system_event_handler,
// ROCr's Runtime::VMFaultHandler). The library registers one, once per process, and gives each
// fault to the device of the faulting agent; every wait on that agent's queues then fails with it.
#pragma once

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "backends/rocr/hsa_api.hpp"

namespace hsad::rocr {

// One agent's fault record: empty until a fault, then the first fault's text.
class MemoryFaults {
 public:
  // Registers the process's handler on first use (ROCr has no call to unregister one, so the
  // handler and the registry it reads live as long as the process). Throws hsad::Error when ROCr
  // refuses the handler.
  MemoryFaults(const Api& api, hsa_agent_t agent, std::string agent_name);
  ~MemoryFaults();
  MemoryFaults(const MemoryFaults&) = delete;
  MemoryFaults& operator=(const MemoryFaults&) = delete;

  bool faulted() const { return faulted_.load(std::memory_order_acquire); }
  std::string text() const;
  void clear();  // Device::reset: the queues that faulted are gone

  // "page not present or supervisor privilege, imprecise address": ROCr's reason bits in words.
  static std::string reasons(std::uint32_t mask);

 private:
  static hsa_status_t on_event(const hsa_amd_event_t* event, void* data);
  void record(const hsa_amd_gpu_memory_fault_info_t& fault);

  hsa_agent_t agent_;
  std::string agent_name_;
  std::atomic<bool> faulted_{false};
  mutable std::mutex mutex_;
  std::string text_;
};

}  // namespace hsad::rocr
