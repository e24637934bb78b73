// Interoperability: the application's memory adopted as Buffers, its signals and events waited
// for on the device, the library's completions and handles given out as integers
// (docs/api.md, "Interoperability").
#include <sstream>

#include "backends/backend.hpp"
#include "batch_data.hpp"
#include "hsad/batch.hpp"
#include "hsad/device.hpp"
#include "hsad/error.hpp"
#include "hsad/queue.hpp"
#include "native_handles.hpp"

namespace hsad {
namespace {
std::string hex(std::uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}
}  // namespace

Buffer Device::adopt(void* ptr, std::size_t bytes) const {
  const std::string& backend = info().backend;
  if (!ptr) throw Error(Errc::invalid_argument, backend, "adopt", "a null pointer", "pass the address the allocator returned");
  if (bytes == 0) throw Error(Errc::invalid_argument, backend, "adopt", "a range of 0 bytes", "adopt at least one byte");
  const Memory kind = impl_->adopt_memory(ptr, bytes);
  return Buffer::adopted(impl_, ptr, bytes, kind);
}

NativeDevice Device::native() const {
  NativeDevice n = detail::checked_device(impl_, "native").native();
  n.backend = info().backend;
  n.ordinal = impl_->ordinal();
  return n;
}

NativeQueue Queue::native() const {
  if (!impl_) throw Error(Errc::invalid_argument, "queue", "native", "the Queue is empty (default-constructed)");
  return {impl_->owner().info().backend, impl_->native()};
}

std::uint64_t Submission::native_handle() const {
  if (!impl_) throw Error(Errc::invalid_argument, "queue", "native_handle", "the Submission is empty (moved from, or default-constructed)");
  if (!impl_->native_holder) impl_->native_holder = impl_->completion();
  const std::shared_ptr<detail::CompletionImpl>& c = impl_->native_holder;
  const std::uint64_t handle = c->native_handle();
  if (c->registered_handle != handle) detail::register_native_handle(handle, c);
  return handle;
}

Batch& Batch::wait_native(std::uint64_t handle) {
  if (handle == 0) {
    throw Error("batch", "wait_native", "a native handle of 0",
                "pass an hsa_signal_t's handle (rocr), a CUevent (cuda) or Submission::native_handle()");
  }
  // One of the library's own: waited for as Batch::wait(submission), which keeps it alive.
  if (std::shared_ptr<detail::CompletionImpl> own = detail::find_native_handle(handle)) {
    if (device() && own->device().info().backend != device()->info().backend) {
      throw Error("batch", "wait_native",
                  "handle " + hex(handle) + " is a " + own->device().info().backend +
                      " submission's; this batch runs on " + device()->info().backend,
                  "wait for it on the host (Submission::wait), then submit");
    }
    mutable_data().waits.push_back({std::move(own), nullptr, 0, 0});
  } else {
    mutable_data().waits.push_back({nullptr, nullptr, 0, handle});
  }
  push(int(detail::CommandKind::wait), mutable_data().waits.size() - 1);
  return *this;
}

}  // namespace hsad
