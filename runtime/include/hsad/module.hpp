// Module: code an application loads at run time (an AMD code object or clang offload bundle; a
// CUDA cubin, fatbin or PTX) and the kernels in it. Modules coexist with the library's own
// kernels and with each other (one kernel name in two modules is fine). Releasing a module
// while a submission still runs one of its kernels is safe: the code lives until then.
#pragma once

#include "hsad/export.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hsad/kernel.hpp"

namespace hsad {

namespace detail { class ModuleImpl; }

class HSAD_API Module {
 public:
  Module() = default;
  explicit Module(std::shared_ptr<detail::ModuleImpl> impl) : impl_(std::move(impl)) {}

  // Loads (once) and returns a kernel; throws hsad::Error listing the module's kernels when it
  // has none called `name`.
  Kernel kernel(std::string_view name) const;
  // The kernels in the module, sorted.
  const std::vector<std::string>& kernel_names() const;
  // What was loaded: the target of the entry picked ("gfx90a:xnack-", "sm_90", "compute_90 (PTX)").
  const std::string& target() const;
  // Where it came from: the file's path, or "<memory>".
  const std::string& origin() const;
  explicit operator bool() const { return impl_ != nullptr; }

 private:
  std::shared_ptr<detail::ModuleImpl> impl_;
};

}  // namespace hsad
