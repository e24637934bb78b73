// Buffer: device memory or pinned host memory owned by one device (RAII, move-only).
// Pageable host memory is the caller's own (std::vector, malloc): the library only copies from it.
#pragma once

#include "hsad/export.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace hsad {

enum class Memory : std::uint8_t {
  device,       // the device's own memory (host memory on the cpu agent)
  pinned_host,  // page-locked host memory the device reaches directly
};

namespace detail { class DeviceImpl; }

class HSAD_API Buffer {
 public:
  Buffer() = default;
  Buffer(std::shared_ptr<detail::DeviceImpl> owner, void* ptr, std::size_t bytes, Memory kind);
  Buffer(Buffer&& o) noexcept;
  Buffer& operator=(Buffer&& o) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer();

  std::size_t size() const { return bytes_; }
  Memory kind() const { return kind_; }
  // The address kernels see.
  void* device_ptr() const { return ptr_; }
  // Host-visible pointer, or nullptr where the host cannot read this memory (CUDA/AMD device memory).
  void* host_ptr() const;
  template <class T> T* host_as() const { return static_cast<T*>(host_ptr()); }
  // The device that owns this memory (nullptr for an empty Buffer).
  detail::DeviceImpl* device() const { return owner_.get(); }
  // The device's reset count when this was allocated (Device::reset).
  std::uint64_t generation() const { return generation_; }

 private:
  void reset() noexcept;
  std::shared_ptr<detail::DeviceImpl> owner_;
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  Memory kind_ = Memory::device;
  std::uint64_t generation_ = 0;
};

}  // namespace hsad
