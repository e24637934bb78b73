// The cuda backend: a device is a CUDA device with its primary context; a queue is a
// non-blocking stream; completion signals are pooled events; kernarg blocks go to the driver
// through CU_LAUNCH_PARAM_BUFFER_POINTER; a recorded batch can be replayed as a CUDA graph.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>

#include "backends/backend.hpp"
#include "backends/cuda/cuda_driver.hpp"

namespace hsad::cuda {

// What the driver's teardown calls must know. cuMemFree, cuMemFreeHost, cuModuleUnload,
// cuModuleLoadData and the primary context's release and reset all wait for every kernel of the
// context (measured on the H100, docs/results.md): while an abandoned kernel still runs they are
// skipped, their memory kept until the process exits. After a reset the handles are gone.
struct ContextGuard {
  std::atomic<int> abandoned_running{0};  // abandoned submissions not yet seen to end
  std::atomic<bool> reset{false};         // the context these handles belong to was reset
  // Abandoned submissions not yet seen to end, in every context of the process. A call that tears
  // a context's things down can wait for a kernel of another GPU's context too: on two H200s the
  // release of the idle GPU's primary context at exit waited for ever for the other GPU's stuck
  // kernel (cuDevicePrimaryCtxRelease, seen in the stuck-exit probe's backtrace).
  static std::atomic<int>& anywhere() {
    static std::atomic<int> count{0};
    return count;
  }
  void abandon() {
    abandoned_running.fetch_add(1, std::memory_order_acq_rel);
    anywhere().fetch_add(1, std::memory_order_acq_rel);
  }
  void ended() {
    abandoned_running.fetch_sub(1, std::memory_order_acq_rel);
    anywhere().fetch_sub(1, std::memory_order_acq_rel);
  }
  // Whether a call that may wait for kernels (a free, an unload, a release) returns now, on a live
  // handle: no abandoned kernel runs in any context (what is not freed now is freed at exit).
  bool can_free() const {
    return anywhere().load(std::memory_order_acquire) == 0 && !reset.load(std::memory_order_acquire);
  }
};

// A context current on the calling thread for as long as the scope lives, then the one that was
// current before: the application's, or none. CUDA's runtime takes its current device from the
// current context, so a library call that left another device's context current would move the
// application's own work (cudaMalloc, launches) to that device.
class CurrentContext {
 public:
  CurrentContext(const Driver& d, CUcontext context);
  ~CurrentContext();
  CurrentContext(const CurrentContext&) = delete;
  CurrentContext& operator=(const CurrentContext&) = delete;
  // The driver calls this scope makes: the look, and where it switched, the switch and the switch back.
  unsigned calls() const { return switched_ ? 3 : 1; }

 private:
  const Driver& d_;
  CUcontext previous_ = nullptr;
  bool switched_ = false;
};

class CudaDevice : public detail::DeviceImpl {
 public:
  CudaDevice(const Driver& d, int ordinal);
  ~CudaDevice() override;

  std::shared_ptr<detail::QueueImpl> create_queue(std::uint32_t packets, Priority priority) override;
  bool host_can_read(Memory kind) const override { return kind == Memory::pinned_host; }
  void allow_dynamic_group_memory(const detail::KernelImpl& kernel, std::uint32_t bytes) const override;
  std::uint32_t max_active_groups_per_cu(const detail::KernelImpl& kernel, std::uint32_t group_size,
                                         std::uint32_t dynamic_shared_bytes) const override;
  // cuDeviceCanAccessPeer, then cuCtxEnablePeerAccess from this context (once per peer).
  bool peer_access(detail::DeviceImpl& other) override;
  // This device's context current on the calling thread until the returned scope ends.
  [[nodiscard]] CurrentContext current() const { return CurrentContext(d_, context_); }
  const Driver& driver() const { return d_; }
  CUcontext context() const { return context_; }
  const std::shared_ptr<ContextGuard>& guard() const { return guard_; }
  bool reset_invalidates_memory() const override { return true; }
  // cuPointerGetAttributes: device memory of this device's primary context, managed memory, or
  // pinned host memory in the unified address space (cuda_interop.cpp).
  Memory adopt_memory(void* ptr, std::size_t bytes) override;
  NativeDevice native() const override;

  static BackendStatus probe();
  static std::vector<std::shared_ptr<detail::DeviceImpl>> open();

  // A cubin, fatbin or PTX (JIT-compiled by the driver) through cuModuleLoadDataEx.
  std::shared_ptr<detail::ModuleImpl> load_module(std::string_view bytes, const std::string& origin) override;
  // A kernel of `module` (loaded from `image`), its argument layout from cuFuncGetParamInfo.
  std::shared_ptr<detail::KernelImpl> make_kernel(CUmodule module, std::string_view image, const std::string& name,
                                                  const std::string& where);

 protected:
  std::shared_ptr<const detail::KernelImpl> load_kernel(std::string_view name) override;
  void* raw_allocate(std::size_t bytes, Memory kind) override;
  void raw_deallocate(void* ptr, std::size_t bytes, Memory kind) noexcept override;
  std::size_t transfer_to_device(void* dst, const void* src, std::size_t bytes, bool src_pinned) override;
  std::size_t transfer_to_host(void* dst, const void* src, std::size_t bytes, bool dst_pinned) override;
  // cuDevicePrimaryCtxReset, refused while an abandoned kernel runs (the driver would wait for
  // it); then the context is retained again and the library's module reloaded.
  void reset_device(const std::vector<std::shared_ptr<detail::QueueImpl>>& queues) override;

 private:
  void retain_context();
  // Throws, naming the abandoned submission, where a call would wait for it.
  void refuse_while_stuck(const char* call);
  const Driver& d_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  // Owns `module` in this device's context: unloaded before the context is released.
  std::shared_ptr<CUmod_st> own_module(CUmodule module) const;

  std::shared_ptr<ContextGuard> guard_ = std::make_shared<ContextGuard>();
  std::shared_ptr<CUctx_st> primary_;  // the primary context, held by the device and by every module
  std::shared_ptr<CUmod_st> module_;
  std::mutex peers_mutex_;
  std::map<CUdevice, bool> peers_;  // what peer_access found, by the other's device
};

}  // namespace hsad::cuda
