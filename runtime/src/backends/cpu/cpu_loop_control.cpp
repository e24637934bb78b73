// The cpu agent's build of the loop control kernel (kernels/loop_control.hpp): the same logic
// as the GPU builds, with the host's atomics and the agent's doorbell, which wakes the loop
// ring's packet processor as a submit does.
#include "backends/cpu/cpu_device.hpp"

#include <thread>

#include "agent/signal_ops.hpp"
#include "hsad/host_kernel.hpp"
#include "loop_control.hpp"

namespace hsad::cpu {
namespace {
struct HostOps {
  static std::uint64_t add_write_index(std::uint64_t address, std::uint64_t n) {
    return __atomic_fetch_add(reinterpret_cast<std::uint64_t*>(address), n, __ATOMIC_ACQ_REL);
  }
  static std::uint64_t load_read_index(std::uint64_t address) {
    return __atomic_load_n(reinterpret_cast<const std::uint64_t*>(address), __ATOMIC_ACQUIRE);
  }
  static void pause() { std::this_thread::yield(); }
  static void publish(std::uint32_t* slot, std::uint32_t word) { __atomic_store_n(slot, word, __ATOMIC_RELEASE); }
  static void ring_doorbell(std::uint64_t signal, std::uint64_t index) {
    agent::signal_store(hsa_signal_t{signal}, static_cast<std::int64_t>(index));
  }
  static std::uint32_t load_condition(std::uint64_t address) {
    return __atomic_load_n(reinterpret_cast<const std::uint32_t*>(address), __ATOMIC_ACQUIRE);
  }
};

void run_control(const WorkGroup& wg) {
  const auto& a = wg.args<loop::ControlArgs>();
  loop::control<HostOps>(*reinterpret_cast<loop::Program*>(a.program), a.first != 0);
}
}  // namespace

const HostKernel& loop_control_host_kernel() {
  static const HostKernel k =
      make_host_kernel<loop::ControlArgs>("hsad_loop_control", &run_control,
                                          {host_arg("program", &loop::ControlArgs::program),
                                           host_arg("first", &loop::ControlArgs::first),
                                           host_arg("pad", &loop::ControlArgs::pad)});
  return k;
}

}  // namespace hsad::cpu
