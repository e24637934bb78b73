#include "backends/rocr/memory_faults.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "hsad/error.hpp"

namespace hsad::rocr {
namespace {
// The records of the devices alive now, by agent; the handler finds the faulting agent's here.
std::mutex& registry_mutex() {
  static auto* m = new std::mutex;  // used by ROCr's event thread up to exit: never destroyed
  return *m;
}
std::vector<MemoryFaults*>& registry() {
  static auto* r = new std::vector<MemoryFaults*>;
  return *r;
}
}  // namespace

MemoryFaults::MemoryFaults(const Api& api, hsa_agent_t agent, std::string agent_name)
    : agent_(agent), agent_name_(std::move(agent_name)) {
  // HSAD_ROCR_FAULT_HANDLER=0 leaves ROCr's own handling: its message, then abort().
  const char* choice = std::getenv("HSAD_ROCR_FAULT_HANDLER");
  if (choice && std::string(choice) == "0") return;
  static const hsa_status_t registered = api.hsa_amd_register_system_event_handler(&MemoryFaults::on_event, nullptr);
  check(registered, "hsa_amd_register_system_event_handler");
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry().push_back(this);
}

MemoryFaults::~MemoryFaults() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto& r = registry();
  r.erase(std::remove(r.begin(), r.end(), this), r.end());
}

std::string MemoryFaults::reasons(std::uint32_t mask) {
  static const std::pair<std::uint32_t, const char*> names[] = {
      {HSA_AMD_MEMORY_FAULT_PAGE_NOT_PRESENT, "page not present or supervisor privilege"},
      {HSA_AMD_MEMORY_FAULT_READ_ONLY, "write to a read-only page"},
      {HSA_AMD_MEMORY_FAULT_NX, "execute on a page marked NX"},
      {HSA_AMD_MEMORY_FAULT_HOST_ONLY, "host-only memory"},
      {HSA_AMD_MEMORY_FAULT_DRAMECC, "DRAM ECC failure"},
      {HSA_AMD_MEMORY_FAULT_IMPRECISE, "imprecise address"},
      {HSA_AMD_MEMORY_FAULT_SRAMECC, "SRAM ECC failure"},
      {HSA_AMD_MEMORY_FAULT_HANG, "GPU hang"},
  };
  std::string text;
  for (const auto& [bit, name] : names) {
    if (!(mask & bit)) continue;
    if (!text.empty()) text += ", ";
    text += name;
  }
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%x", mask);
  return (text.empty() ? std::string("unknown reason") : text) + " (reason mask " + hex + ")";
}

hsa_status_t MemoryFaults::on_event(const hsa_amd_event_t* event, void*) {
  if (!event || event->event_type != HSA_AMD_GPU_MEMORY_FAULT_EVENT) return HSA_STATUS_ERROR;
  const hsa_amd_gpu_memory_fault_info_t& fault = event->memory_fault;
  std::lock_guard<std::mutex> lock(registry_mutex());
  bool ours = false;
  for (MemoryFaults* f : registry()) {
    if (f->agent_.handle != fault.agent.handle) continue;
    f->record(fault);
    ours = true;
  }
  // An agent no device of this library holds: ROCr's own handling (its message and abort).
  return ours ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR;
}

void MemoryFaults::record(const hsa_amd_gpu_memory_fault_info_t& fault) {
  char address[32];
  std::snprintf(address, sizeof address, "0x%llx", static_cast<unsigned long long>(fault.virtual_address));
  std::lock_guard<std::mutex> lock(mutex_);
  if (!text_.empty()) return;  // the first fault is the one that stopped the queues
  text_ = "GPU memory fault on " + agent_name_ + " at address " + address + ": " + reasons(fault.fault_reason_mask);
  faulted_.store(true, std::memory_order_release);
}

std::string MemoryFaults::text() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return text_;
}

void MemoryFaults::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  text_.clear();
  faulted_.store(false, std::memory_order_release);
}

}  // namespace hsad::rocr
