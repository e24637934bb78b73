// Device, Buffer and Kernel: the public handles over DeviceImpl; and DeviceImpl's shared parts
// (kernel cache, pinned-range registry, transfer accounting).
#include "hsad/device.hpp"

#include <algorithm>
#include <utility>

#include "backends/backend.hpp"
#include "graveyard.hpp"
#include "hsad/error.hpp"

namespace hsad {
namespace detail {

Stats Counters::snapshot() const {
  Stats s;
  s.packets = packets.load(std::memory_order_relaxed);
  s.doorbells = doorbells.load(std::memory_order_relaxed);
  s.host_waits = host_waits.load(std::memory_order_relaxed);
  s.signals_created = signals_created.load(std::memory_order_relaxed);
  s.kernarg_allocations = kernarg_allocations.load(std::memory_order_relaxed);
  s.system_fences = system_fences.load(std::memory_order_relaxed);
  s.bytes_copied = bytes_copied.load(std::memory_order_relaxed);
  s.bytes_staged = bytes_staged.load(std::memory_order_relaxed);
  s.copies = copies.load(std::memory_order_relaxed);
  s.kernarg_writes = kernarg_writes.load(std::memory_order_relaxed);
  s.images_built = images_built.load(std::memory_order_relaxed);
  s.early_launches = early_launches.load(std::memory_order_relaxed);
  s.device_loops = device_loops.load(std::memory_order_relaxed);
  s.driver_calls = driver_calls.load(std::memory_order_relaxed);
  s.device_waits = device_waits.load(std::memory_order_relaxed);
  return s;
}

DeviceImpl& checked_device(const std::shared_ptr<DeviceImpl>& device, const char* call) {
  if (!device) {
    throw Error(Errc::invalid_argument, "device", call, "the Device is empty (default-constructed)",
                "get one from Runtime::device() or Runtime::devices()");
  }
  return *device;
}

namespace {
template <class T>
std::shared_ptr<T> held_with(std::shared_ptr<DeviceImpl> device, std::shared_ptr<T> object) {
  struct Held {
    std::shared_ptr<DeviceImpl> device;
    std::shared_ptr<T> object;
  };
  auto held = std::make_shared<Held>(Held{std::move(device), std::move(object)});
  T* p = held->object.get();
  return std::shared_ptr<T>(std::move(held), p);  // the same object, counted with its device
}
}  // namespace

std::shared_ptr<const KernelImpl> keeping_device(std::shared_ptr<DeviceImpl> device, std::shared_ptr<const KernelImpl> kernel) {
  return held_with(std::move(device), std::move(kernel));
}

std::shared_ptr<ModuleImpl> keeping_device(std::shared_ptr<DeviceImpl> device, std::shared_ptr<ModuleImpl> module) {
  return held_with(std::move(device), std::move(module));
}

std::shared_ptr<const KernelImpl> DeviceImpl::kernel(std::string_view name) {
  std::lock_guard<std::mutex> lock(kernels_mutex_);
  auto it = kernels_.find(name);
  if (it != kernels_.end()) return it->second;
  auto loaded = load_kernel(name);
  auto k = std::make_shared<KernelImpl>(*loaded);
  k->device = this;
  k->generation = generation();
  kernels_.emplace(std::string(name), k);
  return k;
}

void* DeviceImpl::allocate(std::size_t bytes, Memory kind) {
  if (bytes == 0) throw Error(Errc::invalid_argument, info_.backend, "alloc", "a buffer of 0 bytes", "ask for at least one byte");
  // Memory freed while work was stuck, or in flight, goes back once that work has ended.
  release_parked();
  void* p = raw_allocate(bytes, kind);
  {
    std::lock_guard<std::mutex> lock(pinned_mutex_);
    allocated_[reinterpret_cast<std::uintptr_t>(p)] = bytes;
    if (kind == Memory::pinned_host) pinned_[reinterpret_cast<std::uintptr_t>(p)] = bytes;
  }
  // After it is listed: whatever allocations() gives a concurrent grant, this one is seen by the
  // grant or the grant by this call.
  try {
    allocated(p, bytes, kind);
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(pinned_mutex_);
      allocated_.erase(reinterpret_cast<std::uintptr_t>(p));
      pinned_.erase(reinterpret_cast<std::uintptr_t>(p));
    }
    raw_deallocate(p, bytes, kind);
    throw;
  }
  return p;
}

std::vector<std::pair<void*, std::size_t>> DeviceImpl::allocations() const {
  std::lock_guard<std::mutex> lock(pinned_mutex_);
  std::vector<std::pair<void*, std::size_t>> out;
  out.reserve(allocated_.size());
  for (const auto& [base, bytes] : allocated_) out.emplace_back(reinterpret_cast<void*>(base), bytes);
  return out;
}

void DeviceImpl::deallocate(void* ptr, std::size_t bytes, Memory kind, std::uint64_t generation) noexcept {
  {
    std::lock_guard<std::mutex> lock(pinned_mutex_);
    allocated_.erase(reinterpret_cast<std::uintptr_t>(ptr));
    if (kind == Memory::pinned_host) pinned_.erase(reinterpret_cast<std::uintptr_t>(ptr));
  }
  if (generation != this->generation() && reset_invalidates_memory()) return;  // the reset took it back
  // Submissions still in flight may name it (as a Buffer, a raw pointer, or inside another
  // buffer: nothing records which do), so it waits for all of them, without blocking here.
  std::vector<InFlight> in_flight;
  try {
    for (const auto& q : live_queues()) q->append_in_flight(in_flight);
  } catch (...) {
    in_flight.clear();
    in_flight.emplace_back();  // unknown: park it until the next look finds the work ended
  }
  // A kernel that never ended may use it too, also one of a queue that is gone, and CUDA's
  // cuMemFree waits for such a kernel: then it also waits until nothing is stuck. (Both at once:
  // memory freed while one submission was stuck was once given back as soon as nothing was
  // stuck, while other submissions that named it still ran; the load test caught the reuse.)
  bool stuck_now = true;
  try {
    stuck_now = !stuck().empty();
  } catch (...) {
  }
  if (!in_flight.empty() || stuck_now) {
    try {
      std::lock_guard<std::mutex> lock(deferred_mutex_);
      parked_.push_back({{ptr, bytes, kind, generation}, std::move(in_flight), stuck_now});
      if (stuck_now) parked_until_unstuck_.fetch_add(1, std::memory_order_acq_rel);
      has_parked_.store(true, std::memory_order_release);
      return;
    } catch (...) {  // no memory to remember it: keep it for good rather than free it under a kernel
      return;
    }
  }
  raw_deallocate(ptr, bytes, kind);
  release_parked();
}

void DeviceImpl::release_ended_parked() noexcept {
  std::vector<Deferred> ended;
  // Let go of outside the lock: the last reference to a mark can be its record's last.
  std::vector<InFlight> done;
  try {
    // Asked before the lock (stuck() takes the queues' locks): whether memory freed while work
    // was stuck may go now.
    bool unstuck = false;
    if (parked_until_unstuck_.load(std::memory_order_acquire) > 0) {
      try {
        unstuck = stuck().empty();
      } catch (...) {
      }
    }
    std::lock_guard<std::mutex> lock(deferred_mutex_);
    for (auto it = parked_.begin(); it != parked_.end();) {
      auto& marks = it->in_flight;
      for (auto m = marks.begin(); m != marks.end();) {
        if (!m->ended()) {
          ++m;
          continue;
        }
        done.push_back(std::move(*m));
        m = marks.erase(m);
      }
      if (marks.empty() && (unstuck || !it->until_unstuck)) {
        ended.push_back(it->memory);
        if (it->until_unstuck) parked_until_unstuck_.fetch_sub(1, std::memory_order_acq_rel);
        it = parked_.erase(it);
      } else {
        ++it;
      }
    }
    has_parked_.store(!parked_.empty(), std::memory_order_release);
  } catch (...) {  // no memory for the lists: the next look tries again
  }
  for (const Deferred& d : ended) {
    if (d.generation != generation() && reset_invalidates_memory()) continue;  // the reset took it back
    raw_deallocate(d.ptr, d.bytes, d.kind);
  }
}

std::size_t DeviceImpl::parked_bytes() {
  std::lock_guard<std::mutex> lock(deferred_mutex_);
  std::size_t bytes = 0;
  for (const Parked& p : parked_) bytes += p.memory.bytes;
  return bytes;
}

void DeviceImpl::track(const std::shared_ptr<QueueImpl>& queue) {
  queue->generation = generation();
  std::lock_guard<std::mutex> lock(queues_mutex_);
  // Forget queues that are gone, so a program that makes many keeps this short.
  queues_.erase(std::remove_if(queues_.begin(), queues_.end(), [](const auto& w) { return w.expired(); }),
                queues_.end());
  queues_.push_back(queue);
}

Stats DeviceImpl::stats() {
  Stats s = counters_.snapshot();
  for (const auto& q : live_queues()) q->add_counts(s);
  return s;
}

std::vector<std::shared_ptr<QueueImpl>> DeviceImpl::live_queues() {
  std::vector<std::shared_ptr<QueueImpl>> live;
  std::lock_guard<std::mutex> lock(queues_mutex_);
  for (const auto& w : queues_) {
    if (auto q = w.lock()) live.push_back(std::move(q));
  }
  return live;
}

DeviceImpl::~DeviceImpl() {
  // Parked memory outlives every submission that could still release it: what is left here is
  // used by work that never ended. (The backend is gone already: nothing could free it now.)
  if (!parked_.empty()) keep_forever(std::make_shared<std::vector<Parked>>(std::move(parked_)));
}

void DeviceImpl::note_left_running(const std::string& what, std::function<bool()> still_running) {
  std::lock_guard<std::mutex> lock(queues_mutex_);
  left_running_.push_back({what, std::move(still_running)});
}

std::size_t DeviceImpl::deferred_bytes() {
  std::lock_guard<std::mutex> lock(deferred_mutex_);
  std::size_t bytes = 0;
  for (const Parked& p : parked_) bytes += p.until_unstuck ? p.memory.bytes : 0;
  return bytes;
}

std::string DeviceImpl::stuck() {
  {
    std::lock_guard<std::mutex> lock(queues_mutex_);
    left_running_.erase(std::remove_if(left_running_.begin(), left_running_.end(),
                                       [](const LeftRunning& l) { return !l.still_running(); }),
                        left_running_.end());
    if (!left_running_.empty()) return left_running_.front().what;
  }
  for (const auto& q : live_queues()) {
    std::string running = q->still_running();
    if (!running.empty()) return running;
  }
  return {};
}

void DeviceImpl::reset() {
  const auto queues = live_queues();
  reset_device(queues);  // throws where the backend cannot reset now: nothing changed then
  generation_.fetch_add(1, std::memory_order_acq_rel);
  for (const auto& q : queues) q->shut_down("the device was reset (Device::reset) after this queue was made");
  if (reset_invalidates_memory()) {
    clear_kernel_cache();
    std::lock_guard<std::mutex> lock(pinned_mutex_);
    pinned_.clear();
    allocated_.clear();
  }
  release_parked();
}

void DeviceImpl::clear_kernel_cache() {
  std::lock_guard<std::mutex> lock(kernels_mutex_);
  kernels_.clear();
}

void DeviceImpl::refuse_generation(const char* what, const char* call) const {
  throw Error(Errc::invalid_argument, info_.backend, call, "this " + std::string(what) + " was made before the device was reset (Device::reset)",
              std::string("make it again: the reset took back every ") + what + " of the device");
}

bool DeviceImpl::reaches(const void* ptr) const {
  const auto p = reinterpret_cast<std::uintptr_t>(ptr);
  {
    std::lock_guard<std::mutex> lock(pinned_mutex_);
    auto it = allocated_.upper_bound(p);
    if (it != allocated_.begin() && p < std::prev(it)->first + std::prev(it)->second) return true;
  }
  try {  // the application's memory: what Device::adopt would accept
    const_cast<DeviceImpl*>(this)->adopt_memory(const_cast<void*>(ptr), 1);
    return true;
  } catch (const Error&) {
    return false;
  }
}

bool DeviceImpl::is_pinned(const void* ptr, std::size_t bytes) const {
  const auto p = reinterpret_cast<std::uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(pinned_mutex_);
  auto it = pinned_.upper_bound(p);
  if (it == pinned_.begin()) return false;
  --it;
  return p >= it->first && p + bytes <= it->first + it->second;
}

void DeviceImpl::copy_to_device(void* dst, const void* src, std::size_t bytes) {
  const std::size_t staged = transfer_to_device(dst, src, bytes, is_pinned(src, bytes));
  counters_.copies.fetch_add(1, std::memory_order_relaxed);
  counters_.bytes_copied.fetch_add(bytes, std::memory_order_relaxed);
  counters_.bytes_staged.fetch_add(staged, std::memory_order_relaxed);
}

void DeviceImpl::copy_to_host(void* dst, const void* src, std::size_t bytes) {
  const std::size_t staged = transfer_to_host(dst, src, bytes, is_pinned(dst, bytes));
  counters_.copies.fetch_add(1, std::memory_order_relaxed);
  counters_.bytes_copied.fetch_add(bytes, std::memory_order_relaxed);
  counters_.bytes_staged.fetch_add(staged, std::memory_order_relaxed);
}

}  // namespace detail

