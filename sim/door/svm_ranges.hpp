// The user memory KFD's SVM API made GPU-reachable (ROCm 6's thunk registers host memory and the
// queues' save areas so: SET_ATTR with ACCESS or ACCESS_IN_PLACE for a GPU, page-aligned, at the
// memory's own address). Registrations of neighbouring heap buffers share pages, so ranges are kept
// as disjoint, merged intervals and handed to sim_memory as such; an munmap carves its pages out,
// as KFD's MMU notifier drops them.
#pragma once

#include <cstdint>

namespace hsad::sim::door {

// [start, start + size) is reachable by the GPUs from now on (merged with what already is).
void svm_grant(std::uint64_t start, std::uint64_t size);
// [start, start + size) no longer is (NO_ACCESS, or its pages were unmapped).
void svm_revoke(std::uint64_t start, std::uint64_t size);

}  // namespace hsad::sim::door
