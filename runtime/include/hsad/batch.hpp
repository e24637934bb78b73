// Batch: a recorded list of commands (kernel dispatches, copies, waits for other submissions),
// checked when recorded and submitted to a queue as often as wanted. The commands run in the
// order recorded, with no host wait between them under Options::nosync.
#pragma once

#include "hsad/export.hpp"

#include <cstdint>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

#include "hsad/buffer.hpp"
#include "hsad/kernel.hpp"

namespace hsad {

class Submission;
class Queue;

// One explicit kernel argument, by value. A Buffer passes its device address. What it was made
// from is kept, so that a parameter the code object declares a global buffer gets a pointer.
// A value of any size and layout passes as itself (a parameter struct: `exec(k, g, b, {params})`),
// copied into the Arg: one over 16 bytes is held on the heap, so an Arg never refers to the
// caller's object. Its size must be the parameter's, and its alignment must divide the
// parameter's offset in the kernarg segment.
class HSAD_API Arg {
 public:
  enum class Source : std::uint8_t {
    value,    // plain data (a number, a struct)
    pointer,  // an address (T*, nullptr)
    buffer,   // a Buffer's device address
    unchecked,  // an address passed as it is (Arg::unchecked)
  };
  template <class T, class = std::enable_if_t<std::is_trivially_copyable_v<T> && !std::is_pointer_v<T> &&
                                              !std::is_same_v<T, std::nullptr_t> && !std::is_same_v<T, Arg>>>
  Arg(const T& v) : size_(sizeof(T)), align_(std::uint8_t(alignof(T) < 255 ? alignof(T) : 128)) {  // NOLINT: implicit on purpose, exec(k, g, b, {buf, 3u})
    if constexpr (sizeof(T) <= kInline) std::memcpy(inline_, &v, sizeof(T));
    else hold(&v);
  }
  template <class T>
  Arg(T* p) : Arg(reinterpret_cast<std::uintptr_t>(p)) {  // NOLINT
    source_ = Source::pointer;
  }
  Arg(std::nullptr_t) : Arg(std::uintptr_t(0)) { source_ = Source::pointer; }  // NOLINT
  Arg(const Buffer& b) : Arg(b.device_ptr()) { source_ = Source::buffer; }      // NOLINT
  // An address passed as it is, for a global-buffer parameter the library cannot check: memory
  // another allocator mapped for the device without telling its driver's pointer queries, or an
  // address meant to fault. Every other pointer is checked when recorded.
  static Arg unchecked(const void* address) {
    Arg a(reinterpret_cast<std::uintptr_t>(address));
    a.source_ = Source::unchecked;
    return a;
  }
  // A by-value parameter's bytes as the caller laid them out (kernarg bytes built by hand, or a
  // struct known only at run time): `size` bytes copied from `data`, checked against the
  // parameter's size only.
  static Arg bytes(const void* data, std::size_t size);

  Arg(const Arg& o) : size_(o.size_), source_(o.source_), align_(o.align_) {
    if (size_ <= kInline) std::memcpy(inline_, o.inline_, kInline);
    else hold(o.heap_);
  }
  Arg(Arg&& o) noexcept : size_(o.size_), source_(o.source_), align_(o.align_) {
    std::memcpy(inline_, o.inline_, kInline);  // a held value's pointer moves with it
    o.size_ = 0;
  }
  Arg& operator=(Arg&& o) noexcept {
    swap(o);
    return *this;
  }
  Arg& operator=(const Arg& o) {
    if (this != &o) {
      Arg copy(o);
      swap(copy);
    }
    return *this;
  }
  ~Arg() {
    if (size_ > kInline) release();
  }

  const unsigned char* data() const { return size_ <= kInline ? inline_ : heap_; }
  std::uint32_t size() const { return size_; }
  Source source() const { return source_; }
  std::size_t alignment() const { return align_; }
  // The address a pointer or Buffer argument holds (0 for a value).
  std::uintptr_t address() const {
    std::uintptr_t a = 0;
    if (source_ != Source::value) std::memcpy(&a, inline_, sizeof a);
    return a;
  }

