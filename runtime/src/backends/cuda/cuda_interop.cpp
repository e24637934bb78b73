// The cuda device and the application's own memory: what cuPointerGetAttributes says of a
// pointer decides whether a Buffer may be made over it (Device::adopt), and of which kind.
#include <sstream>

#include "backends/cuda/cuda_device.hpp"
#include "hsad/error.hpp"

namespace hsad::cuda {
namespace {
std::string hex(const void* p) {
  std::ostringstream s;
  s << p;
  return s.str();
}
}  // namespace

Memory CudaDevice::adopt_memory(void* ptr, std::size_t bytes) {
  const CurrentContext scope = current();
  unsigned int type = 0;
  CUcontext context = nullptr;
  int ordinal = -1;
  CUdeviceptr start = 0;
  std::size_t size = 0;
  unsigned int managed = 0;  // the driver writes a bool; zero-initialised, the widest read is safe
  CUdeviceptr device_ptr = 0;
  CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,     CU_POINTER_ATTRIBUTE_CONTEXT,
                                 CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,  CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                 CU_POINTER_ATTRIBUTE_RANGE_SIZE,      CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                 CU_POINTER_ATTRIBUTE_DEVICE_POINTER};
  void* data[] = {&type, &context, &ordinal, &start, &size, &managed, &device_ptr};
  // Unlike cuPointerGetAttribute, memory the driver does not know is no error: its type stays 0.
  check(d_.cuPointerGetAttributes(sizeof attrs / sizeof attrs[0], attrs, data, reinterpret_cast<CUdeviceptr>(ptr)),
        "cuPointerGetAttributes");
  if (type == 0) {
    throw Error(Errc::invalid_argument, "cuda", "adopt", hex(ptr) + " is not memory the CUDA driver knows (pageable host memory, or freed)",
                "adopt memory from cuMemAlloc / cudaMalloc, or pinned host memory (cuMemHostAlloc, cudaHostAlloc, "
                "cuMemHostRegister)");
  }
  const bool host = type == CU_MEMORYTYPE_HOST && !managed;
  if (!host && !managed && (ordinal != int(ordinal_) || context != this->context())) {
    throw Error(Errc::invalid_argument, "cuda", "adopt",
                hex(ptr) + " is device memory of " +
                    (ordinal != int(ordinal_) ? "CUDA device " + std::to_string(ordinal)
                                              : std::string("another context of this device")) +
                    ", not of device " + std::to_string(ordinal_) + "'s primary context",
                "adopt memory allocated in this device's primary context (the CUDA runtime's)");
  }
  if (device_ptr != reinterpret_cast<CUdeviceptr>(ptr)) {
    throw Error(Errc::invalid_argument, "cuda", "adopt", hex(ptr) + " is host memory the device sees at another address",
                "map it into the unified address space (cuMemHostAlloc with CU_MEMHOSTALLOC_PORTABLE)");
  }
  const auto p = reinterpret_cast<CUdeviceptr>(ptr);
  if (start && (p < start || bytes > size - (p - start))) {
    throw Error(Errc::invalid_argument, "cuda", "adopt",
                std::to_string(bytes) + " bytes at " + hex(ptr) + " overrun the allocation at " +
                    hex(reinterpret_cast<void*>(start)) + " of " + std::to_string(size) + " bytes",
                "adopt a range inside one allocation");
  }
  return host ? Memory::pinned_host : Memory::device;
}

NativeDevice CudaDevice::native() const {
  NativeDevice n;
  n.device = std::uint64_t(device_);
  n.context = reinterpret_cast<std::uint64_t>(context_);
  return n;
}

}  // namespace hsad::cuda