const KernelInfo& Kernel::info() const {
  if (!impl_) throw Error(Errc::invalid_argument, "kernel", "info", "the Kernel is empty (default-constructed)",
                          "get one from Device::kernel or Module::kernel");
  return impl_->info;
}

namespace detail {
void DeviceImpl::set_trace(TraceCallback callback) {
  std::lock_guard<std::mutex> lock(trace_mutex_);
  trace_ = callback ? std::make_shared<const TraceCallback>(std::move(callback)) : nullptr;
  has_trace_.store(trace_ != nullptr, std::memory_order_release);
}
}  // namespace detail

std::uint32_t Kernel::max_active_groups_per_cu(std::uint32_t group_size, std::uint32_t dynamic_shared_bytes) const {
  if (!impl_) throw Error(Errc::invalid_argument, "kernel", "max_active_groups_per_cu", "empty Kernel handle");
  const KernelInfo& k = impl_->info;
  const std::string call = "max_active_groups_per_cu " + k.name;
  if (group_size == 0) throw Error(Errc::invalid_argument, "kernel", call, "a work-group of 0 work-items");
  const detail::DeviceImpl* device = impl_->device;
  const std::uint32_t limit =
      k.max_workgroup_size ? k.max_workgroup_size : device ? device->info().limits.max_group_size : group_size;
  if (group_size > limit) {
    throw Error(Errc::invalid_argument, "kernel", call,
                "a work-group of " + std::to_string(group_size) + " work-items exceeds kernel '" + k.name + "''s limit of " +
                    std::to_string(limit));
  }
  if (!device) return 1;  // a host kernel looked up without a device runs as the cpu agent's
  // Asked as a dispatch would ask it: more group memory than a work-group may have fits no
  // group; past CUDA's 48 KiB the kernel's maximum is raised first, as recording does.
  if (std::uint64_t(k.group_segment_size) + dynamic_shared_bytes > device->info().limits.max_group_memory_bytes) return 0;
  if (dynamic_shared_bytes) device->allow_dynamic_group_memory(*impl_, dynamic_shared_bytes);
  return device->max_active_groups_per_cu(*impl_, group_size, dynamic_shared_bytes);
}

