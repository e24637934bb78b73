// How a batch's commands become driver calls, the parts the stream writer, the graph writer and
// the graph cache share: a dispatch's launch shape, a copy's name, whether a copy goes into a graph.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "backends/backend.hpp"

namespace hsad::cuda {

inline std::uint32_t blocks(std::uint32_t items, std::uint32_t group) { return (items + group - 1) / group; }

// A dispatch's blocks, threads per block and dynamic shared memory, in either driver struct that
// names them alike (CUlaunchConfig, CUDA_KERNEL_NODE_PARAMS).
template <class Launch>
void set_shape(Launch& l, const detail::Dispatch& d) {
  l.gridDimX = blocks(d.grid.x, d.group.x);
  l.gridDimY = blocks(d.grid.y, d.group.y);
  l.gridDimZ = blocks(d.grid.z, d.group.z);
  l.blockDimX = d.group.x;
  l.blockDimY = d.group.y;
  l.blockDimZ = d.group.z;
  l.sharedMemBytes = d.config.dynamic_shared_bytes;  // the static part is the kernel's own
}

inline bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, value) == 0;
}

inline const char* copy_name(detail::CopyKind k) {
  switch (k) {
    case detail::CopyKind::to_device: return "copy_to_device";
    case detail::CopyKind::to_host: return "copy_to_host";
    default: return "copy";
  }
}

// Under replay, copies run on the stream between graphs, not as memcpy nodes inside them: on
// the H100 a graph of kernels between stream copies replayed the 32768-key sort 4% faster than
// one graph with the copies as nodes, and matched the hand-written graph peer (0.95-1.00 of it
// in three alternating runs, docs/measurements/h100-graph-copies.sh). A pageable copy could
// not be a node anyway (the driver stages it synchronously). HSAD_CUDA_GRAPH_COPIES=node puts
// pinned copies back into the graphs, for that comparison.
inline bool graphable(const detail::Copy& c) {
  static const bool nodes = env_is("HSAD_CUDA_GRAPH_COPIES", "node");
  return c.host_pinned && nodes;
}

}  // namespace hsad::cuda
