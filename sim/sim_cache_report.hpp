// The cache model's opt-in diagnosis (hsad-sim --cache report): where an agent outside a GPU's L2
// may read memory that the L2 still holds dirty, it says which GPU, which kernel wrote the line
// last, and that no system-scope release put it into memory, so that a HIP developer finds a
// missing fence. Reports go to stderr, the first ones in full, then counted.
#pragma once

#include <cstdint>
#include <string>

namespace hsad::sim {

// A copy by GPU `node`'s engine of [src, src + bytes) to [dst, dst + bytes), about to run (src 0:
// a fill, which reads nothing).
void report_engine_copy(std::uint32_t node, std::uint64_t dst, std::uint64_t src, std::uint64_t bytes);
// A packet of GPU `node` completing its signal after a release narrower than system scope.
void report_signal_release(std::uint32_t node, const char* scope);
// A kernel of GPU `node` reaches the allocation at `base` (its first access from a work-group):
// reported where another GPU's L2 holds lines of it written since its last system-scope release.
void report_remote_access(std::uint32_t node, std::uint64_t base);
std::uint64_t cache_reports();

}  // namespace hsad::sim
