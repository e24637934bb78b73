// The registry of host kernels, by name. Built-in kernels (kernels/host/) are added on first use.
#include <map>
#include <memory>
#include <mutex>

#include "backends/cpu/cpu_device.hpp"
#include "hsad/error.hpp"
#include "hsad/host_kernel.hpp"

namespace hsad {
namespace host_kernels { void register_builtins(); }  // kernels/host/builtins.cpp

namespace {
struct Registry {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<HostKernel>> kernels;  // stable addresses: kernel_object
};
// Never destroyed: a kernel_object is the HostKernel's address, and a work-group left running
// (a host kernel that never returns, issue 24) still reads it while the process exits.
Registry& registry() {
  static auto* r = new Registry;
  return *r;
}
void ensure_builtins() {
  static std::once_flag once;
  std::call_once(once, [] {
    host_kernels::register_builtins();
    // The library's own: what hsad-sim --exec host runs for the rocr backend's loop control.
    register_host_kernel(cpu::loop_control_host_kernel());
  });
}
}  // namespace

HostKernel make_host_kernel(std::string name, HostKernelFn fn) {
  HostKernel k;
  k.info.name = std::move(name);
  k.info.kernarg_segment_size = 0;
  k.fn = fn;
  return k;
}

void register_host_kernel(HostKernel kernel) {
  const KernelInfo& info = kernel.info;
  if (info.name.empty()) throw Error(Errc::invalid_argument, "cpu", "register_host_kernel", "a host kernel with no name");
  if (!kernel.fn) throw Error(Errc::invalid_argument, "cpu", "register_host_kernel", "host kernel '" + info.name + "' has no function");
  // Batch::exec packs each argument at its offset into a block of kernarg_segment_size bytes.
  for (const ArgInfo& a : info.args) {
    if (a.offset > info.kernarg_segment_size || a.size > info.kernarg_segment_size - a.offset) {
      throw Error(Errc::invalid_argument, "cpu", "register_host_kernel",
                  "host kernel '" + info.name + "': argument '" + a.name + "' (" + std::to_string(a.size) + " bytes at offset " +
                      std::to_string(a.offset) + ") ends past its " + std::to_string(info.kernarg_segment_size) +
                      "-byte argument block",
                  "make the host kernel with make_host_kernel<Args> and host_arg, which take both from the struct");
    }
  }
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const std::string name = kernel.info.name;
  if (!r.kernels.emplace(name, std::make_unique<HostKernel>(std::move(kernel))).second) {
    throw Error(Errc::invalid_argument, "cpu", "register_host_kernel", "a host kernel named '" + name + "' is already registered");
  }
}

const HostKernel* find_host_kernel(const std::string& name) {
  ensure_builtins();
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.kernels.find(name);
  return it == r.kernels.end() ? nullptr : it->second.get();
}

}  // namespace hsad
