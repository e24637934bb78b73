// Which peers a backend has, and loading the HIP ones: a shared object beside dispatch-bench (the
// build tree), dlopened only when asked for, so that the app runs where HIP is not installed.
#include "dispatch_peers.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <stdexcept>

namespace hsad::bench {
namespace {

std::string beside_this_program(const std::string& file) {
  char self[PATH_MAX] = {};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return file;
  std::string dir(self, std::size_t(n));
  return dir.substr(0, dir.rfind('/') + 1) + file;
}

std::vector<DispatchPeerSamples> run_hip_dispatch_peers(int count, int reps) {
  const std::string path = beside_this_program(HSAD_HIP_PEER_FILE);
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    throw std::runtime_error(std::string("the HIP peers are not available (") + dlerror() +
                             "): they are built by hipcc beside dispatch-bench and need libamdhip64");
  }
  // Never dlclosed: the HIP runtime's threads and its exit handlers live in it.
  auto run = reinterpret_cast<hsad_hip_dispatch_peers_fn>(dlsym(lib, "hsad_hip_dispatch_peers"));
  if (!run) throw std::runtime_error(path + " has no hsad_hip_dispatch_peers");
  std::vector<double> host(2 * std::size_t(reps)), us(2 * std::size_t(reps));
  char why[512] = {};
  if (run(count, reps, host.data(), us.data(), why, sizeof why) != 0) throw std::runtime_error(std::string("HIP: ") + why);
  std::vector<DispatchPeerSamples> out(2);
  out[0].name = "hipLaunchKernelGGL";
  out[1].name = "hipGraphLaunch";
  for (int p = 0; p < 2; ++p) {
    out[p].host_ns_per_dispatch.assign(host.begin() + p * reps, host.begin() + (p + 1) * reps);
    out[p].us_per_dispatch.assign(us.begin() + p * reps, us.begin() + (p + 1) * reps);
  }
  return out;
}

}  // namespace

std::vector<DispatchPeerSamples> run_dispatch_peers(const std::string& backend, int count, int reps) {
  if (backend == "cuda") return run_cuda_dispatch_peers(count, reps);
  if (backend == "rocr") return run_hip_dispatch_peers(count, reps);
  throw std::runtime_error("--peers: the " + backend + " backend has no vendor runtime to compare with (cuda: the CUDA "
                           "runtime; rocr: HIP)");
}

}  // namespace hsad::bench
