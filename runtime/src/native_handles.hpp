// The native handles Submission::native_handle has given out, by value, so that
// Batch::wait_native can tell the library's own completions (waited for as Batch::wait waits,
// and kept alive by the batch) from the application's signals and events.
#pragma once

#include <cstdint>
#include <memory>

namespace hsad::detail {

class CompletionImpl;

// Remembers `completion` under its handle until it is destroyed (CompletionImpl's destructor).
void register_native_handle(std::uint64_t handle, const std::shared_ptr<CompletionImpl>& completion);
// The live completion whose handle this is, or nullptr.
std::shared_ptr<CompletionImpl> find_native_handle(std::uint64_t handle);
// Forgets `handle` unless a live completion registered it again since (a signal given back and
// taken again by another submission).
void forget_native_handle(std::uint64_t handle) noexcept;

}  // namespace hsad::detail
