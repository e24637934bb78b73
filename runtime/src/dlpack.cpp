// DLPack both ways. An exported tensor owns the Buffer (and the shape array it points to); an
// adopted tensor is owned by the Buffer, whose keeper calls the tensor's deleter.
#include "hsad/dlpack.hpp"

#include <memory>
#include <string>

#include "backends/backend.hpp"
#include "hsad/error.hpp"

namespace hsad {
namespace {
struct Exported {
  Buffer buffer;
  std::vector<std::int64_t> shape;
  DLManagedTensor tensor{};
};

std::string device_type_name(int type) {
  switch (type) {
    case kDLCPU: return "kDLCPU";
    case kDLCUDA: return "kDLCUDA";
    case kDLCUDAHost: return "kDLCUDAHost";
    case kDLOpenCL: return "kDLOpenCL";
    case kDLVulkan: return "kDLVulkan";
    case kDLMetal: return "kDLMetal";
    case kDLVPI: return "kDLVPI";
    case kDLROCM: return "kDLROCM";
    case kDLROCMHost: return "kDLROCMHost";
    case kDLExtDev: return "kDLExtDev";
    case kDLCUDAManaged: return "kDLCUDAManaged";
    default: return "device type " + std::to_string(type);
  }
}

// Bytes per element; throws for a type of no whole bytes (bool bit-packing, 4-bit types).
std::size_t element_bytes(DLDataType dtype, const char* call) {
  const std::size_t bits = std::size_t(dtype.bits) * std::size_t(dtype.lanes);
  if (bits == 0 || bits % 8 != 0) {
    throw Error(Errc::invalid_argument, "dlpack", call,
                "a dtype of " + std::to_string(dtype.bits) + " bits x " + std::to_string(dtype.lanes) +
                    " lanes is no whole number of bytes",
                "describe the memory with a byte-sized dtype (kDLUInt, 8 bits)");
  }
  return bits / 8;
}

// Elements in `shape`; throws for a negative extent or one that overflows.
std::size_t elements(const std::int64_t* shape, int ndim, const char* call) {
  std::size_t n = 1;
  for (int i = 0; i < ndim; ++i) {
    if (shape[i] < 0) throw Error(Errc::invalid_argument, "dlpack", call, "extent " + std::to_string(shape[i]) + " of dimension " + std::to_string(i));
    if (shape[i] != 0 && n > SIZE_MAX / std::size_t(shape[i])) throw Error(Errc::invalid_argument, "dlpack", call, "a shape whose size overflows");
    n *= std::size_t(shape[i]);
  }
  return n;
}

DLDeviceType export_type(const detail::DeviceImpl& d, Memory kind) {
  const std::string& backend = d.info().backend;
  if (backend == "rocr") return kind == Memory::pinned_host ? kDLROCMHost : kDLROCM;
  if (backend == "cuda") return kind == Memory::pinned_host ? kDLCUDAHost : kDLCUDA;
  return kDLCPU;
}

bool accepted(const std::string& backend, int type) {
  if (backend == "rocr") return type == kDLROCM || type == kDLROCMHost;
  if (backend == "cuda") return type == kDLCUDA || type == kDLCUDAHost || type == kDLCUDAManaged;
  return type == kDLCPU;
}

bool host_type(int type) { return type == kDLCPU || type == kDLROCMHost || type == kDLCUDAHost; }
}  // namespace

DLManagedTensor* to_dlpack(Buffer&& buffer, const std::vector<std::int64_t>& shape, DLDataType dtype) {
  if (!buffer.device_ptr()) throw Error(Errc::invalid_argument, "dlpack", "to_dlpack", "the Buffer is empty");
  const std::size_t bytes = elements(shape.data(), int(shape.size()), "to_dlpack") * element_bytes(dtype, "to_dlpack");
  if (bytes > buffer.size()) {
    throw Error(Errc::invalid_argument, "dlpack", "to_dlpack",
                "a shape of " + std::to_string(bytes) + " bytes is larger than the Buffer of " +
                    std::to_string(buffer.size()) + " bytes");
  }
  auto e = std::make_unique<Exported>();
  const detail::DeviceImpl& d = *buffer.device();
  e->shape = shape;
  DLTensor& t = e->tensor.dl_tensor;
  t.data = buffer.device_ptr();
  t.device = {export_type(d, buffer.kind()), std::int32_t(d.ordinal())};
  t.ndim = std::int32_t(shape.size());
  t.dtype = dtype;
  t.shape = e->shape.data();
  t.strides = nullptr;  // compact row-major
  t.byte_offset = 0;
  e->buffer = std::move(buffer);
  e->tensor.manager_ctx = e.get();
  e->tensor.deleter = [](DLManagedTensor* self) { delete static_cast<Exported*>(self->manager_ctx); };
  return &e.release()->tensor;
}

Buffer from_dlpack(const Device& device, DLManagedTensor* tensor) {
  if (!device) throw Error(Errc::invalid_argument, "dlpack", "from_dlpack", "the Device is empty");
  const std::string& backend = device.info().backend;
  if (!tensor) throw Error(Errc::invalid_argument, backend, "from_dlpack", "a null DLManagedTensor");
  const DLTensor& t = tensor->dl_tensor;
  if (!accepted(backend, t.device.device_type)) {
    throw Error(Errc::invalid_argument, backend, "from_dlpack",
                "a tensor on " + device_type_name(t.device.device_type) + " cannot be adopted by a " + backend +
                    " device",
                backend == "rocr"   ? "hand it kDLROCM or kDLROCMHost memory"
                : backend == "cuda" ? "hand it kDLCUDA, kDLCUDAHost or kDLCUDAManaged memory"
                                    : "hand it kDLCPU memory");
  }
  if (!host_type(t.device.device_type) && t.device.device_id != std::int32_t(device.impl().ordinal())) {
    throw Error(Errc::invalid_argument, backend, "from_dlpack",
                "a tensor of device " + std::to_string(t.device.device_id) + ", not of device " +
                    std::to_string(device.impl().ordinal()),
                "adopt it on the device it lives on");
  }
  if (t.ndim < 0 || (t.ndim > 0 && !t.shape)) throw Error(Errc::invalid_argument, backend, "from_dlpack", "a tensor without a shape");
  const std::size_t elem = element_bytes(t.dtype, "from_dlpack");
  const std::size_t n = elements(t.shape, t.ndim, "from_dlpack");
  if (n == 0) throw Error(Errc::invalid_argument, backend, "from_dlpack", "a tensor of no elements", "adopt at least one element");
  if (t.strides) {
    // Compact row-major, strides in elements; a dimension of extent 1 may have any stride.
    std::int64_t expected = 1;
    for (int i = t.ndim - 1; i >= 0; --i) {
      if (t.shape[i] != 1 && t.strides[i] != expected) {
        throw Error(Errc::invalid_argument, backend, "from_dlpack",
                    "stride " + std::to_string(t.strides[i]) + " of dimension " + std::to_string(i) +
                        " where a compact row-major tensor has " + std::to_string(expected),
                    "a Buffer is one contiguous range: make the tensor contiguous first");
      }
      expected *= t.shape[i];
    }
  }
  void* ptr = static_cast<unsigned char*>(t.data) + t.byte_offset;
  Buffer b = device.adopt(ptr, n * elem);  // throws with the tensor still the caller's
  std::shared_ptr<void> keeper(tensor, [](void* p) {
    auto* m = static_cast<DLManagedTensor*>(p);
    if (m->deleter) m->deleter(m);
  });
  return Buffer::adopted(std::shared_ptr<detail::DeviceImpl>(device.impl().shared_from_this()), b.device_ptr(), b.size(),
                         b.kind(), std::move(keeper));
}

}  // namespace hsad
