// hsad::Error: the one exception the library throws.
// It names the backend, the failing call, the driver's status text and what to do about it, and
// carries a code (hsad::Errc) that an application can switch on, stable across backends.
#pragma once

#include "hsad/export.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace hsad {

// What kind of failure an Error is, the same on every backend (SYCL's sycl::errc is the model).
// The text says the details; the code says what an application can do about it.
enum class Errc : std::uint8_t {
  runtime,           // a driver call failed for another reason: the status says which
  invalid_argument,  // the call's arguments are wrong (a recording error, a bad option, a stale handle)
  timeout,           // a wait reached its timeout while the work still ran (the submission is abandoned)
  device_fault,      // a kernel faulted (memory fault, trap, a host kernel threw): its queue is unusable
  queue_stopped,     // the queue runs nothing more (reset, blocked behind a failure, stuck work): make a new one
  out_of_memory,     // device, pinned host or kernarg memory could not be had
  unsupported,       // this backend or device cannot do it (a feature, a code object for another target)
  driver_missing,    // no driver or no device for the backend
  loop_limit,        // a device-run loop reached its max_iterations with its condition still non-zero
};

// "timeout", "device_fault", ...
HSAD_API const char* to_string(Errc code) noexcept;

class HSAD_API Error : public std::runtime_error {
 public:
  // The code is Errc::runtime, or Errc::invalid_argument for the library's own checks
  // (backend "batch", "options", "runtime").
  Error(std::string backend, std::string call, std::string status, std::string hint = {});
  Error(Errc code, std::string backend, std::string call, std::string status, std::string hint = {});

  Errc code() const noexcept { return code_; }
  const std::string& backend() const noexcept { return backend_; }
  const std::string& call() const noexcept { return call_; }
  const std::string& status() const noexcept { return status_; }
  const std::string& hint() const noexcept { return hint_; }
  // The submission this error concerns: its number on its queue (Queue::submissions() counts them,
  // from 1), or 0 where it concerns none.
  std::uint64_t submission() const noexcept { return submission_; }
  // The command of that submission's batch (its index in Batch::commands()), or -1 where unknown.
  std::int64_t command() const noexcept { return command_; }

  // The same error, naming the submission (and the command) it concerns.
  Error at(std::uint64_t submission, std::int64_t command = -1) const;

 private:
  Errc code_ = Errc::runtime;
  std::string backend_, call_, status_, hint_;
  std::uint64_t submission_ = 0;
  std::int64_t command_ = -1;
};

}  // namespace hsad