 private:
  static constexpr std::size_t kInline = 16;
  Arg() = default;
  void hold(const void* bytes);  // copies size_ bytes to the heap (size_ > kInline)
  void release() noexcept;
  void swap(Arg& o) noexcept {
    unsigned char t[kInline];
    std::memcpy(t, inline_, kInline);
    std::memcpy(inline_, o.inline_, kInline);
    std::memcpy(o.inline_, t, kInline);
    std::swap(size_, o.size_);
    std::swap(source_, o.source_);
    std::swap(align_, o.align_);
  }

  union {
    alignas(8) unsigned char inline_[kInline] = {};
    unsigned char* heap_;  // size_ > kInline: a copy of the value, owned
  };
  std::uint32_t size_ = 0;
  Source source_ = Source::value;
  std::uint8_t align_ = 1;
};

// The work-groups a cooperative dispatch may have on the cpu agent, which runs each on a thread.
constexpr std::uint64_t kCpuCooperativeGroups = 1024;

// What a dispatch asks of the device beyond its shape and arguments; the words are CUDA's
// (cudaLaunchConfig_t) and HIP's (hipLaunchConfig_t). A plain value type: it grows at its end.
struct LaunchConfig {
  // Group memory (LDS on AMD, shared memory on NVIDIA) for the kernel's `extern __shared__`
  // array, beyond what it declares statically (KernelInfo::group_segment_size): cudaLaunchConfig_t's
  // dynamicSmemBytes, the sharedMemBytes of hipModuleLaunchKernel and cuLaunchKernel. The
  // dynamic array starts after the static memory; both together must fit the device's
  // DispatchLimits::max_group_memory_bytes. A host kernel finds it in WorkGroup::group_memory.
  std::uint32_t dynamic_shared_bytes = 0;
  // The kernel waits for the kernel before it itself (cudaGridDependencySynchronize, before it
  // reads what that one wrote), so it may be launched before that one ended: CUDA's programmatic
  // dependent launch (cudaLaunchAttributeProgrammaticStreamSerialization), taken on sm_90 and
  // later for a dispatch right after another under Options::nosync, not replayed, not profiled
  // (Stats::early_launches counts them). Elsewhere the dispatch waits as any other; AQL's barrier
  // bit has no such overlap. A kernel that does not wait this way races its predecessor.
  bool early_launch = false;
  // Every work-group of the grid is resident at once, so the kernel may synchronize the whole
  // grid (cooperative_groups' grid.sync()): cudaLaunchAttributeCooperative, hipLaunchCooperativeKernel.
  // A grid larger than the device holds at once is refused when recorded, with the limit
  // (Kernel::max_active_groups_per_cu times the compute units). rocr: on a queue made by
  // Device::create_cooperative_queue, after the GWS set up for the grid's work-groups, as CLR
  // does; cuda: any queue; the cpu agent: a thread per work-group, at most
  // kCpuCooperativeGroups of them (a host kernel synchronizes with WorkGroup::grid_sync).
  bool cooperative = false;
};

namespace detail {
class DeviceImpl;
// What the backends read of a batch: private (runtime/src/batch_data.hpp), so that a new field
// there changes nothing an application compiled against.
struct BatchData;
struct Command;
struct Dispatch;
struct Copy;
struct Wait;
struct Loop;
}  // namespace detail

class HSAD_API Batch {
 public:
  Batch();
  // A copy is a batch of its own: the same commands and arguments, a new identity (id()), so
  // that what a queue caches for one (a replay image, a CUDA graph) is never used for the other,
  // and each can be changed (set_args, more commands) without touching the other.
  Batch(const Batch& other);
  Batch& operator=(const Batch& other);
  // A move hands the identity over; the moved-from batch is empty, with a new identity.
  Batch(Batch&& other) noexcept;
  Batch& operator=(Batch&& other) noexcept;
  ~Batch();

