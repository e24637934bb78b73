// What ROCr and the thunk ask the render nodes through libdrm and libdrm_amdgpu, answered for the
// simulated GPUs: defined in the preloaded door, these come before the libraries' own, which then
// never see a simulated render node (and need no sysfs, fstat or DRM ioctls of it). The thunk
// opens a render node, initialises a device on it for the GPU's marketing name and family, and
// (ROCm 6) keeps the device's descriptor; ROCr 6 asks the device's counter frequency. Buffer
// objects through libdrm (ROCr's VMM, dmabuf IPC and graphics interop) are refused by name.
#include <fcntl.h>
#include <unistd.h>

#include <libdrm/amdgpu.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "door/fd_table.hpp"
#include "door/real_libc.hpp"
#include "door/topology_tree.hpp"
#include "sim_config.hpp"

#define HSAD_EXPORT extern "C" __attribute__((visibility("default")))

// libdrm_amdgpu's device handle is opaque to its users: this is the simulated GPU's.
struct amdgpu_device {
  std::uint32_t node = 0;
  int fd = -1;  // the descriptor it was initialised on
  int refs = 0;
  std::string marketing_name;
};

namespace hsad::sim::door {
namespace {
std::mutex mutex;
std::map<std::uint32_t, amdgpu_device>& devices() {
  static auto* m = new std::map<std::uint32_t, amdgpu_device>();
  return *m;
}

int refuse(const char* call) {
  std::fprintf(stderr, "hsad-sim: the simulated GPU's libdrm does not serve %s (buffer objects through libdrm)\n", call);
  return -EINVAL;
}
}  // namespace
}  // namespace hsad::sim::door

using namespace hsad::sim::door;
using hsad::sim::config;

HSAD_EXPORT int drmOpenRender(int minor) {
  const std::string path = "/dev/dri/renderD" + std::to_string(minor);
  const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);  // the door's open: a simulated GPU's, or the real file
  return fd >= 0 ? fd : -errno;
}

HSAD_EXPORT int drmClose(int fd) { return close(fd); }

HSAD_EXPORT int drmCommandWriteRead(int, unsigned long index, void*, unsigned long) {
  std::fprintf(stderr, "hsad-sim: the simulated GPU's libdrm does not serve drmCommandWriteRead (command 0x%lx)\n", index);
  return -EINVAL;
}

HSAD_EXPORT int amdgpu_device_initialize(int fd, uint32_t* major, uint32_t* minor, amdgpu_device_handle* handle) {
  const FdInfo info = fd_info(fd);
  if (info.kind != FdKind::render) {
    std::fprintf(stderr, "hsad-sim: amdgpu_device_initialize on a descriptor that is no simulated GPU's render node\n");
    return -EINVAL;
  }
  std::lock_guard<std::mutex> lock(mutex);
  amdgpu_device& d = devices()[info.node];
  if (d.refs++ == 0) {
    d.node = info.node;
    d.fd = fd;
    d.marketing_name = config().target.marketing_name();
  }
  *major = 3;  // amdgpu's DRM interface
  *minor = 40;
  *handle = &d;
  return 0;
}

HSAD_EXPORT int amdgpu_device_deinitialize(amdgpu_device_handle dev) {
  std::lock_guard<std::mutex> lock(mutex);
  if (dev && dev->refs > 0) --dev->refs;
  return 0;
}

// A descriptor of the device's own, which the caller owns: ROCm 6's thunk closes the one it opened
// and keeps this one for its ioctls and mmaps.
HSAD_EXPORT int amdgpu_device_get_fd(amdgpu_device_handle dev) { return dev ? real::dup(dev->fd) : -EINVAL; }

HSAD_EXPORT const char* amdgpu_get_marketing_name(amdgpu_device_handle dev) {
  return dev ? dev->marketing_name.c_str() : nullptr;
}

HSAD_EXPORT int amdgpu_query_gpu_info(amdgpu_device_handle dev, struct amdgpu_gpu_info* info) {
  if (!dev || !info) return -EINVAL;
  const hsad::sim::Target& t = config().target;
  std::memset(info, 0, sizeof *info);
  info->asic_id = t.device_id;
  info->family_id = t.family;
  info->ids_flags = 0;  // a discrete GPU
  info->max_engine_clk = 1700000;  // kHz
  info->max_memory_clk = 1600000;
  info->num_shader_engines = t.shader_engines;
  info->num_shader_arrays_per_engine = 1;
  info->gpu_counter_freq = 1000000;  // kHz: the counter is the packet processor's nanosecond clock
  info->cu_active_number = t.compute_units;
  info->pci_rev_id = 0;
  return 0;
}

HSAD_EXPORT int amdgpu_bo_import(amdgpu_device_handle, enum amdgpu_bo_handle_type, uint32_t, struct amdgpu_bo_import_result*) {
  return refuse("amdgpu_bo_import");
}
HSAD_EXPORT int amdgpu_bo_export(amdgpu_bo_handle, enum amdgpu_bo_handle_type, uint32_t*) { return refuse("amdgpu_bo_export"); }
HSAD_EXPORT int amdgpu_bo_free(amdgpu_bo_handle) { return refuse("amdgpu_bo_free"); }
HSAD_EXPORT int amdgpu_bo_cpu_map(amdgpu_bo_handle, void**) { return refuse("amdgpu_bo_cpu_map"); }
HSAD_EXPORT int amdgpu_bo_va_op(amdgpu_bo_handle, uint64_t, uint64_t, uint64_t, uint64_t, uint32_t) {
  return refuse("amdgpu_bo_va_op");
}
