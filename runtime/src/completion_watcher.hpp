// The completion watcher: one library thread per process that runs the callbacks given to
// Submission::on_complete once their submissions end, so an application's event loop need
// neither block in wait() nor poll ready() itself.
#pragma once

#include <functional>

#include "hsad/queue.hpp"

namespace hsad::detail {

// Takes `s`; calls `callback` on the watcher's thread once s.ready(), with nullptr when the
// submission completed or with the error its wait throws.
void watch(Submission s, std::function<void(const Error*)> callback);

}  // namespace hsad::detail