const DeviceInfo& Device::info() const { return detail::checked_device(impl_, "info").info(); }

Kernel Device::kernel(std::string_view name) const {
  return Kernel(detail::keeping_device(impl_, detail::checked_device(impl_, "kernel").kernel(name)));
}

Queue Device::create_queue(std::uint32_t packets, Priority priority) const {
  auto q = detail::checked_device(impl_, "create_queue").create_queue(packets, priority);
  impl_->track(q);
  return Queue(detail::with_front(std::move(q)));
}

Queue Device::create_cooperative_queue(std::uint32_t packets) const {
  auto q = detail::checked_device(impl_, "create_cooperative_queue").create_cooperative_queue(packets);
  impl_->track(q);
  return Queue(detail::with_front(std::move(q)));
}

void Device::set_trace(TraceCallback callback) const { detail::checked_device(impl_, "set_trace").set_trace(std::move(callback)); }

Buffer Device::alloc(std::size_t bytes, Memory kind) const {
  return Buffer(impl_, detail::checked_device(impl_, "alloc").allocate(bytes, kind), bytes, kind);
}

void Device::reset() const { detail::checked_device(impl_, "reset").reset(); }

namespace {
void check_range(const Device& d, const Buffer& b, const void* host, std::size_t bytes, std::size_t offset,
                 const char* call) {
  if (!b.device_ptr()) throw Error(Errc::invalid_argument, d.info().backend, call, "empty Buffer");
  if (!host && bytes) throw Error(Errc::invalid_argument, d.info().backend, call, "a null host pointer");
  if (d.impl().reset_invalidates_memory()) d.impl().check_generation(b.generation(), "buffer", call);
  if (offset > b.size() || bytes > b.size() - offset) {
    throw Error(Errc::invalid_argument, d.info().backend, call,
                std::to_string(bytes) + " bytes at offset " + std::to_string(offset) + " overrun a buffer of " +
                    std::to_string(b.size()) + " bytes");
  }
}
}  // namespace

