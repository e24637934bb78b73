#include "native_handles.hpp"

#include <mutex>
#include <unordered_map>

#include "backends/backend.hpp"

namespace hsad::detail {
namespace {
struct Registry {
  std::mutex mutex;
  std::unordered_map<std::uint64_t, std::weak_ptr<CompletionImpl>> completions;
};
// Never destroyed: completions may outlive static destruction (held by a leaked submission).
Registry& registry() {
  static auto* r = new Registry;
  return *r;
}
}  // namespace

void register_native_handle(std::uint64_t handle, const std::shared_ptr<CompletionImpl>& completion) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.completions[handle] = completion;
  completion->registered_handle = handle;
}

std::shared_ptr<CompletionImpl> find_native_handle(std::uint64_t handle) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.completions.find(handle);
  return it == r.completions.end() ? nullptr : it->second.lock();
}

void forget_native_handle(std::uint64_t handle) noexcept {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.completions.find(handle);
  if (it != r.completions.end() && it->second.expired()) r.completions.erase(it);
}

CompletionImpl::~CompletionImpl() {
  if (registered_handle) forget_native_handle(registered_handle);
  gone_->store(true, std::memory_order_release);
}

}  // namespace hsad::detail
