// A stand-in for ROCm's libroctx64.so (roctracer's range API) that records the ranges it is given,
// for the tests of the library's tool ranges (HSAD_ROCTX_LIBRARY names it).
#include <mutex>
#include <string>
#include <vector>

namespace {
std::mutex m;
std::vector<std::string> opened;  // every push, in order
int depth = 0;
}  // namespace

extern "C" {
__attribute__((visibility("default"))) int roctxRangePushA(const char* message) {
  std::lock_guard<std::mutex> lock(m);
  opened.push_back(message ? message : "");
  return depth++;
}
__attribute__((visibility("default"))) int roctxRangePop() {
  std::lock_guard<std::mutex> lock(m);
  return --depth;
}
// The test's view: the ranges pushed so far, and how many are still open.
__attribute__((visibility("default"))) std::vector<std::string> hsad_fake_roctx_ranges(int* open) {
  std::lock_guard<std::mutex> lock(m);
  *open = depth;
  return opened;
}
}
