// CudaDevice: the embedded fatbin (sm_80, sm_90 and PTX) loaded once per device; kernarg
// layouts from cuFuncGetParamInfo, for as many parameters as the image says the kernel has.
#include "backends/cuda/cuda_device.hpp"

#include <algorithm>

#include "backends/cuda/cuda_backend.hpp"
#include "backends/cuda/cuda_queue.hpp"
#include "hsad/error.hpp"
#include "module/cuda_params.hpp"
#include "module/module_format.hpp"

extern "C" const unsigned char hsad_cuda_fatbin[];
extern "C" const unsigned long long hsad_cuda_fatbin_size;

namespace hsad::cuda {
namespace {
// A device's primary context is one per process, however many Runtimes open the device: what
// waits for its kernels waits for every Runtime's. So its ContextGuard is one per device too, and
// a new Runtime first asks the devices already open whether an abandoned kernel still runs,
// because its own cuModuleLoadData would wait for that kernel (docs/api.md).
struct PrimaryContexts {
  std::mutex mutex;
  std::map<int, std::shared_ptr<ContextGuard>> guards;
  std::map<int, std::vector<std::weak_ptr<CudaDevice>>> open;
};
PrimaryContexts& primary_contexts() {
  static auto* all = new PrimaryContexts;  // never destroyed: handles released during exit still ask
  return *all;
}

std::shared_ptr<ContextGuard>& guard_slot(PrimaryContexts& p, int ordinal) {
  std::shared_ptr<ContextGuard>& g = p.guards[ordinal];
  if (!g || g->reset.load(std::memory_order_acquire)) g = std::make_shared<ContextGuard>();
  return g;
}

// Throws, naming the stuck submission, where an abandoned kernel still runs in the primary
// context of device `ordinal`.
void refuse_if_context_stuck(int ordinal) {
  PrimaryContexts& p = primary_contexts();
  std::vector<std::shared_ptr<CudaDevice>> live;
  std::shared_ptr<ContextGuard> guard;
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    guard = guard_slot(p, ordinal);
    auto& devices = p.open[ordinal];
    devices.erase(std::remove_if(devices.begin(), devices.end(), [](const auto& w) { return w.expired(); }), devices.end());
    for (const auto& w : devices) {
      if (auto d = w.lock()) live.push_back(std::move(d));
    }
  }
  const std::string hint = "end that kernel (release what it waits for), or exit the process: exit stops it";
  for (const auto& d : live) {
    const std::string running = d->stuck();  // also notices the ones that ended since
    if (!running.empty()) {
      throw Error(Errc::queue_stopped, "cuda", "open",
                  running + " on device " + std::to_string(ordinal) + ": a new Runtime's cuModuleLoadData would wait for it "
                  "(CUDA has no call that stops a running kernel, and no in-process reset while it runs)", hint);
    }
  }
  if (guard->abandoned_running.load(std::memory_order_acquire) > 0) {
    throw Error(Errc::queue_stopped, "cuda", "open",
                "a submission abandoned by a Runtime that is gone may still run on device " + std::to_string(ordinal) +
                    ": a new Runtime's cuModuleLoadData would wait for it",
                hint);
  }
}
}  // namespace

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
  if (!d) throw Error(Errc::driver_missing, "cuda", "open", why);
  int count = 0;
  check(d->cuDeviceGetCount(&count), "cuDeviceGetCount");
  std::vector<std::shared_ptr<detail::DeviceImpl>> all;
  for (int i = 0; i < count; ++i) {
    refuse_if_context_stuck(i);
    auto device = std::make_shared<CudaDevice>(*d, i);
    PrimaryContexts& p = primary_contexts();
    std::lock_guard<std::mutex> lock(p.mutex);
    p.open[i].push_back(device);
    all.push_back(std::move(device));
  }
  return all;
}

