// CudaDevice: the embedded fatbin (sm_80, sm_90 and PTX) loaded once per device; kernarg
// layouts from cuFuncGetParamInfo.
#include "backends/cuda/cuda_device.hpp"

#include "backends/cuda/cuda_backend.hpp"
#include "backends/cuda/cuda_queue.hpp"
#include "hsad/error.hpp"

extern "C" const unsigned char hsad_cuda_fatbin[];
extern "C" const unsigned long long hsad_cuda_fatbin_size;

namespace hsad::cuda {

BackendStatus probe() { return CudaDevice::probe(); }
std::vector<std::shared_ptr<detail::DeviceImpl>> open() { return CudaDevice::open(); }

BackendStatus CudaDevice::probe() {
  std::string why;
  const Driver* d = cuda::driver(&why);
  if (d && hsad_cuda_fatbin_size == 0) return {"cuda", false, "built without nvcc: no CUDA kernels embedded"};
  return {"cuda", d != nullptr, why};
}

std::vector<std::shared_ptr<detail::DeviceImpl>> CudaDevice::open() {
  std::string why;
  const Driver* d = cuda::driver(&why);
  if (!d) throw Error("cuda", "open", why);
  int count = 0;
  check(d->cuDeviceGetCount(&count), "cuDeviceGetCount");
  std::vector<std::shared_ptr<detail::DeviceImpl>> all;
  for (int i = 0; i < count; ++i) all.push_back(std::make_shared<CudaDevice>(*d, i));
  return all;
}

CudaDevice::CudaDevice(const Driver& d, int ordinal) : d_(d) {
  check(d_.cuDeviceGet(&device_, ordinal), "cuDeviceGet");
  check(d_.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
  make_current();
  char name[256] = {};
  check(d_.cuDeviceGetName(name, sizeof name, device_), "cuDeviceGetName");
  auto attr = [&](CUdevice_attribute a) {
    int v = 0;
    check(d_.cuDeviceGetAttribute(&v, a, device_), "cuDeviceGetAttribute");
    return v;
  };
  std::size_t memory = 0;
  check(d_.cuDeviceTotalMem(&memory, device_), "cuDeviceTotalMem");
  info_.backend = "cuda";
  hardware_id_ = std::uint64_t(ordinal);
  info_.name = name;
  info_.isa = "sm_" + std::to_string(attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)) +
              std::to_string(attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
  info_.wavefront_size = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  info_.compute_units = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  if (const int l2 = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE); l2 > 0) info_.last_level_cache_bytes = std::uint64_t(l2);
  info_.last_level_cache_source = info_.last_level_cache_bytes ? "driver" : "unknown";
  info_.memory_bytes = memory;

  CUmodule module = nullptr;
  check(d_.cuModuleLoadData(&module, hsad_cuda_fatbin), "cuModuleLoadData");
  const Driver* drv = &d_;
  module_.reset(module, [drv](CUmodule m) { drv->cuModuleUnload(m); });
}

CudaDevice::~CudaDevice() {
  module_.reset();
  d_.cuDevicePrimaryCtxRelease(device_);
}

void CudaDevice::make_current() const { check(d_.cuCtxSetCurrent(context_), "cuCtxSetCurrent"); }

std::shared_ptr<detail::QueueImpl> CudaDevice::create_queue(std::uint32_t) {
  return std::make_shared<CudaQueue>(std::static_pointer_cast<CudaDevice>(shared_from_this()));
}

std::shared_ptr<const detail::KernelImpl> CudaDevice::load_kernel(std::string_view name) {
  make_current();
  CUfunction f = nullptr;
  const std::string n(name);
  if (d_.cuModuleGetFunction(&f, module_.get(), n.c_str()) != CUDA_SUCCESS) {
    throw Error("cuda", "kernel", "no kernel named '" + n + "' in the embedded fatbin");
  }
  auto k = std::make_shared<detail::KernelImpl>();
  k->info.name = n;
  k->info.wavefront_size = info_.wavefront_size;
  for (std::size_t i = 0;; ++i) {
    std::size_t offset = 0, size = 0;
    if (d_.cuFuncGetParamInfo(f, i, &offset, &size) != CUDA_SUCCESS) break;
    k->info.args.push_back({"arg" + std::to_string(i), std::uint32_t(offset), std::uint32_t(size), ArgKind::by_value, {}});
    k->info.kernarg_segment_size = std::uint32_t(offset + size);
  }
  int max_threads = 0;
  check(d_.cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f), "cuFuncGetAttribute");
  k->info.max_workgroup_size = std::uint32_t(max_threads);
  k->info.group_segment_size = 0;  // static shared memory is the kernel's own; dynamic is none
  k->native = f;
  k->early_launch_ok = true;  // every kernel of the embedded fatbin starts with HSAD_BARRIER_WAIT()
  k->keep_alive = module_;
  return k;
}

void* CudaDevice::raw_allocate(std::size_t bytes, Memory kind) {
  make_current();
  if (kind == Memory::pinned_host) {
    void* p = nullptr;
    check(d_.cuMemHostAlloc(&p, bytes, 0), "cuMemHostAlloc");
    return p;
  }
  CUdeviceptr p = 0;
  check(d_.cuMemAlloc(&p, bytes), "cuMemAlloc");
  return reinterpret_cast<void*>(p);
}

void CudaDevice::raw_deallocate(void* ptr, std::size_t, Memory kind) noexcept {
  if (kind == Memory::pinned_host) d_.cuMemFreeHost(ptr);
  else d_.cuMemFree(reinterpret_cast<CUdeviceptr>(ptr));
}

// Pageable memory: the driver stages it through its own pinned buffers.
std::size_t CudaDevice::transfer_to_device(void* dst, const void* src, std::size_t bytes, bool src_pinned) {
  make_current();
  check(d_.cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(dst), src, bytes), "cuMemcpyHtoD");
  return src_pinned ? 0 : bytes;
}

std::size_t CudaDevice::transfer_to_host(void* dst, const void* src, std::size_t bytes, bool dst_pinned) {
  make_current();
  check(d_.cuMemcpyDtoH(dst, reinterpret_cast<CUdeviceptr>(src), bytes), "cuMemcpyDtoH");
  return dst_pinned ? 0 : bytes;
}

}  // namespace hsad::cuda
