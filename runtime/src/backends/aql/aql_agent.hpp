// What an AQL backend (cpu agent, rocr) supplies to the shared submission path: signals,
// kernarg memory and copies of the agent, and the ring side of each queue.
#pragma once

#include <hsa/hsa.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "backends/backend.hpp"
#include "batch_data.hpp"

namespace hsad::detail {

class AqlRing {
 public:
  virtual ~AqlRing() = default;
  virtual std::uint32_t size() const = 0;  // packets, a power of two
  virtual void* base() const = 0;
  virtual std::uint64_t add_write_index(std::uint64_t n) = 0;
  virtual std::uint64_t load_read_index() const = 0;
  virtual void ring_doorbell(std::uint64_t index) = 0;
  // Throws hsad::Error when the queue is in error (a kernel faulted or threw).
  virtual void throw_if_failed() const = 0;
  virtual bool failed() const = 0;
  virtual std::string error() const = 0;  // why it failed; empty while it has not
  // Where the driver reports this queue's errors to nobody (ROCr's shared cooperative queue):
  // looks for a stop it was not told of, so failed() and throw_if_failed() see it. `waited`: how
  // long the caller has waited for the queue's work; a look may be costly, so it is made only
  // after a while, and rarely. Nothing for every other ring.
  virtual void look_for_stop(Clock::duration /*waited*/) {}
  // From now on, packets with a completion signal record their start and end in it.
  virtual void enable_profiling() = 0;
  // The ring index of the packet that faulted, where the agent knows it; UINT64_MAX otherwise.
  virtual std::uint64_t failed_packet() const = 0;
  // Stops the queue for good (Device::reset, destruction): nothing more is consumed, work in
  // flight is stopped where the agent can, and failed() is true with `why`. False when work was
  // left running (a host kernel stuck inside a work-group): what it uses must then be kept.
  virtual bool shut_down(const std::string& why) = 0;
  // After a shut_down that left work running: whether it still runs. The ring is kept for good
  // then, so this may be asked at any later time. Where the agent cannot tell: always true.
  virtual bool left_work_running() const { return true; }
  // What the driver says about this queue beyond a status, where it says more (the simulated
  // GPU's account of a fault: the kernel, pc and instruction); empty otherwise.
  virtual std::string driver_account() const { return {}; }
  // Queue::native: the driver's queue (rocr: the hsa_queue_t*), 0 where there is none.
  virtual std::uint64_t native() const { return 0; }
  // What ringing the doorbell writes first (for a prefetch; nullptr: nothing to ask for).
  virtual const void* doorbell_line() const { return nullptr; }
  // The ring as a producer on the device reaches it (the loop control kernel,
  // kernels/loop_control.hpp): its packets, the addresses of its indices, its doorbell signal.
  struct DeviceView {
    std::uint64_t base = 0, mask = 0, write_index = 0, read_index = 0, doorbell = 0;
  };
  virtual DeviceView device_view() const { return {}; }
};

class AqlAgent {
 public:
  virtual ~AqlAgent() = default;
  virtual hsa_signal_t create_signal(std::int64_t initial) = 0;
  virtual void destroy_signal(hsa_signal_t signal) noexcept = 0;
  virtual void store_signal(hsa_signal_t signal, std::int64_t value) = 0;
  virtual std::int64_t load_signal(hsa_signal_t signal) = 0;
  // True once the value is 0; false at the deadline. `check` runs between waiting slices and
  // throws to abort (the queue, or a submission waited for, failed).
  virtual bool wait_signal_zero(hsa_signal_t signal, Clock::time_point deadline, const std::function<void()>& check) = 0;
  virtual void* alloc_kernarg(std::size_t bytes) = 0;
  virtual void free_kernarg(void* ptr) noexcept = 0;
  virtual const char* backend_name() const = 0;
  // Throws hsad::Error when the agent reported a fault that stops all its queues (rocr: a GPU
  // memory fault, through ROCr's system event handler); every wait checks it.
  virtual void throw_if_faulted() const {}
  // Whether a barrier-AND packet may name the application's own signals (Batch::wait_native):
  // rocr's packet processor reads any hsa_signal_t; the cpu agent's reads only its own.
  virtual bool takes_native_signals() const { return false; }
  // The kernel that sets up the GWS barrier before a cooperative dispatch (hsad_gws_init), where
  // the agent takes cooperative dispatches; nullptr elsewhere.
  virtual std::shared_ptr<const KernelImpl> gws_init_kernel() { return nullptr; }
  // The software agent: a cooperative dispatch is marked in its packet (aql::kCooperativeMark).
  virtual bool marks_cooperative() const { return false; }
  // The address a kernel that calls printf or malloc gets as its hostcall buffer, its service
  // started on first use; 0 where the agent has none.
  virtual std::uint64_t hostcall_buffer() { return 0; }
  // v5's device heap for malloc (zeroed: the device library's initial state), made on first use.
  virtual std::uint64_t device_heap() { return 0; }
  // 64 bytes of device memory where a cooperative dispatch's grid barrier lives when its code keeps
  // it in memory (ROCm 6's device library on gfx940-gfx942 and gfx11 on): made ready by hsad_gws_init
  // before each cooperative dispatch, which runs behind every packet before it, and every cooperative
  // dispatch of a device goes through ROCr's one cooperative queue, so one block serves them all.
  // 0 where the agent has none.
  virtual std::uint64_t grid_sync_block() { return 0; }
  // Device-run loops (Batch::loop_begin): the agent's build of the loop control kernel
  // (hsad_loop_control, kernels/loop_control.hpp), and a ring of `packets` that only it writes,
  // for a queue's loops. Throw Errc::unsupported where the agent has no such kernel.
  virtual std::shared_ptr<const KernelImpl> loop_control_kernel() { throw_no_loops(); }
  virtual std::unique_ptr<AqlRing> create_loop_ring(std::uint32_t) { throw_no_loops(); }
  // A queue's loop working area (loop::Program::working: the program and its packets, which the
  // control kernel reads every iteration) in the agent's own memory, nearer to its kernels than
  // the kernarg pool; nullptr where it has none (the kernels then read the host's program).
  virtual void* alloc_loop_working(std::size_t /*bytes*/) { return nullptr; }
  virtual void free_loop_working(void* /*ptr*/, std::size_t /*bytes*/) noexcept {}