CudaDevice::CudaDevice(const Driver& d, int ordinal) : d_(d) {
  check(d_.cuDeviceGet(&device_, ordinal), "cuDeviceGet");
  {
    PrimaryContexts& p = primary_contexts();
    std::lock_guard<std::mutex> lock(p.mutex);
    guard_ = guard_slot(p, ordinal);
  }
  retain_context();
  const CurrentContext scope = current();  // until the library's module is loaded; then the caller's again
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
  ordinal_ = std::uint32_t(ordinal);
  info_.name = name;
  info_.isa = "sm_" + std::to_string(attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)) +
              std::to_string(attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
  info_.wavefront_size = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  info_.compute_units = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  if (const int l2 = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE); l2 > 0) info_.last_level_cache_bytes = std::uint64_t(l2);
  info_.last_level_cache_source = info_.last_level_cache_bytes ? "driver" : "unknown";
  info_.memory_bytes = memory;
  // Blocks, not work-items, bound a CUDA grid (65535 along y and z); a block is 1024 threads, 64 along z.
  info_.limits.max_group = Dim3{std::uint32_t(attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)),
                                std::uint32_t(attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)),
                                std::uint32_t(attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z))};
  info_.limits.max_group_size = std::uint32_t(attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
  info_.limits.max_groups = Dim3{std::uint32_t(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)),
                                 std::uint32_t(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)),
                                 std::uint32_t(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z))};
  // The opt-in maximum (227 KiB on the H100): past 48 KiB a kernel must be allowed it
  // (allow_dynamic_group_memory), which recording a dispatch that asks for it does.
  info_.limits.max_group_memory_bytes = std::uint32_t(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));

  CUmodule module = nullptr;
  check(d_.cuModuleLoadData(&module, hsad_cuda_fatbin), "cuModuleLoadData");
  module_ = own_module(module);
}

