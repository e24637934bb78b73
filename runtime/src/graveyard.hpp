// What work left running may still touch: a kernel that never ends reads its kernarg block and
// writes its completion signal, a thread stuck inside a host kernel uses its packet processor.
// Freeing those under it would turn a hang into memory corruption, and waiting for it would turn
// a timeout into a hang; so they are kept, reachable, until the process exits.
#pragma once

#include <memory>

namespace hsad::detail {

void keep_forever(std::shared_ptr<const void> what);

template <class T> void keep_forever(std::unique_ptr<T> what) {
  keep_forever(std::shared_ptr<const void>(std::move(what)));
}

}  // namespace hsad::detail
