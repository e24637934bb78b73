// Batch: a recorded sequence of dispatches, checked against each kernel's kernarg layout
// when recorded, submitted to a queue as often as wanted.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <type_traits>
#include <vector>

#include "hsad/buffer.hpp"
#include "hsad/kernel.hpp"

namespace hsad {

// One explicit kernel argument, by value. A Buffer passes its device address.
class Arg {
 public:
  template <class T, class = std::enable_if_t<std::is_trivially_copyable_v<T> && !std::is_pointer_v<T>>>
  Arg(const T& v) : size_(sizeof(T)) {  // NOLINT: implicit on purpose, exec(k, g, b, {buf, 3u})
    static_assert(sizeof(T) <= sizeof(bytes_), "kernel arguments larger than 16 bytes are not supported");
    std::memcpy(bytes_, &v, sizeof(T));
  }
  template <class T>
  Arg(T* p) : Arg(reinterpret_cast<std::uintptr_t>(p)) {}  // NOLINT
  Arg(const Buffer& b) : Arg(b.device_ptr()) {}             // NOLINT

  const unsigned char* data() const { return bytes_; }
  std::uint32_t size() const { return size_; }

 private:
  alignas(8) unsigned char bytes_[16] = {};
  std::uint32_t size_ = 0;
};

namespace detail {
struct Dispatch {
  Kernel kernel;
  Dim3 grid;   // in work-items, as in an AQL packet
  Dim3 group;  // work-group size
  std::uint32_t args_offset = 0;  // where this dispatch's explicit kernarg image starts in the arena
};
}  // namespace detail

class Batch {
 public:
  // Records one dispatch. Throws hsad::Error naming the kernel and the argument on a wrong
  // argument count or size, and on a grid or work-group that is empty.
  Batch& exec(const Kernel& kernel, Dim3 grid, Dim3 group, std::initializer_list<Arg> args);

  std::size_t size() const { return dispatches_.size(); }
  bool empty() const { return dispatches_.empty(); }
  void clear();

  const std::vector<detail::Dispatch>& dispatches() const { return dispatches_; }
  // The explicit-argument kernarg image of dispatch i (kernarg_segment_size bytes; hidden args zero).
  const unsigned char* kernarg_image(std::size_t i) const { return arena_.data() + dispatches_[i].args_offset; }
  // Grows whenever the batch changes, so a backend can cache what it derived (a CUDA graph).
  std::uint64_t version() const { return version_; }
  std::uint64_t id() const { return id_; }

 private:
  std::vector<detail::Dispatch> dispatches_;
  std::vector<unsigned char> arena_;
  std::uint64_t version_ = 0;
  std::uint64_t id_ = next_id();
  static std::uint64_t next_id();
};

}  // namespace hsad
