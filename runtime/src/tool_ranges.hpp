// Ranges in the profilers people use: NVTX (Nsight Systems, Nsight Compute) and roctx (rocprof),
// named by what a submission runs. Both are reached at run time only: NVTX through its own
// header-only stub (the tool it injects is named by NVTX_INJECTION64_PATH, which nsys and ncu set),
// roctx through dlopen of libroctx64.so (ROCm's roctracer). Where neither is attached a submit
// pays one load of a flag: the range's name is built only for a tool.
#pragma once

#include <atomic>
#include <string>

namespace hsad::detail {

class ToolRanges {
 public:
  // Decided once per process: HSAD_TOOL_RANGES=1 (on) or 0 (off); otherwise on where a profiler
  // is attached: NVTX_INJECTION64_PATH (nsys, ncu) or HSA_TOOLS_LIB (rocprof) set.
  // Inline, one load once decided: every submit asks it (no call into this file's code page).
  static bool on() {
    const signed char decided = on_.load(std::memory_order_relaxed);
    return decided >= 0 ? decided != 0 : decide();
  }
  static void push(const std::string& name);
  static void pop();

 private:
  [[gnu::cold, gnu::noinline]] static bool decide();
  static inline std::atomic<signed char> on_{-1};  // -1: not decided yet
};

// A range around one scope, where a tool is attached.
class ToolRange {
 public:
  template <class Name>
  explicit ToolRange(const Name& name) : open_(ToolRanges::on()) {
    if (open_) ToolRanges::push(name());
  }
  ~ToolRange() {
    if (open_) ToolRanges::pop();
  }
  ToolRange(const ToolRange&) = delete;
  ToolRange& operator=(const ToolRange&) = delete;

 private:
  bool open_;
};

}  // namespace hsad::detail