void Device::copy_to_device(const Buffer& dst, const void* src, std::size_t bytes, std::size_t dst_offset) const {
  detail::checked_device(impl_, "copy_to_device");
  check_range(*this, dst, src, bytes, dst_offset, "copy_to_device");
  impl_->copy_to_device(static_cast<unsigned char*>(dst.device_ptr()) + dst_offset, src, bytes);
}

void Device::copy_to_host(void* dst, const Buffer& src, std::size_t bytes, std::size_t src_offset) const {
  detail::checked_device(impl_, "copy_to_host");
  check_range(*this, src, dst, bytes, src_offset, "copy_to_host");
  impl_->copy_to_host(dst, static_cast<const unsigned char*>(src.device_ptr()) + src_offset, bytes);
}

bool Device::can_access_peer(const Device& other) const {
  detail::checked_device(impl_, "can_access_peer");
  if (!other || impl_->same_device(&other.impl()) || other.info().backend != info().backend) return false;
  return impl_->peer_access(other.impl());
}

Stats Device::stats() const { return detail::checked_device(impl_, "stats").stats(); }

Buffer::Buffer(std::shared_ptr<detail::DeviceImpl> owner, void* ptr, std::size_t bytes, Memory kind)
    : owner_(std::move(owner)), ptr_(ptr), bytes_(bytes), kind_(kind), generation_(owner_->generation()) {}

