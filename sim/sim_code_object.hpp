// A code object as ROCr's loader placed it in the simulated GPU's memory: an allocation that
// starts with the ELF header, its segments at their virtual addresses from there, its dynamic
// symbols naming the kernels. Views only; every offset is checked against the allocation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace hsad::sim {

class LoadedCodeObject {
 public:
  // The AMDGPU code object in the allocation holding `address`, or nothing.
  static std::optional<LoadedCodeObject> at(std::uint64_t address);

  std::uint64_t base() const { return base_; }
  std::uint64_t size() const { return size_; }
  // The kernel whose descriptor ("NAME.kd") is at `descriptor`, or "".
  std::string kernel_at(std::uint64_t descriptor) const;
  // The function symbol `name`: its address and size.
  bool function(const std::string& name, std::uint64_t* address, std::uint64_t* bytes) const;
  // The executable segment.
  bool code_segment(std::uint64_t* address, std::uint64_t* bytes) const;

 private:
  bool inside(std::uint64_t offset, std::uint64_t bytes) const { return offset <= size_ && bytes <= size_ - offset; }
  std::uint64_t base_ = 0, size_ = 0;
  std::uint64_t symtab_ = 0, strtab_ = 0, symbols_ = 0;  // offsets from base_, count
};

}  // namespace hsad::sim
