// The cpu agent as a device: host memory, soft signals, host kernels, and a worker pool shared
// by its queues. The default backend where no GPU is present.
#pragma once

#include <memory>
#include <atomic>
#include <mutex>

#include "backends/aql/aql_agent.hpp"
#include "hsad/host_kernel.hpp"
#include "agent/worker_pool.hpp"

namespace hsad::cpu {

// The loop control kernel's host build (cpu_loop_control.cpp).
const HostKernel& loop_control_host_kernel();

class CpuDevice : public detail::DeviceImpl, public detail::AqlAgent {
 public:
  // Device `index` of `count` (HSAD_CPU_DEVICES): software agents that share one worker pool,
  // and so the cores, as several GPUs of a node share nothing but are driven by one process.
  CpuDevice(std::shared_ptr<agent::WorkerPool> pool, std::uint32_t index, std::uint32_t count);
  ~CpuDevice() override;

  std::shared_ptr<detail::QueueImpl> create_queue(std::uint32_t packets, Priority priority) override;
  // Refused, saying why: the cpu agent runs host kernels registered by name, not GPU code.
  std::shared_ptr<detail::ModuleImpl> load_module(std::string_view bytes, const std::string& origin) override;
  bool host_can_read(Memory) const override { return true; }
  bool marks_cooperative() const override { return true; }
  // A worker thread (the cpu agent's compute unit) runs one work-group at a time.
  std::uint32_t max_active_groups_per_cu(const detail::KernelImpl&, std::uint32_t, std::uint32_t) const override {
    return 1;
  }
  // Any host memory: the agent's kernels run on the host (Memory::device is host memory here).
  Memory adopt_memory(void*, std::size_t) override { return Memory::device; }
  NativeDevice native() const override { return {}; }  // no driver underneath
  bool peer_access(detail::DeviceImpl& other) override { return other.info().backend == "cpu"; }  // one host memory

  hsa_signal_t create_signal(std::int64_t initial) override;
  void destroy_signal(hsa_signal_t signal) noexcept override;
  void store_signal(hsa_signal_t signal, std::int64_t value) override;
  std::int64_t load_signal(hsa_signal_t signal) override;
  bool wait_signal_zero(hsa_signal_t signal, detail::Clock::time_point deadline,
                        const std::function<void()>& check) override;
  void* alloc_kernarg(std::size_t bytes) override;
  void free_kernarg(void* ptr) noexcept override;
  const char* backend_name() const override { return "cpu"; }
  // Copies are agent-dispatch packets in the queue's ring, run by its packet processor.
  bool copies_in_ring() const override { return true; }
  void async_copy(const detail::Copy&, const hsa_signal_t*, std::uint32_t, hsa_signal_t, std::vector<void*>&) override;
  void unlock_host(void*) noexcept override {}
  void command_times(hsa_signal_t signal, bool async_copy, std::uint64_t* start_ns, std::uint64_t* end_ns) override;
  // The loop control kernel's host build (cpu_loop_control.cpp), and a ring of the agent's own.
  std::shared_ptr<const detail::KernelImpl> loop_control_kernel() override;
  std::unique_ptr<detail::AqlRing> create_loop_ring(std::uint32_t packets) override;
  // Device memory (VRAM on an AMD GPU; the cpu agent's is host memory, as all of its memory).
  void* alloc_loop_working(std::size_t bytes) override { return raw_allocate(bytes, Memory::device); }
  void free_loop_working(void* ptr, std::size_t bytes) noexcept override { raw_deallocate(ptr, bytes, Memory::device); }

  static BackendStatus probe();
  static std::vector<std::shared_ptr<detail::DeviceImpl>> open();
  // HSAD_CPU_DEVICES: how many agents the backend presents (1 where unset); throws hsad::Error
  // naming the value when it is not a whole number from 1 to kMaxDevices.
  static std::uint32_t device_count();
  static constexpr std::uint32_t kMaxDevices = 64;

 protected:
  std::shared_ptr<const detail::KernelImpl> load_kernel(std::string_view name) override;
  void* raw_allocate(std::size_t bytes, Memory kind) override;
  void raw_deallocate(void* ptr, std::size_t bytes, Memory kind) noexcept override;
  std::size_t transfer_to_device(void* dst, const void* src, std::size_t bytes, bool src_pinned) override;
  std::size_t transfer_to_host(void* dst, const void* src, std::size_t bytes, bool dst_pinned) override;
  // Nothing beyond what the reset does to every queue: each cancels its dispatches.
  void reset_device(const std::vector<std::shared_ptr<detail::QueueImpl>>&) override {}

 private:
  std::size_t staged_copy(void* dst, const void* src, std::size_t bytes);

  std::shared_ptr<agent::WorkerPool> pool_;
  std::mutex staging_mutex_;
  void* staging_ = nullptr;  // pinned bounce buffer for pageable transfers
  std::atomic<std::uint64_t> next_queue_id_{0};  // queues and loop rings, made from any thread
};

}  // namespace hsad::cpu