Buffer Buffer::adopted(std::shared_ptr<detail::DeviceImpl> owner, void* ptr, std::size_t bytes, Memory kind,
                       std::shared_ptr<void> keeper) {
  Buffer b(std::move(owner), ptr, bytes, kind);
  b.adopted_ = true;
  b.keeper_ = std::move(keeper);
  return b;
}

Buffer::Buffer(Buffer&& o) noexcept
    : owner_(std::move(o.owner_)), ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)),
      kind_(o.kind_), generation_(o.generation_), adopted_(std::exchange(o.adopted_, false)),
      keeper_(std::move(o.keeper_)) {}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    reset();
    owner_ = std::move(o.owner_);
    ptr_ = std::exchange(o.ptr_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
    kind_ = o.kind_;
    generation_ = o.generation_;
    adopted_ = std::exchange(o.adopted_, false);
    keeper_ = std::move(o.keeper_);
  }
  return *this;
}

Buffer::~Buffer() { reset(); }

void Buffer::reset() noexcept {
  if (owner_ && ptr_ && !adopted_) owner_->deallocate(ptr_, bytes_, kind_, generation_);
  keeper_.reset();  // an adopted tensor's deleter: the application's memory goes back to it
  adopted_ = false;
  owner_.reset();
  ptr_ = nullptr;
  bytes_ = 0;
}

void* Buffer::host_ptr() const { return owner_ && owner_->host_can_read(kind_) ? ptr_ : nullptr; }

}  // namespace hsad
