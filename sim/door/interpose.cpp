// The door itself: the C library's entry points that AMD's thunk, ROCr and tools like rocminfo
// reach the kernel through, defined here so that a preloaded libhsad-sim.so comes first. Paths
// under KFD's sysfs folder go to the simulated topology (topology_tree.hpp); an open of /dev/kfd or
// /dev/dri/renderD<minor> of a simulated GPU gives a descriptor the door remembers, whose ioctls
// and mmaps the simulated driver answers (kfd.hpp). Everything else goes through untouched.
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>

#include "door/fd_table.hpp"
#include "door/kfd.hpp"
#include "door/svm_ranges.hpp"
#include "door/real_libc.hpp"
#include "door/topology_tree.hpp"
#include "sim_config.hpp"

#define HSAD_EXPORT extern "C" __attribute__((visibility("default")))

namespace hsad::sim::door {
namespace {

template <class F>
F next(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (!f) {
    std::fprintf(stderr, "hsad-sim: the C library has no '%s' to pass calls on to\n", name);
    std::abort();
  }
  return reinterpret_cast<F>(f);
}
#define HSAD_NEXT(name, type) static const auto name##_next = next<type>(#name)

using OpenFn = int (*)(const char*, int, ...);
using OpenatFn = int (*)(int, const char*, int, ...);
using FopenFn = FILE* (*)(const char*, const char*);
using OpendirFn = DIR* (*)(const char*);
using AccessFn = int (*)(const char*, int);
using StatFn = int (*)(const char*, struct stat*);
using IoctlFn = int (*)(int, unsigned long, ...);
using MmapFn = void* (*)(void*, std::size_t, int, int, int, off_t);
using MunmapFn = int (*)(void*, std::size_t);
using CloseFn = int (*)(int);
using DupFn = int (*)(int);
using Dup2Fn = int (*)(int, int);
using Dup3Fn = int (*)(int, int, int);
using FcntlFn = int (*)(int, int, ...);

std::atomic<std::uint8_t> kinds[65536];
std::atomic<std::uint8_t> nodes[65536];

// The node whose render node `path` is ("/dev/dri/renderD128" -> 1), 0 for any other path.
std::uint32_t render_node_of(const char* path) {
  constexpr const char* kPrefix = "/dev/dri/renderD";
  if (!path || std::strncmp(path, kPrefix, std::strlen(kPrefix)) != 0) return 0;
  char* end = nullptr;
  const long minor = std::strtol(path + std::strlen(kPrefix), &end, 10);
  if (!end || *end) return 0;
  const long node = minor - long(render_minor_of(1)) + 1;
  return node >= 1 && node <= long(config().gpus) ? std::uint32_t(node) : 0;
}

bool is_kfd(const char* path) { return path && std::strcmp(path, "/dev/kfd") == 0; }

// /dev/kfd or a simulated render node: a descriptor of /dev/null the door remembers; -2 for any
// other path.
int open_device(const char* path, int flags) {
  const std::uint32_t render = render_node_of(path);
  if (!is_kfd(path) && !render) return -2;
  const int fd = real::open("/dev/null", (flags & O_CLOEXEC) | O_RDWR);
  if (fd >= 0) track_fd(fd, render ? FdInfo{FdKind::render, render} : FdInfo{FdKind::kfd, 0});
  return fd;
}

mode_t mode_of(int flags, va_list ap) {
  return ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) ? static_cast<mode_t>(va_arg(ap, int)) : 0;
}

int dup_tracked(int from, int to) {
  if (to >= 0) track_fd(to, fd_info(from));
  return to;
}
}  // namespace

FdInfo fd_info(int fd) {
  if (fd < 0 || fd >= 65536) return {};
  return {FdKind(kinds[fd].load(std::memory_order_acquire)), nodes[fd].load(std::memory_order_relaxed)};
}
void track_fd(int fd, FdInfo info) {
  if (fd < 0 || fd >= 65536) return;
  nodes[fd].store(std::uint8_t(info.node), std::memory_order_relaxed);
  kinds[fd].store(std::uint8_t(info.kind), std::memory_order_release);
}
void untrack_fd(int fd) {
  if (fd >= 0 && fd < 65536) kinds[fd].store(0, std::memory_order_release);
}

namespace real {
void* mmap(void* addr, std::size_t length, int prot, int flags, int fd, off_t offset) {
  HSAD_NEXT(mmap, MmapFn);
  return mmap_next(addr, length, prot, flags, fd, offset);
}
int munmap(void* addr, std::size_t length) {
  HSAD_NEXT(munmap, MunmapFn);
  return munmap_next(addr, length);
}
int open(const char* path, int flags, mode_t mode) {
  HSAD_NEXT(open, OpenFn);
  return open_next(path, flags, mode);
}
int close(int fd) {
  HSAD_NEXT(close, CloseFn);
  return close_next(fd);
}
int dup(int fd) {
  HSAD_NEXT(dup, DupFn);
  return dup_tracked(fd, dup_next(fd));
}
}  // namespace real

