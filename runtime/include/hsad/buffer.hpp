// Buffer: device memory or pinned host memory of one device (RAII, move-only): allocated and
// freed by the library (Device::alloc), or the application's own, adopted (Device::adopt,
// from_dlpack) and never freed by it. Pageable host memory is the caller's own (std::vector,
// malloc): the library only copies from it.
#pragma once

#include "hsad/export.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace hsad {

enum class Memory : std::uint8_t {
  device,       // the device's own memory (host memory on the cpu agent)
  pinned_host,  // page-locked host memory the device reaches directly
  // The device's own memory, coherent with other devices and the host while kernels run (HIP's
  // fine-grained device memory, hipDeviceMallocFinegrained). On AMD GPUs plain device memory is
  // coarse-grained: another device's stores reach it, and this device's reach others, only at
  // a packet's system-scope fences, so what devices exchange inside running kernels (a mailbox
  // polled, a halo pushed between the iterations of device-run loops) must be this. Plain device
  // memory on cuda and the cpu agent, whose memory is coherent anyway. docs/api.md, "Memory".
  device_fine_grained,
};

namespace detail { class DeviceImpl; }

class HSAD_API Buffer {
 public:
  Buffer() = default;
  Buffer(std::shared_ptr<detail::DeviceImpl> owner, void* ptr, std::size_t bytes, Memory kind);
  // Memory the application owns: the Buffer never frees it. `keeper` (may be null) is let go with
  // the Buffer: what an adopted DLPack tensor's deleter hangs on.
  static Buffer adopted(std::shared_ptr<detail::DeviceImpl> owner, void* ptr, std::size_t bytes, Memory kind,
                        std::shared_ptr<void> keeper = nullptr);
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
  // True for the application's memory (Device::adopt): the library never frees it.
  bool adopted() const { return adopted_; }

 private:
  void reset() noexcept;
  std::shared_ptr<detail::DeviceImpl> owner_;
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  Memory kind_ = Memory::device;
  std::uint64_t generation_ = 0;
  bool adopted_ = false;
  std::shared_ptr<void> keeper_;  // adopted: let go with the Buffer (a DLPack tensor's deleter)
};

}  // namespace hsad
