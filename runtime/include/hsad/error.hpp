// hsad::Error: the one exception the library throws.
// It names the backend, the failing call, the driver's status text and what to do about it.
#pragma once

#include "hsad/export.hpp"

#include <stdexcept>
#include <string>

namespace hsad {

class HSAD_API Error : public std::runtime_error {
 public:
  Error(std::string backend, std::string call, std::string status, std::string hint = {});

  const std::string& backend() const noexcept { return backend_; }
  const std::string& call() const noexcept { return call_; }
  const std::string& status() const noexcept { return status_; }
  const std::string& hint() const noexcept { return hint_; }

 private:
  std::string backend_, call_, status_, hint_;
};

}  // namespace hsad
