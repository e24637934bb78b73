// Loading a HIP peer: dlopen beside /proc/self/exe, never dlclosed (the HIP runtime's threads and
// exit handlers live in what it loads).
#include "hip_peer.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <stdexcept>

namespace hsad::bench {

void* hip_peer_entry(const std::string& file, const char* symbol) {
  char self[PATH_MAX] = {};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  std::string path = file;
  if (n > 0) {
    const std::string exe(self, std::size_t(n));
    path = exe.substr(0, exe.rfind('/') + 1) + file;
  }
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    throw std::runtime_error(std::string("the HIP peers are not available (") + dlerror() +
                             "): hipcc builds them beside the app, and they need libamdhip64");
  }
  void* entry = dlsym(lib, symbol);
  if (!entry) throw std::runtime_error(path + " has no " + symbol);
  return entry;
}

}  // namespace hsad::bench
