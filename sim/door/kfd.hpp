// The simulated KFD: what the amdgpu kernel driver answers on /dev/kfd and the render nodes, for
// AMD's own thunk (libhsakmt 5.2 and 6.x, or the one inside ROCr 6.3 and later) to run unchanged.
// The door's interposers (interpose.cpp) hand it the ioctls and mmaps of the file descriptors it
// gave out for /dev/kfd and /dev/dri/renderD*; what it serves is in sim/README.md.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace hsad::sim::door {

// A KFD ioctl on a /dev/kfd descriptor: 0, or -1 with errno. A request the simulated driver does not
// serve is refused (EINVAL), and named on stderr: never a silent success.
int kfd_ioctl(unsigned long request, void* arg);
// A DRM ioctl on a render node's descriptor: ROCr's libdrm calls are answered by the door's libdrm
// stand-in (drm_standin.cpp), so any that arrives is refused and named.
int render_ioctl(std::uint32_t node, unsigned long request, void* arg);

// The mmap of a /dev/kfd descriptor (doorbell pages, the MMIO page) or of GPU `render_node`'s
// render node (a buffer object's host mapping) at `offset`: the address, or MAP_FAILED with errno.
// `real_mmap` maps what must be mapped.
using MmapFn = void* (*)(void*, std::size_t, int, int, int, off_t);
void* kfd_mmap(void* addr, std::size_t length, int prot, int flags, off_t offset, MmapFn real_mmap);
void* render_mmap(std::uint32_t render_node, void* addr, std::size_t length, int prot, int flags, off_t offset,
                  MmapFn real_mmap);

// Whether [addr, addr + length) is (part of) a buffer object the driver freed whose host mapping
// must outlive a kernel that may still run: then the door keeps it mapped a while instead of
// unmapping it (quarantine) and says so by returning true.
using MunmapFn = int (*)(void*, std::size_t);
bool quarantine_unmap(void* addr, std::size_t length, MunmapFn real_munmap);

}  // namespace hsad::sim::door
