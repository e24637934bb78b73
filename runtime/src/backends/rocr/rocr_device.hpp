// One ROCr GPU agent as a device: its memory pools, signals, queues, and the embedded code
// object that matches its ISA, loaded once into an hsa_executable.
#pragma once

#include <memory>
#include <mutex>

#include "backends/aql/aql_agent.hpp"
#include "backends/rocr/hostcall.hpp"
#include "backends/rocr/hsa_api.hpp"
#include "backends/rocr/memory_faults.hpp"
#include "backends/rocr/rocr_ring.hpp"
#include "hsad/code_object.hpp"

namespace hsad::rocr {

// The pools a device needs, found on the GPU agent and on the host (CPU) agent.
struct Pools {
  hsa_agent_t host_agent{0};
  hsa_amd_memory_pool_t kernarg{0};   // host, flagged for kernarg init
  hsa_amd_memory_pool_t fine_host{0}; // host, fine-grained: pinned host buffers
  hsa_amd_memory_pool_t device{0};    // the GPU's own, coarse-grained
  hsa_amd_memory_pool_t device_fine{0};  // the GPU's own, fine-grained (XGMI hives; 0 where ROCr offers none)
};

class RocrDevice : public detail::DeviceImpl, public detail::AqlAgent {
 public:
  RocrDevice(const Api& api, hsa_agent_t agent, const Pools& pools);
  ~RocrDevice() override;

  std::shared_ptr<detail::QueueImpl> create_queue(std::uint32_t packets, Priority priority) override;
  // ROCr's queue of type COOPERATIVE (it holds the agent's GWS), for LaunchConfig::cooperative.
  // ROCr has one per agent and hands it to every caller: the library's cooperative queues are
  // rings over that one queue and share its fate (SharedCooperativeQueue). Refused, naming why,
  // while the one held has stopped: ROCr makes a new one only once every holder let go.
  std::shared_ptr<detail::QueueImpl> create_cooperative_queue(std::uint32_t packets) override;
  std::shared_ptr<const detail::KernelImpl> gws_init_kernel() override;
  // hsad_loop_control from the library's code object (kernels/loop_control.cu), and a queue of
  // ROCr's for a queue's device-run loops.
  std::shared_ptr<const detail::KernelImpl> loop_control_kernel() override;
  std::unique_ptr<detail::AqlRing> create_loop_ring(std::uint32_t packets) override;
  // Device memory (VRAM on an AMD GPU; the cpu agent's is host memory, as all of its memory).
  void* alloc_loop_working(std::size_t bytes) override { return raw_allocate(bytes, Memory::device); }
  void free_loop_working(void* ptr, std::size_t bytes) noexcept override { raw_deallocate(ptr, bytes, Memory::device); }
  std::uint64_t hostcall_buffer() override;
  std::uint64_t device_heap() override;
  std::uint64_t grid_sync_block() override;
  bool host_can_read(Memory kind) const override { return kind == Memory::pinned_host; }
  std::uint32_t max_active_groups_per_cu(const detail::KernelImpl& kernel, std::uint32_t group_size,
                                         std::uint32_t dynamic_shared_bytes) const override;
  // Whether this agent may reach the other GPU's memory pool (ROCr: its access is not
  // NEVER_ALLOWED), so that an async copy between their memory goes directly. Where it may, the
  // other device lets this agent's kernels read and write its memory from now on: its allocations
  // made so far and every later one (grant_access), as cuCtxEnablePeerAccess and
  // hipDeviceEnablePeerAccess make a peer's memory reachable.
  bool peer_access(detail::DeviceImpl& other) override;
  // Adds `agent` to those that may access this device's memory (hsa_amd_agents_allow_access).
  void grant_access(hsa_agent_t agent);