  // Records one dispatch of `grid` work-items in work-groups of `group`. A grid that is not a whole
  // number of work-groups along a dimension is rounded up to whole work-groups there, on every
  // backend, as CUDA and HIP launches are: the kernel checks its index against its size
  // (`if (i < n)`), and blockDim is the whole group everywhere. Throws hsad::Error naming the
  // kernel and the argument on a wrong argument count or size, and naming the limit on a grid or
  // work-group that is empty or that the kernel's device cannot run (DeviceInfo::limits).
  Batch& exec(const Kernel& kernel, Dim3 grid, Dim3 group, std::initializer_list<Arg> args);
  // The same, with an argument list built at run time.
  Batch& exec(const Kernel& kernel, Dim3 grid, Dim3 group, const std::vector<Arg>& args);
  // With launch parameters beyond the shape (dynamic shared memory), checked when recorded
  // against the kernel's static use and the device's limit.
  Batch& exec(const Kernel& kernel, Dim3 grid, Dim3 group, std::initializer_list<Arg> args, const LaunchConfig& config);
  Batch& exec(const Kernel& kernel, Dim3 grid, Dim3 group, const std::vector<Arg>& args, const LaunchConfig& config);
  // HSA's own grid, for kernels written for it (OpenCL style: global-id builtins, no bounds
  // check): the grid is encoded as given and the last work-group of a dimension is partial, so
  // the work-items past the grid do not exist. On AMD a HIP kernel then sees that group's own
  // size as blockDim, which breaks `blockIdx.x * blockDim.x + threadIdx.x`: use exec for those.
  // AQL backends only (rocr, the cpu agent); cuda has no partial blocks and refuses it by name.
  Batch& exec_partial_groups(const Kernel& kernel, Dim3 grid, Dim3 group, std::initializer_list<Arg> args);
  Batch& exec_partial_groups(const Kernel& kernel, Dim3 grid, Dim3 group, const std::vector<Arg>& args);

  // Replaces the explicit arguments of dispatch number `dispatch` (its index among dispatches(),
  // in recording order), with exec's checks. The batch is not recorded again (version() stays):
  // a replayed batch rewrites only that dispatch's kernarg block on its next submit (AQL), and a
  // submission already in flight keeps reading the arguments it was submitted with. Throws
  // hsad::Error for an index past the dispatches, a wrong argument count or size. Call it from the
  // recording thread, between submits, as exec.
  Batch& set_args(std::size_t dispatch, std::initializer_list<Arg> args);
  Batch& set_args(std::size_t dispatch, const std::vector<Arg>& args);
  // Replaces dispatch `dispatch`'s launch parameters, with exec's checks, as set_args replaces its
  // arguments: the batch is not recorded again, a replay rewrites that dispatch alone, and a
  // submission in flight keeps what it was submitted with.
  Batch& set_launch_config(std::size_t dispatch, const LaunchConfig& config);
  const LaunchConfig& launch_config(std::size_t dispatch) const;

  // Copies in batch order. Host memory that is not a pinned Buffer of the device is pageable: it
  // is staged as Device::copy_* stage it (counted in Stats::bytes_staged). A pageable source is
  // read, and a pageable destination written, by the time the submission completes. Throws
  // hsad::Error for a range past either end of a buffer, an empty buffer or host pointer, 0
  // bytes, buffers of devices of different backends, or (copy) a source and destination that
  // overlap.
  Batch& copy_to_device(const Buffer& dst, const void* src, std::size_t bytes, std::size_t dst_offset = 0);
  Batch& copy_to_host(void* dst, const Buffer& src, std::size_t bytes, std::size_t src_offset = 0);
  Batch& copy(const Buffer& dst, const Buffer& src, std::size_t bytes, std::size_t dst_offset = 0,
              std::size_t src_offset = 0);

