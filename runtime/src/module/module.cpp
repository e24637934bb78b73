// Module and Device::load_module: reading the file, and the per-module kernel cache. What the
// bytes are and whether they can run is each backend's (DeviceImpl::load_module).
#include "hsad/module.hpp"

#include <algorithm>

#include "backends/backend.hpp"
#include "hsad/device.hpp"
#include "hsad/error.hpp"
#include "whole_file.hpp"

namespace hsad {
namespace detail {

std::shared_ptr<const KernelImpl> ModuleImpl::kernel(std::string_view name) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (device->reset_invalidates_memory()) device->check_generation(generation, "module", "kernel");
  if (auto it = kernels_.find(name); it != kernels_.end()) return it->second;
  std::shared_ptr<KernelImpl> k = load_kernel(std::string(name));
  k->device = device;
  k->generation = generation;
  k->keep_alive = code;  // batches and in-flight submissions hold the code, not the Module handle
  kernels_.emplace(std::string(name), k);
  return k;
}

}  // namespace detail

namespace {
const detail::ModuleImpl& checked(const std::shared_ptr<detail::ModuleImpl>& impl) {
  if (!impl) throw Error(Errc::invalid_argument, "module", "Module", "the Module is empty", "get one from Device::load_module");
  return *impl;
}
}  // namespace

Kernel Module::kernel(std::string_view name) const {
  const detail::ModuleImpl& m = checked(impl_);
  if (!std::binary_search(m.names.begin(), m.names.end(), name)) {
    std::string have;
    for (const std::string& n : m.names) have += (have.empty() ? "" : ", ") + n;
    throw Error(Errc::invalid_argument, m.device->info().backend, "kernel",
                "no kernel named '" + std::string(name) + "' in module '" + m.origin + "' (it has: " +
                    (have.empty() ? "none" : have) + ")");
  }
  return Kernel(detail::keeping_device(impl_->device->shared_from_this(), impl_->kernel(name)));  // the handle holds the device
}

const std::vector<std::string>& Module::kernel_names() const { return checked(impl_).names; }
const std::string& Module::target() const { return checked(impl_).target; }
const std::string& Module::origin() const { return checked(impl_).origin; }

Module Device::load_module(const std::string& path) const {
  const std::string& backend = detail::checked_device(impl_, "load_module").info().backend;
  const std::string bytes = detail::read_whole_file(path, backend, "load_module");
  if (bytes.empty()) throw Error(Errc::invalid_argument, backend, "load_module", "'" + path + "' is empty");
  auto m = impl().load_module(bytes, path);
  m->generation = impl().generation();
  return Module(detail::keeping_device(impl().shared_from_this(), std::move(m)));
}

Module Device::load_module(const void* bytes, std::size_t size) const {
  detail::checked_device(impl_, "load_module");
  if (!bytes || size == 0) throw Error(Errc::invalid_argument, info().backend, "load_module", "no bytes given (an empty module)");
  auto m = impl().load_module(std::string_view(static_cast<const char*>(bytes), size), "<memory>");
  m->generation = impl().generation();
  return Module(detail::keeping_device(impl().shared_from_this(), std::move(m)));
}

}  // namespace hsad