  // How copy commands run: as agent-dispatch packets in the queue's own ring (the cpu agent), or
  // on the driver's copy engine, ordered by signals (ROCr's hsa_amd_memory_async_copy).
  virtual bool copies_in_ring() const = 0;
  // Copy engines: starts the copy once every dependency is 0 and decrements `done` at its end. A
  // pageable host range is made reachable (locked) and appended to `locked`, for unlock_host
  // once the submission completed.
  virtual void async_copy(const Copy& copy, const hsa_signal_t* deps, std::uint32_t dep_count, hsa_signal_t done,
                          std::vector<void*>& locked) = 0;
  virtual void unlock_host(void* ptr) noexcept = 0;
  // When the packet or async copy that decremented `signal` started and ended, in ns of the
  // device's clock (profiling was enabled on the ring first).
  virtual void command_times(hsa_signal_t signal, bool async_copy, std::uint64_t* start_ns, std::uint64_t* end_ns) = 0;

 private:
  [[noreturn]] void throw_no_loops() const;
};

// What dispatch `d`'s hidden arguments are filled with on `agent`, on the ring whose driver queue
// is `queue` (AqlRing::native): the hostcall buffer and the heap only for a kernel that lists them.
inline aql::HiddenContext hidden_context(const Dispatch& d, AqlAgent& agent, std::uint64_t queue) {
  const KernelImpl& k = d.kernel.impl();
  return {d.config.dynamic_shared_bytes, k.needs_hostcall ? agent.hostcall_buffer() : 0,
          k.needs_heap ? agent.device_heap() : 0, queue, d.config.cooperative ? agent.grid_sync_block() : 0};
}

}  // namespace hsad::detail
