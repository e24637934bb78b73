// Memory of the simulated KFD: every allocation is an anonymous host mapping (GPU and host share
// one address space here), recorded so pointers can be looked up and code objects found.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace hsad::sim {

void* allocate(std::uint64_t bytes, bool reserve_only);
bool release(void* ptr);
// The allocation holding `address`: its base and size, or false.
bool find_allocation(std::uint64_t address, std::uint64_t* base, std::uint64_t* size);

// Host memory registered for the GPU (hsa_amd_memory_lock): reachable by kernels, not KFD's.
void register_host(const void* ptr, std::uint64_t bytes);
void deregister_host(const void* ptr);
// The allocation or registered range holding `address`: what a kernel may touch.
bool find_gpu_reachable(std::uint64_t address, std::uint64_t* base, std::uint64_t* size);

// Called with each allocation about to be freed (the simulated GPU forgets code it decoded there).
void set_release_hook(void (*hook)(std::uint64_t base, std::uint64_t size));

}  // namespace hsad::sim
