// The C library's own functions behind the door's interposers (the next definition after the
// preloaded door: libc's, or a sanitizer's interceptor), for the door's own calls.
#pragma once

#include <sys/types.h>

#include <cstddef>

namespace hsad::sim::door::real {

void* mmap(void* addr, std::size_t length, int prot, int flags, int fd, off_t offset);
int munmap(void* addr, std::size_t length);
int open(const char* path, int flags, mode_t mode = 0);
int close(int fd);
int dup(int fd);

}  // namespace hsad::sim::door::real