void CudaDevice::retain_context() {
  check(d_.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
  const Driver* drv = &d_;
  const CUdevice dev = device_;
  std::shared_ptr<ContextGuard> guard = guard_;
  // Released by the last holder, unless a kernel still runs in it: the release would wait for it,
  // and the process's exit stops it anyway.
  primary_.reset(context_, [drv, dev, guard](CUcontext) {
    if (guard->can_free()) drv->cuDevicePrimaryCtxRelease(dev);
  });
}

void CudaDevice::refuse_while_stuck(const char* call) {
  const std::string running = stuck();
  if (running.empty() && guard_->abandoned_running.load() == 0) return;
  throw Error(Errc::queue_stopped, "cuda", call,
              (running.empty() ? std::string("an abandoned submission") : running) +
                  ": the driver's " + call + " would wait for it (CUDA has no call that stops a running kernel)",
              "end that kernel (release what it waits for), or exit the process: exit stops it");
}

void CudaDevice::reset_device(const std::vector<std::shared_ptr<detail::QueueImpl>>&) {
  refuse_while_stuck("cuDevicePrimaryCtxReset");
  check(d_.cuDevicePrimaryCtxReset(device_), "cuDevicePrimaryCtxReset");
  // Every handle of the old context is gone: what still holds one must not free it.
  guard_->reset.store(true, std::memory_order_release);
  {
    PrimaryContexts& p = primary_contexts();
    std::lock_guard<std::mutex> lock(p.mutex);
    guard_ = guard_slot(p, int(hardware_id_));  // the old one is marked reset: a new one
  }
  module_.reset();
  primary_.reset();
  CUresult r = d_.cuDevicePrimaryCtxRetain(&context_, device_);
  if (r != CUDA_SUCCESS) {
    const char* name = "?";
    d_.cuGetErrorName(r, &name);
    throw Error("cuda", "reset",
                std::string("the context was reset, but the driver refuses a new one (cuDevicePrimaryCtxRetain: ") +
                    name + "): after a kernel fault it keeps the error for the whole process",
                "exit the process to use this GPU again");
  }
  d_.cuDevicePrimaryCtxRelease(device_);  // retain_context takes the one the device holds
  retain_context();
  const CurrentContext scope = current();
  CUmodule module = nullptr;
  check(d_.cuModuleLoadData(&module, hsad_cuda_fatbin), "cuModuleLoadData");
  module_ = own_module(module);
  std::lock_guard<std::mutex> lock(peers_mutex_);
  peers_.clear();
}

// The context is released when the device and the last module loaded in it have let go: a
// Kernel or Module may outlive its Device handle and the Runtime, and its module is then
// unloaded in a context that still exists.
CudaDevice::~CudaDevice() {
  module_.reset();
  primary_.reset();
}

std::shared_ptr<CUmod_st> CudaDevice::own_module(CUmodule module) const {
  const Driver* drv = &d_;
  std::shared_ptr<CUctx_st> context = primary_;
  std::shared_ptr<ContextGuard> guard = guard_;
  return {module, [drv, context, guard](CUmodule m) {
            if (!guard->can_free()) return;  // reset (gone), or a kernel runs (the unload would wait)
            CUcontext previous = nullptr;  // cuModuleUnload acts on the current context
            drv->cuCtxGetCurrent(&previous);
            drv->cuCtxSetCurrent(context.get());
            drv->cuModuleUnload(m);
            drv->cuCtxSetCurrent(previous);
          }};
}

bool CudaDevice::peer_access(detail::DeviceImpl& other_impl) {
  if (other_impl.info().backend != "cuda") return false;
  auto& other = static_cast<CudaDevice&>(other_impl);
  std::lock_guard<std::mutex> lock(peers_mutex_);
  if (auto it = peers_.find(other.device_); it != peers_.end()) return it->second;
  int can = 0;
  check(d_.cuDeviceCanAccessPeer(&can, device_, other.device_), "cuDeviceCanAccessPeer");
  if (can) {
    const CurrentContext scope = current();
    const CUresult r = d_.cuCtxEnablePeerAccess(other.context_, 0);
    if (r != CUDA_SUCCESS && r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) check(r, "cuCtxEnablePeerAccess");
  }
  peers_[other.device_] = can != 0;
  return can != 0;
}

CurrentContext::CurrentContext(const Driver& d, CUcontext context) : d_(d) {
  check(d_.cuCtxGetCurrent(&previous_), "cuCtxGetCurrent");
  if (previous_ == context) return;
  check(d_.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  switched_ = true;
}

CurrentContext::~CurrentContext() {
  if (switched_) d_.cuCtxSetCurrent(previous_);
}

std::shared_ptr<detail::QueueImpl> CudaDevice::create_queue(std::uint32_t, Priority priority) {
  return std::make_shared<CudaQueue>(std::static_pointer_cast<CudaDevice>(shared_from_this()), priority);
}

std::shared_ptr<detail::KernelImpl> CudaDevice::make_kernel(CUmodule module, std::string_view image,
                                                            const std::string& name, const std::string& where) {
  const CurrentContext scope = current();
  CUfunction f = nullptr;
  if (d_.cuModuleGetFunction(&f, module, name.c_str()) != CUDA_SUCCESS) {
    throw Error(Errc::invalid_argument, "cuda", "kernel", "no kernel named '" + name + "' in " + where);
  }
  auto k = std::make_shared<detail::KernelImpl>();
  k->info.name = name;
  k->info.wavefront_size = info_.wavefront_size;
  // Where the image cannot tell (every image of a fatbin compressed), the count is found by
  // asking until the driver refuses: one failing call per kernel, which sanitizers report.
  const std::optional<std::size_t> count = detail::cuda_param_count(image, name);
  for (std::size_t i = 0; !count || i < *count; ++i) {
    std::size_t offset = 0, size = 0;
    const CUresult r = d_.cuFuncGetParamInfo(f, i, &offset, &size);
    if (r != CUDA_SUCCESS && count) check(r, "cuFuncGetParamInfo");
    if (r != CUDA_SUCCESS) break;
    k->info.args.push_back({"arg" + std::to_string(i), std::uint32_t(offset), std::uint32_t(size), ArgKind::by_value, {}});
    k->info.kernarg_segment_size = std::uint32_t(offset + size);
  }
  int max_threads = 0;
  check(d_.cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f), "cuFuncGetAttribute");
  k->info.max_workgroup_size = std::uint32_t(max_threads);
  int static_shared = 0, local = 0, registers = 0;
  check(d_.cuFuncGetAttribute(&static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f), "cuFuncGetAttribute");
  check(d_.cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f), "cuFuncGetAttribute");
  check(d_.cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, f), "cuFuncGetAttribute");
  k->info.vector_registers = std::uint32_t(registers);
  k->info.group_segment_size = std::uint32_t(static_shared);  // the kernel's own; a launch asks only the dynamic part
  k->info.private_segment_size = std::uint32_t(local);
  k->native = f;
  return k;
}