  // The commands after this one start only once `other` (a submission on another queue, or
  // another device of the same backend) has completed; the wait happens on the device, not the
  // host. The batch keeps what the wait needs alive for as long as it exists.
  Batch& wait(const Submission& other);
  // The same for a batch recorded once and submitted again and again, which cannot name one
  // submission: the commands after this one start once `other` has completed its submission
  // number k + offset, where k is the number of submissions the queue this batch goes to had
  // made before this one (Queue::submissions()). Queues fed in lockstep, one batch each per
  // iteration, so name "other's previous iteration" with offset 0 and "other's same iteration"
  // with offset 1 (submit to `other` first). A number of 0 or less waits for nothing; one that
  // `other` has not reached when this batch is submitted is refused then (hsad::Error naming
  // both queues' counts): the wait is resolved at submit, so it can never wait for work that
  // the host has not yet submitted. `other` may be a queue of another device of the backend.
  Batch& wait(const Queue& other, std::int64_t offset);
  // The commands after this one start once the application's own work has completed, with no
  // host wait. rocr: `handle` is an hsa_signal_t's handle and the wait ends when its value is 0
  // (a barrier-AND packet, as for the library's own waits); cuda: a CUevent (cuStreamWaitEvent
  // before the commands after it); the cpu agent: Submission::native_handle() of one of its own
  // submissions, anything else refused at submit. A handle from Submission::native_handle() is
  // waited for as Batch::wait(submission) is, on every backend, and kept alive by the batch; the
  // application's own signal or event must outlive every submission of the batch. Throws for 0.
  Batch& wait_native(std::uint64_t handle);

  // A loop the device runs, with no host in it (CUDA's WHILE conditional node; HIP has none): the
  // commands recorded between loop_begin() and loop_while() form its body, which runs once and
  // then again while the 32-bit unsigned value at `condition` + `offset` is non-zero when an
  // iteration ends (a do-while: the application's kernels in the body write the value, a
  // convergence test clearing it). The host waits once, for the whole batch. `max_iterations`
  // guards it: a loop whose value is still non-zero after that many iterations stops there, the
  // commands after it still run, and Submission::wait() throws Errc::loop_limit naming the loop.
  // Submission::loop_iterations(i) says how many iterations loop i ran. The body holds dispatches
  // only (no copies, waits, cooperative dispatches or inner loops: each refused by name when
  // recorded); set_args and set_launch_config change its dispatches as any other. Lowered as
  // docs/api.md says: cuda a WHILE node whose handle a library kernel sets; rocr and the cpu
  // agent a library control kernel that writes each iteration's packets into the queue's loop
  // ring from the device. Throws for a loop_begin inside a loop, a loop_while without one, an
  // empty body, max_iterations 0, or a condition outside the buffer or not 4-byte aligned.
  //
  // `check_every` k > 1 reads the value only after every k-th iteration: the body runs in rounds
  // of k, `do { body k times } while (value != 0)`, with no library work between the iterations
  // of a round (cuda: the body k times in the WHILE node; AQL: k bodies per control kernel).
  // loop_iterations() then counts whole rounds, a multiple of k: the iterations that ran, the
  // last being the one after which the value was read as zero. The result is exactly that of a
  // host loop that checks every k iterations; where the body is predicated on the value (each of
  // its kernels changes nothing once it is zero), also that of k = 1, bit for bit, the extra
  // iterations being no-ops. max_iterations must be a multiple of k (refused otherwise).
  Batch& loop_begin();
  Batch& loop_while(const Buffer& condition, std::uint64_t max_iterations, std::size_t offset = 0,
                    std::uint32_t check_every = 1);
  // Loops recorded (closed with loop_while): Submission::loop_iterations numbers them 0 to loops() - 1.
  std::size_t loop_count() const;
  // Whether a loop_begin() awaits its loop_while() (a batch in that state is refused at submit).
  bool loop_open() const;

