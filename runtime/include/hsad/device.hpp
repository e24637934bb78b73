// Device: one agent of one backend: its kernels, queues, memory and counters.
#pragma once

#include "hsad/export.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "hsad/buffer.hpp"
#include "hsad/kernel.hpp"
#include "hsad/module.hpp"
#include "hsad/queue.hpp"
#include "hsad/stats.hpp"
#include "hsad/trace.hpp"

namespace hsad {

// What one dispatch may ask of a device. Batch::exec checks a dispatch against its kernel's device
// and refuses, naming the limit, what the device could not run, so a batch that records runs.
struct DispatchLimits {
  Dim3 max_group{1024, 1024, 1024};      // work-items per work-group along each dimension
  std::uint32_t max_group_size = 1024;   // work-items per work-group in all
  Dim3 max_grid{0xffffffffu, 0xffffffffu, 0xffffffffu};    // work-items along each dimension
  Dim3 max_groups{0xffffffffu, 0xffffffffu, 0xffffffffu};  // work-groups along each dimension
  std::uint64_t max_grid_items = ~std::uint64_t(0);        // work-items in the whole grid
  // Group memory one work-group may have, static and dynamic together: LDS on AMD (ROCr's group
  // segment pool), shared memory on NVIDIA (the opt-in maximum per block); the cpu agent: 64 KiB.
  std::uint32_t max_group_memory_bytes = 64 * 1024;
};

struct HSAD_API DeviceInfo {
  std::string backend;  // "cpu", "rocr", "cuda"
  std::string name;     // marketing name
  std::string isa;      // "gfx90a", "sm_90", "x86_64"
  std::uint32_t wavefront_size = 0;
  std::uint32_t compute_units = 0;
  // The cache the device's memory traffic last passes through (a GPU's L2, a host's L3), or
  // nullopt where neither driver nor OS nor processor reports it: rules that use it say what
  // they do without it (laplacian-bench's auto split and chunk length, for instance).
  std::optional<std::uint64_t> last_level_cache_bytes;
  std::string last_level_cache_source;  // "driver", "sysfs", "sysconf", "cpuid", an env variable, "unknown"
  std::uint64_t memory_bytes = 0;
  std::uint32_t max_queue_packets = 0;
  DispatchLimits limits;  // rocr and cuda: the driver's; the cpu agent: the same as a GPU's (1024)
  // rocr: the library's code object this GPU runs and why ("gfx11-generic (no gfx1103 object;
  // gfx11-generic covers gfx1103)"), or "none (...)" naming what the bundle holds; else empty.
  std::string code_object;
};

// What the driver knows a device as, as integers so that these headers need neither HSA's nor
// CUDA's (docs/api.md, "Interoperability": what an application may do with each). 0 where the
// backend has no such thing.
struct HSAD_API NativeDevice {
  std::string backend;             // "cpu", "rocr", "cuda"
  std::uint64_t device = 0;        // rocr: the GPU's hsa_agent_t::handle; cuda: the CUdevice (its ordinal)
  std::uint64_t context = 0;       // cuda: the device's primary CUcontext (the CUDA runtime's too)
  std::uint64_t host_agent = 0;    // rocr: the CPU agent (hsa_agent_t::handle) the host pools belong to
  std::uint64_t device_pool = 0;   // rocr: hsa_amd_memory_pool_t::handle that Memory::device comes from
  std::uint64_t host_pool = 0;     // rocr: the fine-grained host pool of Memory::pinned_host
  std::uint64_t kernarg_pool = 0;  // rocr: the host pool kernarg blocks come from
  std::uint32_t ordinal = 0;       // the device's number among its backend's (HIP's and CUDA's device id)
};

class HSAD_API Device {
 public:
  Device() = default;
  explicit Device(std::shared_ptr<detail::DeviceImpl> impl) : impl_(std::move(impl)) {}