// Every process the launcher starts loads the door: the machine's description is checked (an
// unknown target refused, naming the ones there are) before the program runs, and read for good
// when the program first looks for the driver.
__attribute__((constructor)) void check_description() { check_config(); }

}  // namespace hsad::sim::door

using namespace hsad::sim::door;

HSAD_EXPORT int open(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_of(flags, ap);
  va_end(ap);
  if (const int fd = open_device(path, flags); fd != -2) return fd;
  std::string storage;
  return real::open(redirect(path, storage), flags, mode);
}
HSAD_EXPORT int open64(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_of(flags, ap);
  va_end(ap);
  if (const int fd = open_device(path, flags); fd != -2) return fd;
  std::string storage;
  HSAD_NEXT(open64, OpenFn);
  return open64_next(redirect(path, storage), flags, mode);
}
HSAD_EXPORT int __open_2(const char* path, int flags) { return open(path, flags); }
HSAD_EXPORT int __open64_2(const char* path, int flags) { return open64(path, flags); }
HSAD_EXPORT int openat(int dirfd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_of(flags, ap);
  va_end(ap);
  if (path[0] == '/') {
    if (const int fd = open_device(path, flags); fd != -2) return fd;
  }
  std::string storage;
  HSAD_NEXT(openat, OpenatFn);
  return openat_next(dirfd, redirect(path, storage), flags, mode);
}
HSAD_EXPORT int openat64(int dirfd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = mode_of(flags, ap);
  va_end(ap);
  return openat(dirfd, path, flags, mode);
}
HSAD_EXPORT FILE* fopen(const char* path, const char* mode) {
  std::string storage;
  HSAD_NEXT(fopen, FopenFn);
  return fopen_next(redirect(path, storage), mode);
}
HSAD_EXPORT FILE* fopen64(const char* path, const char* mode) {
  std::string storage;
  HSAD_NEXT(fopen64, FopenFn);
  return fopen64_next(redirect(path, storage), mode);
}
HSAD_EXPORT DIR* opendir(const char* path) {
  std::string storage;
  HSAD_NEXT(opendir, OpendirFn);
  return opendir_next(redirect(path, storage));
}
HSAD_EXPORT int access(const char* path, int mode) {
  // /dev/kfd exists and is the user's to open, as on a machine with the driver and the access.
  if (is_kfd(path) || render_node_of(path)) return (mode & X_OK) ? (errno = EACCES, -1) : 0;
  std::string storage;
  HSAD_NEXT(access, AccessFn);
  return access_next(redirect(path, storage), mode);
}
HSAD_EXPORT int stat(const char* path, struct stat* st) {
  std::string storage;
  HSAD_NEXT(stat, StatFn);
  return stat_next(redirect(path, storage), st);
}

HSAD_EXPORT int ioctl(int fd, unsigned long request, ...) {
  va_list ap;
  va_start(ap, request);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  const FdInfo info = fd_info(fd);
  if (info.kind == FdKind::kfd) return kfd_ioctl(request, arg);
  if (info.kind == FdKind::render) return render_ioctl(info.node, request, arg);
  HSAD_NEXT(ioctl, IoctlFn);
  return ioctl_next(fd, request, arg);
}

HSAD_EXPORT void* mmap(void* addr, std::size_t length, int prot, int flags, int fd, off_t offset) {
  if (!(flags & MAP_ANONYMOUS) && fd >= 0) {
    const FdInfo info = fd_info(fd);
    if (info.kind == FdKind::kfd) return kfd_mmap(addr, length, prot, flags, offset, &real::mmap);
    if (info.kind == FdKind::render) return render_mmap(info.node, addr, length, prot, flags, offset, &real::mmap);
  }
  return real::mmap(addr, length, prot, flags, fd, offset);
}
HSAD_EXPORT void* mmap64(void* addr, std::size_t length, int prot, int flags, int fd, off_t offset) {
  return mmap(addr, length, prot, flags, fd, offset);
}
HSAD_EXPORT int munmap(void* addr, std::size_t length) {
  // KFD's MMU notifier drops SVM-registered pages that are unmapped: so do the simulated GPUs.
  svm_revoke(reinterpret_cast<std::uint64_t>(addr), length);
  if (quarantine_unmap(addr, length, &real::munmap)) return 0;
  return real::munmap(addr, length);
}

HSAD_EXPORT int close(int fd) {
  untrack_fd(fd);
  return real::close(fd);
}
HSAD_EXPORT int dup(int fd) { return real::dup(fd); }
HSAD_EXPORT int dup2(int from, int to) {
  HSAD_NEXT(dup2, Dup2Fn);
  untrack_fd(to);
  return dup_tracked(from, dup2_next(from, to));
}
HSAD_EXPORT int dup3(int from, int to, int flags) {
  HSAD_NEXT(dup3, Dup3Fn);
  untrack_fd(to);
  return dup_tracked(from, dup3_next(from, to, flags));
}
HSAD_EXPORT int fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  HSAD_NEXT(fcntl, FcntlFn);
  const int r = fcntl_next(fd, cmd, arg);
  if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) return dup_tracked(fd, r);
  return r;
}
HSAD_EXPORT int fcntl64(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  return fcntl(fd, cmd, arg);
}