std::shared_ptr<const detail::KernelImpl> CudaDevice::load_kernel(std::string_view name) {
  const std::string_view image(reinterpret_cast<const char*>(hsad_cuda_fatbin), hsad_cuda_fatbin_size);
  auto k = make_kernel(module_.get(), image, std::string(name), "the embedded fatbin");
  k->early_launch_ok = true;  // every kernel of the embedded fatbin starts with HSAD_BARRIER_WAIT()
  k->keep_alive = module_;
  return k;
}

namespace {
class CudaModule : public detail::ModuleImpl {
 public:
  CudaModule(std::shared_ptr<CudaDevice> device, std::shared_ptr<CUmod_st> module, std::string image)
      : device_(std::move(device)), module_(std::move(module)), image_(std::move(image)) {}

 protected:
  std::shared_ptr<detail::KernelImpl> load_kernel(const std::string& name) override {
    // An application's kernel may not wait for its predecessor itself: no early launch.
    return device_->make_kernel(module_.get(), image_, name, "module '" + origin + "'");
  }

 private:
  std::shared_ptr<CudaDevice> device_;  // a module may outlive its Device handle: it keeps the device
  std::shared_ptr<CUmod_st> module_;
  std::string image_;  // the bytes loaded, for the kernels' parameter counts
};
}  // namespace

std::shared_ptr<detail::ModuleImpl> CudaDevice::load_module(std::string_view bytes, const std::string& origin) {
  const detail::ModuleFormat f = detail::detect_module_format(bytes);
  if (detail::is_amd(f)) {
    throw Error(Errc::unsupported, "cuda", "load_module", "'" + origin + "' is " + detail::describe(f) + ": AMD code cannot run on " +
                                           info_.isa, "load the cubin, fatbin or PTX nvcc built for it");
  }
  if (!detail::is_cuda(f)) throw Error(Errc::invalid_argument, "cuda", "load_module", "'" + origin + "' is " + detail::describe(f));
  const std::string targets = detail::cuda_image_targets(bytes);
  refuse_while_stuck("cuModuleLoadDataEx");
  const CurrentContext scope = current();
  // PTX must end in a NUL; the driver's JIT log says what is wrong with bad PTX.
  const std::string image(bytes);
  char log[4096] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {log, reinterpret_cast<void*>(std::uintptr_t(sizeof log))};
  CUmodule module = nullptr;
  const CUresult r = d_.cuModuleLoadDataEx(&module, image.c_str(), 2, options, values);
  if (r == CUDA_ERROR_NO_BINARY_FOR_GPU) {
    throw Error(Errc::unsupported, "cuda", "load_module", "'" + origin + "' has no code for " + info_.isa + " (it has: " + targets + ")",
                "build it for " + info_.isa + " or include PTX");
  }
  if (r == CUDA_ERROR_INVALID_IMAGE || r == CUDA_ERROR_INVALID_PTX || r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION) {
    const char* name = "?";
    d_.cuGetErrorName(r, &name);
    throw Error(Errc::invalid_argument, "cuda", "load_module", "'" + origin + "' (" + detail::describe(f) + ") was refused: " + name +
                                           (log[0] ? std::string(": ") + log : std::string(" (malformed or truncated)")));
  }
  check(r, "cuModuleLoadDataEx");
  std::shared_ptr<CUmod_st> owned = own_module(module);
  auto m = std::make_shared<CudaModule>(std::static_pointer_cast<CudaDevice>(shared_from_this()), owned, image);
  m->device = this;
  m->origin = origin;
  m->target = f == detail::ModuleFormat::cuda_fatbin ? targets + " (loaded for " + info_.isa + ")" : targets;
  unsigned count = 0;
  check(d_.cuModuleGetFunctionCount(&count, module), "cuModuleGetFunctionCount");
  std::vector<CUfunction> functions(count);
  if (count) check(d_.cuModuleEnumerateFunctions(functions.data(), count, module), "cuModuleEnumerateFunctions");
  for (CUfunction fn : functions) {
    const char* name = nullptr;
    check(d_.cuFuncGetName(&name, fn), "cuFuncGetName");
    m->names.push_back(name);
  }
  std::sort(m->names.begin(), m->names.end());
  m->code = owned;
  return m;
}