  const DeviceInfo& info() const;
  // Loads (once) and returns one of the library's own kernels by name (on the cpu agent, also a
  // registered host kernel); throws hsad::Error if the device has none such.
  Kernel kernel(std::string_view name) const;
  // An application's own code, from a file or from memory: an AMD code object or clang offload
  // bundle (rocr; the entry for the agent's ISA is picked), a cubin, fatbin or PTX (cuda). Throws
  // hsad::Error for a missing, empty or truncated file, bytes that are no code object, code for
  // another target (naming the targets it has), and on the cpu agent, which runs host kernels.
  Module load_module(const std::string& path) const;
  Module load_module(const void* bytes, std::size_t size) const;
  // packets = 0: the backend's default ring size. A power of two from 2; rocr makes a smaller one
  // than the agent's least (HSA_AGENT_INFO_QUEUE_MIN_SIZE) at that least (Queue::size() says).
  Queue create_queue(std::uint32_t packets = 0, Priority priority = Priority::normal) const;
  // A queue that takes cooperative dispatches (LaunchConfig::cooperative). rocr: ROCr's queue of
  // type COOPERATIVE, which holds the agent's global wave sync (GWS) resources; refused where the
  // agent has none. cuda: an ordinary queue (every CUDA stream takes cooperative launches).
  Queue create_cooperative_queue(std::uint32_t packets = 0) const;
  // Every submission of this device's queues reported to `callback` (TraceEvent), until set_trace
  // is called again; nullptr stops it. A submission reports to the callback set when it was made.
  void set_trace(TraceCallback callback) const;
  Buffer alloc(std::size_t bytes, Memory kind = Memory::device) const;
  // A Buffer over memory the application allocated (hipMalloc, hsa_amd_memory_pool_allocate,
  // cuMemAlloc / cudaMalloc, pinned host memory, a framework's allocator), usable wherever a
  // Buffer is. The library never frees it: the application frees it after the last submission
  // that uses it has completed. Checked where the backend can tell (rocr: hsa_amd_pointer_info;
  // cuda: cuPointerGetAttributes): throws hsad::Error for memory the driver does not know, memory
  // of another device or context this one cannot reach, and a range past the allocation's end.
  // The cpu agent takes any host memory.
  Buffer adopt(void* ptr, std::size_t bytes) const;
  // The agent, context and memory pools underneath (docs/api.md, "Interoperability").
  NativeDevice native() const;

  // Blocking transfers. Host memory that is not a pinned Buffer of this device is pageable
  // and is staged the way the driver requires (counted in Stats::bytes_staged).
  void copy_to_device(const Buffer& dst, const void* src, std::size_t bytes, std::size_t dst_offset = 0) const;
  void copy_to_host(void* dst, const Buffer& src, std::size_t bytes, std::size_t src_offset = 0) const;

  // Whether this device reaches `other`'s memory directly, so that a Batch::copy between them goes
  // peer to peer (enabled on the first call where the driver needs it: cuCtxEnablePeerAccess).
  // cpu agents: always (one host memory); cuda: cuDeviceCanAccessPeer; rocr: the agent may
  // access the other's memory pool. False for the device itself and another backend's device.
  bool can_access_peer(const Device& other) const;

  // Stops everything the device runs and makes it usable again, as far as the backend allows
  // (docs/api.md, "Recovering from a stuck or faulting kernel"): queues made before refuse use;
  // rocr destroys every queue (the driver preempts its waves) and forgets a memory fault; the cpu
  // agent cancels the work-groups not yet started (a host kernel stuck inside one is left on its
  // thread); cuda resets the primary context, after which every buffer and module made before
  // refuses use too. Throws hsad::Error saying why where the backend cannot: on cuda while a
  // kernel still runs (the driver's reset waits for it), or after a fault (the driver keeps the
  // error for the whole process).
  void reset() const;

  Stats stats() const;
  detail::DeviceImpl& impl() const { return *impl_; }
  explicit operator bool() const { return impl_ != nullptr; }

 private:
  std::shared_ptr<detail::DeviceImpl> impl_;
};

}  // namespace hsad
