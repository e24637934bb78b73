// The interpreter's test harness: a code object loaded into host memory as a loader would place
// it, host allocations the kernels may touch, and a dispatcher that runs every work-group of a
// grid with a kernarg block laid out from the code object's metadata. No ROCr.
#pragma once

#include <atomic>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hsad/batch.hpp"
#include "hsad/code_object.hpp"
#include "interpreter.hpp"
#include "kernel_checks.hpp"

namespace hsad::isa::testing {

std::string read_file(const std::string& path);

// A comma-separated list of targets, as the build passes them, as C strings that live forever.
inline std::vector<const char*> target_list(const std::string& list) {
  static std::vector<std::string> names;  // never shrinks: the pointers below stay valid
  names.reserve(64);
  std::vector<const char*> out;
  for (std::size_t at = 0; at < list.size();) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    names.push_back(list.substr(at, comma - at));
    out.push_back(names.back().c_str());
    at = comma + 1;
  }
  return out;
}

// The targets the build made the test kernels for (HSAD_ISA_TARGETS: the interpreter's targets that
// hipcc knows; hipcc 7 dropped gfx940), and a test name for each.
inline const std::vector<const char*>& isa_targets() {
  static const std::vector<const char*> targets = target_list(HSAD_ISA_TARGETS);
  return targets;
}
// The targets the project's kernels run on in the interpreter: those, and those the library has a code
// object for that the interpreter decodes though hipcc cannot build its test kernels (Debian 12's
// clang-19 builds the library's gfx942 object; hipcc 5.2 does not know gfx942).
inline const std::vector<const char*>& project_targets() {
  static const std::vector<const char*> targets = target_list(HSAD_ISA_PROJECT_TARGETS);
  return targets;
}
struct TargetName {
  template <class Info>
  std::string operator()(const Info& info) const {
    return info.param;
  }
};

// Host memory the kernels may reach: only what was added.
class HostMemory : public Memory {
 public:
  bool allocation(std::uint64_t address, std::uint64_t* base, std::uint64_t* size, std::uint64_t* host_base) override;
  void add(const void* p, std::size_t bytes);
  void remove(const void* p);
  // An allocation owned here, zeroed.
  template <class T>
  T* make(std::size_t count) {
    blocks_.emplace_back(new std::uint8_t[count * sizeof(T) + 64]());
    T* p = reinterpret_cast<T*>((reinterpret_cast<std::uintptr_t>(blocks_.back().get()) + 63) & ~std::uintptr_t(63));
    add(p, count * sizeof(T));
    return p;
  }
  template <class T>
  T* copy_of(const std::vector<T>& v) {
    T* p = make<T>(v.size());
    std::memcpy(p, v.data(), v.size() * sizeof(T));
    return p;
  }

 private:
  std::mutex mutex_;
  std::map<std::uint64_t, std::uint64_t> ranges_;
  std::vector<std::unique_ptr<std::uint8_t[]>> blocks_;
};

class LoadedCode {
 public:
  // `elf`: one AMDGPU code object.
  explicit LoadedCode(const std::string& elf);
  const Target& target() const { return target_; }
  const Program& program() const { return *program_; }
  const CodeObject& code_object() const { return code_object_; }
  // Runs kernel `name` over `grid` work-items in groups of `group`, every work-group on
  // `threads` threads; or, given a queue's GWS, as one cooperative launch (run_grid). `cancel`: the
  // queue's flag that preempts the waves once set. Throws Fault.
  void run(const std::string& name, Dim3 grid, Dim3 group, const std::vector<Arg>& args, HostMemory& memory,
           unsigned threads = 2, GlobalWaveSync* cooperative = nullptr, const std::atomic<bool>* cancel = nullptr) const;
  std::uint64_t base() const { return reinterpret_cast<std::uint64_t>(image_); }

 private:
  Target target_;
  CodeObject code_object_;
  std::unique_ptr<std::uint8_t[]> storage_;
  std::uint8_t* image_ = nullptr;  // the loaded segments, 256-byte aligned as a loader aligns them
  std::uint64_t image_bytes_ = 0;
  std::unique_ptr<Program> program_;
};

// The interpreter on host memory, as the checks' Runner.
class HostRunner : public Runner {
 public:
  explicit HostRunner(const LoadedCode& code, unsigned threads = 2) : code_(code), threads_(threads) {}
  std::string processor() const override { return code_.target().processor; }
  unsigned wave_size() const override { return code_.target().wave64 ? 64 : 32; }
  void* alloc(std::size_t bytes) override { return memory.make<std::uint8_t>(bytes); }
  void upload(void* device, const void* host, std::size_t bytes) override { std::memcpy(device, host, bytes); }
  void download(void* host, const void* device, std::size_t bytes) override { std::memcpy(host, device, bytes); }
  void run(const std::string& kernel, Dim3 grid, Dim3 group, const std::vector<Arg>& args) override {
    code_.run(kernel, grid, group, args, memory, threads_);
  }
  using Runner::download;
  using Runner::upload;
  HostMemory memory;

 private:
  const LoadedCode& code_;
  unsigned threads_;
};

// The code object for `processor` in the library's embedded bundle (the project's kernels).
std::string project_code_object(const std::string& processor);

}  // namespace hsad::isa::testing