void CudaDevice::allow_dynamic_group_memory(const detail::KernelImpl& kernel, std::uint32_t bytes) const {
  // Up to 48 KiB every kernel may ask; past it the driver refuses the launch unless the kernel's
  // maximum was raised first (CUDA Programming Guide, "Shared Memory" for compute capability 7.x+).
  constexpr std::uint32_t kDefaultMax = 48 * 1024;
  if (bytes <= kDefaultMax) return;
  const CurrentContext scope = current();
  check(d_.cuFuncSetAttribute(static_cast<CUfunction>(kernel.native), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                              int(bytes)),
        "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
}

std::uint32_t CudaDevice::max_active_groups_per_cu(const detail::KernelImpl& kernel, std::uint32_t group_size,
                                                   std::uint32_t dynamic_shared_bytes) const {
  const CurrentContext scope = current();
  int blocks = 0;
  check(d_.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, static_cast<CUfunction>(kernel.native), int(group_size),
                                                       dynamic_shared_bytes),
        "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  return std::uint32_t(blocks);
}

void* CudaDevice::raw_allocate(std::size_t bytes, Memory kind) {
  const CurrentContext scope = current();
  if (kind == Memory::pinned_host) {
    void* p = nullptr;
    // Portable: pinned for every context, so another device's copy from it is a DMA too.
    check(d_.cuMemHostAlloc(&p, bytes, CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc");
    return p;
  }
  CUdeviceptr p = 0;
  check(d_.cuMemAlloc(&p, bytes), "cuMemAlloc");
  return reinterpret_cast<void*>(p);
}

void CudaDevice::raw_deallocate(void* ptr, std::size_t, Memory kind) noexcept {
  if (!guard_->can_free()) return;  // kept until exit: cuMemFree would wait for the kernel
  if (kind == Memory::pinned_host) d_.cuMemFreeHost(ptr);
  else d_.cuMemFree(reinterpret_cast<CUdeviceptr>(ptr));
}

// Pageable memory: the driver stages it through its own pinned buffers. From pageable memory,
// cuMemcpyHtoD returns once the source sits in the staging buffer, before the DMA to the device
// has finished; the queues' streams are non-blocking, so a dispatch right after could read the old
// contents (seen on the H100: 4 MiB of keys, the next batch sorted stale data). Waiting for the
// legacy stream, where the copy runs, makes the copy complete on return as the API promises.
std::size_t CudaDevice::transfer_to_device(void* dst, const void* src, std::size_t bytes, bool src_pinned) {
  const CurrentContext scope = current();
  check(d_.cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(dst), src, bytes), "cuMemcpyHtoD");
  if (!src_pinned) check(d_.cuStreamSynchronize(CU_STREAM_LEGACY), "cuStreamSynchronize (after a pageable copy)");
  return src_pinned ? 0 : bytes;
}

std::size_t CudaDevice::transfer_to_host(void* dst, const void* src, std::size_t bytes, bool dst_pinned) {
  const CurrentContext scope = current();
  check(d_.cuMemcpyDtoH(dst, reinterpret_cast<CUdeviceptr>(src), bytes), "cuMemcpyDtoH");
  return dst_pinned ? 0 : bytes;
}

}  // namespace hsad::cuda