  std::size_t size() const;  // commands of every kind
  // The dispatches among them (exec): set_args numbers them 0 to dispatch_count() - 1.
  std::size_t dispatch_count() const;
  // Of those, the ones recorded with LaunchConfig::cooperative (rocr takes them on a cooperative queue only).
  std::size_t cooperative_dispatch_count() const;
  bool empty() const { return size() == 0; }
  void clear();

  // Grows whenever the batch changes (commands recorded, clear), so a backend can cache what it
  // derived from it (a CUDA graph, an AQL image); set_args leaves it.
  std::uint64_t version() const { return version_; }
  // Grows with every set_args: what a replay compares to rewrite only what changed.
  std::uint64_t args_version() const { return args_version_; }
  // The batch's identity: unique in the process, never shared by a copy; with version() and
  // args_version() it is what every cache of a recorded batch keys on.
  std::uint64_t id() const { return id_; }

  // What the library's backends read (the element types are private: runtime/src/batch_data.hpp).
  const std::vector<detail::Command>& commands() const;
  const std::vector<detail::Dispatch>& dispatches() const;
  const std::vector<detail::Copy>& copies() const;
  const std::vector<detail::Wait>& waits() const;
  const std::vector<detail::Loop>& loops() const;
  // The explicit-argument kernarg image of dispatch i (kernarg_segment_size bytes; hidden args zero).
  const unsigned char* kernarg_image(std::size_t i) const;
  // The device whose kernels and buffers the batch names, or nullptr while it names none.
  const detail::DeviceImpl* device() const;
  // The code of every kernel the batch dispatches, held by each in-flight submission (one shared
  // object, so a submission takes one reference, not one per dispatch).
  const std::shared_ptr<const void>& code() const;
  // One name per command (the kernel's, "copy_to_device", "wait"...): what errors name.
  std::shared_ptr<const std::vector<std::string>> labels() const;
  // args_version() at dispatch i's last set_args (0: its arguments are the recorded ones).
  std::uint64_t args_version(std::size_t dispatch) const;
  // The dispatches of the latest set_args calls, oldest first: entry j is the call that made
  // args_version() == args_changes_from() + j + 1.
  const std::vector<std::uint32_t>& args_changes() const;
  std::uint64_t args_changes_from() const;

 private:
  void adopt_device(detail::DeviceImpl* device, const char* call);
  void push(int kind, std::size_t index);  // a detail::CommandKind
  const detail::BatchData& data() const;
  Batch& exec(const Kernel& kernel, Dim3 grid, Dim3 group, const Arg* first, std::size_t count, bool partial_groups,
              const LaunchConfig& config);
  // Throws hsad::Error where `config` asks more than the kernel's device can give.
  static void check_launch_config(const Kernel& kernel, const LaunchConfig& config, const char* call);
  // Throws hsad::Error where a cooperative dispatch's grid cannot be resident at once.
  static void check_cooperative(const Kernel& kernel, Dim3 grid, Dim3 group, const LaunchConfig& config, const char* call);
  void note_args_change(std::size_t dispatch);
  // Throws hsad::Error, naming `call`, for an index past the dispatches.
  void check_dispatch_index(std::size_t dispatch, const char* call) const;
  Batch& set_args(std::size_t dispatch, const Arg* first, std::size_t count);
  // Checks `count` arguments against `info` and writes them into the arena at `offset`.
  void pack_args(const KernelInfo& info, const Arg* first, std::size_t count, std::size_t offset, const char* call,
                 const detail::DeviceImpl* device);
  detail::BatchData& mutable_data();  // made on first use

  std::unique_ptr<detail::BatchData> data_;  // null while nothing is recorded
  std::uint64_t version_ = 0;
  std::uint64_t args_version_ = 0;
  std::uint64_t id_ = next_id();
  static std::uint64_t next_id();
};

}  // namespace hsad
