// Which file descriptors the door handed out for /dev/kfd and /dev/dri/renderD*: each is a real
// descriptor (of /dev/null) the process may dup, close and pass around; their ioctls and mmaps
// reach the simulated driver instead.
#pragma once

#include <cstdint>

namespace hsad::sim::door {

enum class FdKind : std::uint8_t { other = 0, kfd = 1, render = 2 };

struct FdInfo {
  FdKind kind = FdKind::other;
  std::uint32_t node = 0;  // render: the GPU's topology node
};

FdInfo fd_info(int fd);
void track_fd(int fd, FdInfo info);
void untrack_fd(int fd);

}  // namespace hsad::sim::door