  hsa_signal_t create_signal(std::int64_t initial) override;
  void destroy_signal(hsa_signal_t signal) noexcept override;
  void store_signal(hsa_signal_t signal, std::int64_t value) override;
  std::int64_t load_signal(hsa_signal_t signal) override;
  bool wait_signal_zero(hsa_signal_t signal, detail::Clock::time_point deadline,
                        const std::function<void()>& check) override;
  void* alloc_kernarg(std::size_t bytes) override;
  void free_kernarg(void* ptr) noexcept override;
  const char* backend_name() const override { return "rocr"; }
  // A GPU memory fault on this agent (ROCr's system event): its text, for every waiter.
  void throw_if_faulted() const override;
  // Copies are hsa_amd_memory_async_copy, ordered by signals.
  bool copies_in_ring() const override { return false; }
  void async_copy(const detail::Copy& copy, const hsa_signal_t* deps, std::uint32_t dep_count, hsa_signal_t done,
                  std::vector<void*>& locked) override;
  void unlock_host(void* ptr) noexcept override;
  void command_times(hsa_signal_t signal, bool async_copy, std::uint64_t* start_ns, std::uint64_t* end_ns) override;

  hsa_agent_t agent() const { return agent_; }
  // hsa_amd_pointer_info: ROCr's (or the HIP runtime's) memory that this agent may access,
  // [ptr, ptr + bytes) inside one allocation (rocr_interop.cpp).
  Memory adopt_memory(void* ptr, std::size_t bytes) override;
  NativeDevice native() const override;
  bool takes_native_signals() const override { return true; }

  static BackendStatus probe();
  static std::vector<std::shared_ptr<detail::DeviceImpl>> open();

  std::shared_ptr<detail::ModuleImpl> load_module(std::string_view bytes, const std::string& origin) override;
  const std::string& isa_name() const { return isa_name_; }

 protected:
  std::shared_ptr<const detail::KernelImpl> load_kernel(std::string_view name) override;
  void* raw_allocate(std::size_t bytes, Memory kind) override;
  void raw_deallocate(void* ptr, std::size_t bytes, Memory kind) noexcept override;
  void allocated(void* ptr, std::size_t bytes, Memory kind) override;
  std::size_t transfer_to_device(void* dst, const void* src, std::size_t bytes, bool src_pinned) override;
  std::size_t transfer_to_host(void* dst, const void* src, std::size_t bytes, bool dst_pinned) override;
  // The queues are destroyed by the reset itself (hsa_queue_destroy); a memory fault is forgotten.
  void reset_device(const std::vector<std::shared_ptr<detail::QueueImpl>>& queues) override;

 private:
  DispatchLimits dispatch_limits() const;
  std::uint32_t queue_packets(std::uint32_t packets, const char* call) const;
  struct Executable;  // the code object reader and executable, destroyed together
  class Module;       // an application's code object, its own executable
  std::shared_ptr<const Executable> load_executable(std::string_view code_object);
  std::shared_ptr<const Executable> executable();  // the library's own, loaded on first use
  std::shared_ptr<detail::KernelImpl> make_kernel(const std::shared_ptr<const Executable>& exe, std::string_view name,
                                                  const std::string& where);
  // One hsa_amd_memory_async_copy, waited on; pageable host ranges are locked for the copy.
  std::size_t copy(void* dst, const void* src, std::size_t bytes, bool host_is_src, bool host_pinned);

  const Api& api_;
  hsa_agent_t agent_;
  std::mutex access_mutex_;
  std::vector<hsa_agent_t> access_;  // the agents that may access this device's memory: itself, then those granted
  std::vector<hsa_agent_t> access_list();
  void allow_access(void* ptr, const std::vector<hsa_agent_t>& agents);
  std::once_flag hostcall_once_;
  std::unique_ptr<HostcallService> hostcall_;  // printf and malloc, started by the first kernel that calls them
  std::once_flag heap_once_;
  void* heap_ = nullptr;  // v5 malloc's heap, zeroed (freed with the device)
  std::once_flag grid_sync_once_;
  void* grid_sync_ = nullptr;  // grid_sync_block(): 64 bytes of device memory (freed with the device)
  std::once_flag gws_init_once_;
  std::mutex cooperative_mutex_;
  std::weak_ptr<SharedCooperativeQueue> cooperative_;  // while a cooperative queue of this device lives
  std::shared_ptr<const detail::KernelImpl> gws_init_;
  std::once_flag loop_control_once_;
  std::shared_ptr<const detail::KernelImpl> loop_control_;
  std::string isa_name_;  // with target features: what code objects are matched against
  Pools pools_;
  std::mutex exe_mutex_;
  std::shared_ptr<const Executable> exe_;
  std::mutex copy_mutex_;
  hsa_signal_t copy_signal_{0};
  std::unique_ptr<MemoryFaults> faults_;
};

}  // namespace hsad::rocr
