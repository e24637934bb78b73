// ROCr, loaded at run time: libhsa-runtime64.so.1 is dlopen'ed, hsa_init is called once, and the
// entry points the backend uses are resolved into one table. Types come from Debian's hsa.h.
#pragma once

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <cstdint>
#include <string>

namespace hsad::rocr {

#define HSAD_HSA_CALLS(X)                                                                                  \
  X(hsa_init) X(hsa_status_string) X(hsa_system_get_info) X(hsa_iterate_agents) X(hsa_agent_get_info)      \
  X(hsa_amd_agent_iterate_memory_pools) X(hsa_amd_memory_pool_get_info) X(hsa_amd_memory_pool_allocate)    \
  X(hsa_amd_memory_pool_free) X(hsa_amd_agents_allow_access) X(hsa_amd_memory_lock)                        \
  X(hsa_amd_memory_unlock) X(hsa_amd_memory_async_copy) X(hsa_signal_create) X(hsa_signal_destroy)         \
  X(hsa_signal_store_relaxed) X(hsa_signal_store_screlease) X(hsa_signal_load_scacquire)                   \
  X(hsa_signal_wait_scacquire) X(hsa_queue_create) X(hsa_queue_destroy) X(hsa_queue_add_write_index_relaxed) \
  X(hsa_queue_load_read_index_scacquire) X(hsa_code_object_reader_create_from_memory)                       \
  X(hsa_code_object_reader_destroy) X(hsa_executable_create_alt) X(hsa_executable_load_agent_code_object)  \
  X(hsa_executable_freeze) X(hsa_executable_destroy) X(hsa_executable_get_symbol_by_name)                  \
  X(hsa_executable_symbol_get_info) X(hsa_amd_profiling_set_profiler_enabled) X(hsa_amd_profiling_async_copy_enable) \
  X(hsa_amd_profiling_get_dispatch_time) X(hsa_amd_profiling_get_async_copy_time) X(hsa_agent_iterate_isas)     \
  X(hsa_isa_get_info_alt) X(hsa_amd_agent_memory_pool_get_info) X(hsa_amd_queue_set_priority)   \
  X(hsa_amd_register_system_event_handler) X(hsa_amd_pointer_info)

struct Api {
#define HSAD_HSA_MEMBER(name) decltype(&::name) name = nullptr;
  HSAD_HSA_CALLS(HSAD_HSA_MEMBER)
#undef HSAD_HSA_MEMBER
  void* handle = nullptr;
  std::uint64_t timestamp_hz = 0;  // signal-wait timeout hints are in these ticks
};

// The initialized runtime, or nullptr with `why` saying what is missing (no library, an entry
// point missing, hsa_init failing, as it does without /dev/kfd). Loaded once per process and
// never shut down: ROCr's own teardown at exit is the only safe order. HSAD_ROCR_LIBRARY names
// another library file (a test uses it for the missing-library path).
const Api* api(std::string* why = nullptr);

// ROCr's own text for a status ("HSA_STATUS_ERROR_OUT_OF_RESOURCES: ...").
std::string status_text(hsa_status_t status);

// Throws hsad::Error naming the call and ROCr's status text.
void check(hsa_status_t status, const char* call, const char* hint = "");

}  // namespace hsad::rocr
