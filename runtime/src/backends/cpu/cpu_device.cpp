// CpuDevice. Transfers model a DMA engine that reaches only memory registered with the agent:
// pageable host memory is bounced through a pinned staging buffer, as ROCr does (the seed's
// "unpinned memory is transferred through a host-side staging buffer").
#include "backends/cpu/cpu_device.hpp"

#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "backends/aql/aql_queue.hpp"
#include "backends/cpu/cpu_ring.hpp"
#include "agent/host_machine.hpp"
#include "agent/signal_ops.hpp"
#include "graveyard.hpp"
#include "hsad/error.hpp"
#include "hsad/host_kernel.hpp"
#include "module/module_format.hpp"

namespace hsad::cpu {
namespace {
constexpr std::size_t kStagingBytes = 1 << 20;
constexpr std::size_t kKernargHeader = 64;  // keeps the block 64-byte aligned after the length word
constexpr std::uint32_t kDefaultQueuePackets = 4096;
constexpr std::uint32_t kMaxQueuePackets = 1u << 20;

// The OS's page, not 4 KiB: aarch64 and ppc64 machines run with 16 or 64 KiB pages.
std::size_t page_round(std::size_t bytes) {
  static const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}
}  // namespace

CpuDevice::CpuDevice(std::shared_ptr<agent::WorkerPool> pool, std::uint32_t index, std::uint32_t count)
    : pool_(std::move(pool)) {
  utsname u{};
  uname(&u);
  info_.backend = "cpu";
  info_.name = "hsadispatch cpu agent (" + std::to_string(pool_->threads()) + " threads)";
  if (count > 1) {
    info_.name = "hsadispatch cpu agent " + std::to_string(index) + " of " + std::to_string(count) + " (" +
                 std::to_string(pool_->threads()) + " shared threads)";
  }
  ordinal_ = index;
  hardware_id_ = index;  // agents of one process are told apart by their index, as GPUs by ordinal
  info_.isa = u.machine;
  info_.wavefront_size = 1;
  info_.compute_units = agent::usable_cpus();
  const agent::CacheSize cache = agent::host_last_level_cache();
  info_.last_level_cache_bytes = cache.bytes;
  info_.last_level_cache_source = cache.source;
  info_.memory_bytes = std::uint64_t(sysconf(_SC_PHYS_PAGES)) * std::uint64_t(sysconf(_SC_PAGESIZE));
  info_.max_queue_packets = kMaxQueuePackets;
  staging_ = raw_allocate(kStagingBytes, Memory::pinned_host);
}

CpuDevice::~CpuDevice() { raw_deallocate(staging_, kStagingBytes, Memory::pinned_host); }

std::uint32_t CpuDevice::device_count() {
  const char* text = std::getenv("HSAD_CPU_DEVICES");
  if (!text || !*text) return 1;
  const std::string s(text);
  const bool digits = s.size() <= 3 && s.find_first_not_of("0123456789") == std::string::npos;
  const unsigned long n = digits ? std::stoul(s) : 0;
  if (n < 1 || n > kMaxDevices) {
    throw Error(Errc::invalid_argument, "cpu", "HSAD_CPU_DEVICES",
                "HSAD_CPU_DEVICES must be a whole number from 1 to " + std::to_string(kMaxDevices) + ", got '" + s + "'",
                "unset it for one device");
  }
  return std::uint32_t(n);
}

BackendStatus CpuDevice::probe() {
  try {
    const std::uint32_t n = device_count();
    return {"cpu", true,
            (n > 1 ? std::to_string(n) + " software HSA agents sharing " : std::string("software HSA agent on ")) +
                std::to_string(agent::usable_cpus()) + " host threads"};
  } catch (const Error& e) {
    return {"cpu", false, e.status()};
  }
}

std::vector<std::shared_ptr<detail::DeviceImpl>> CpuDevice::open() {
  const std::uint32_t n = device_count();
  // One worker per usable CPU but one, which the queues' packet processors and the submitting
  // host thread share; a single CPU still gets one worker. Every agent draws on the same workers.
  const unsigned cpus = agent::usable_cpus();
  // A worker stuck inside a host kernel that never returns cannot be joined: the pool is then kept.
  std::shared_ptr<agent::WorkerPool> pool(new agent::WorkerPool(cpus > 1 ? cpus - 1 : 1), [](agent::WorkerPool* p) {
    if (p->stop(detail::kStopGrace)) delete p;
    else detail::keep_forever(std::unique_ptr<agent::WorkerPool>(p));
  });
  std::vector<std::shared_ptr<detail::DeviceImpl>> devices;
  for (std::uint32_t i = 0; i < n; ++i) devices.push_back(std::make_shared<CpuDevice>(pool, i, n));
  return devices;
}

std::shared_ptr<detail::QueueImpl> CpuDevice::create_queue(std::uint32_t packets, Priority) {
  if (packets == 0) packets = kDefaultQueuePackets;
  if (packets < 2 || packets > kMaxQueuePackets || (packets & (packets - 1)) != 0) {
    throw Error(Errc::invalid_argument, "cpu", "create_queue", "queue size " + std::to_string(packets) + " is not a power of two in [2, " +
                                           std::to_string(kMaxQueuePackets) + "]");
  }
  auto ring = std::make_unique<CpuRing>(packets, pool_, next_queue_id_++);
  return std::make_shared<detail::AqlQueue>(shared_from_this(), *this, std::move(ring), detail::AqlQueue::Config{});
}

std::unique_ptr<detail::AqlRing> CpuDevice::create_loop_ring(std::uint32_t packets) {
  return std::make_unique<CpuRing>(packets, pool_, next_queue_id_++);
}

std::shared_ptr<const detail::KernelImpl> CpuDevice::loop_control_kernel() {
  static const std::shared_ptr<const detail::KernelImpl> k = [] {
    auto impl = std::make_shared<detail::KernelImpl>();
    impl->info = loop_control_host_kernel().info;
    impl->kernel_object = reinterpret_cast<std::uint64_t>(&loop_control_host_kernel());
    return impl;
  }();
  return k;
}

std::shared_ptr<detail::ModuleImpl> CpuDevice::load_module(std::string_view bytes, const std::string& origin) {
  const detail::ModuleFormat f = detail::detect_module_format(bytes);
  const std::string hint = "the cpu agent runs host kernels: register them with hsad::register_host_kernel and get "
                           "them with Device::kernel(name)";
  if (detail::is_amd(f) || detail::is_cuda(f)) {
    throw Error(Errc::unsupported, "cpu", "load_module", "'" + origin + "' is " + detail::describe(f) + ": GPU code cannot run on the cpu agent",
                hint);
  }
  throw Error(Errc::invalid_argument, "cpu", "load_module", "'" + origin + "' is " + detail::describe(f), hint);
}

std::shared_ptr<const detail::KernelImpl> CpuDevice::load_kernel(std::string_view name) {
  const HostKernel* k = find_host_kernel(std::string(name));
  if (!k) {
    throw Error(Errc::invalid_argument, "cpu", "kernel", "no host kernel named '" + std::string(name) + "'",
                "host kernels are registered with hsad::register_host_kernel");
  }
  auto impl = std::make_shared<detail::KernelImpl>();
  impl->info = k->info;
  impl->kernel_object = reinterpret_cast<std::uint64_t>(k);
  return impl;
}

void* CpuDevice::raw_allocate(std::size_t bytes, Memory kind) {
  // Within a page of SIZE_MAX the rounding would wrap to a size of 0, which aligned_alloc grants.
  if (bytes > std::numeric_limits<std::size_t>::max() - page_round(1)) {
    throw Error(Errc::out_of_memory, "cpu", "alloc", "no host memory of " + std::to_string(bytes) + " bytes");
  }
  void* p = std::aligned_alloc(page_round(1), page_round(bytes));
  if (!p) throw Error(Errc::out_of_memory, "cpu", "alloc", "out of host memory for " + std::to_string(bytes) + " bytes");
  // Page-locked where the OS allows (RLIMIT_MEMLOCK); plain memory otherwise.
  if (kind == Memory::pinned_host) (void)mlock(p, page_round(bytes));
  return p;
}

void CpuDevice::raw_deallocate(void* ptr, std::size_t bytes, Memory kind) noexcept {
  if (kind == Memory::pinned_host) (void)munlock(ptr, page_round(bytes));
  std::free(ptr);
}

std::size_t CpuDevice::staged_copy(void* dst, const void* src, std::size_t bytes) {
  std::lock_guard<std::mutex> lock(staging_mutex_);
  for (std::size_t done = 0; done < bytes; done += kStagingBytes) {
    const std::size_t n = std::min(kStagingBytes, bytes - done);
    std::memcpy(staging_, static_cast<const unsigned char*>(src) + done, n);
    std::memcpy(static_cast<unsigned char*>(dst) + done, staging_, n);
  }
  return bytes;
}

std::size_t CpuDevice::transfer_to_device(void* dst, const void* src, std::size_t bytes, bool src_pinned) {
  if (src_pinned) {
    std::memcpy(dst, src, bytes);
    return 0;
  }
  return staged_copy(dst, src, bytes);
}

std::size_t CpuDevice::transfer_to_host(void* dst, const void* src, std::size_t bytes, bool dst_pinned) {
  if (dst_pinned) {
    std::memcpy(dst, src, bytes);
    return 0;
  }
  return staged_copy(dst, src, bytes);
}

hsa_signal_t CpuDevice::create_signal(std::int64_t initial) { return agent::create_soft_signal(initial); }
void CpuDevice::destroy_signal(hsa_signal_t signal) noexcept { agent::destroy_soft_signal(signal); }
void CpuDevice::store_signal(hsa_signal_t signal, std::int64_t value) {
  // A non-zero store only arms a signal (every waiter waits for 0): a seq_cst exchange and a
  // look at the waiters would stall each submit on a line the processor wrote last.
  if (value != 0) agent::signal_arm(signal, value);
  else agent::signal_store(signal, value);
}

std::int64_t CpuDevice::load_signal(hsa_signal_t signal) { return agent::signal_load(signal); }

bool CpuDevice::wait_signal_zero(hsa_signal_t signal, detail::Clock::time_point deadline,
                                 const std::function<void()>& check) {
  return agent::signal_wait_zero(signal, deadline, check);
}

void CpuDevice::async_copy(const detail::Copy&, const hsa_signal_t*, std::uint32_t, hsa_signal_t, std::vector<void*>&) {
  throw Error(Errc::unsupported, "cpu", "async_copy", "the cpu agent copies through its queues' packets, not a copy engine");
}

void CpuDevice::command_times(hsa_signal_t signal, bool, std::uint64_t* start_ns, std::uint64_t* end_ns) {
  const auto* s = reinterpret_cast<const agent::SoftSignal*>(signal.handle);
  *start_ns = s->start_ts;
  *end_ns = s->end_ts;
}

// Kernarg memory is memory the agent reads directly: like ROCr's kernarg pool it comes from the
// operating system (fresh pages, page-locked), so allocating it costs a trip into the kernel.
void* CpuDevice::alloc_kernarg(std::size_t bytes) {
  const std::size_t total = page_round(bytes + kKernargHeader);
  void* p = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw Error(Errc::out_of_memory, "cpu", "alloc_kernarg", "mmap of " + std::to_string(total) + " bytes failed");
  (void)mlock(p, total);
  *static_cast<std::size_t*>(p) = total;  // the mapping's length, for munmap
  return static_cast<unsigned char*>(p) + kKernargHeader;
}

void CpuDevice::free_kernarg(void* ptr) noexcept {
  void* base = static_cast<unsigned char*>(ptr) - kKernargHeader;
  munmap(base, *static_cast<std::size_t*>(base));
}

}  // namespace hsad::cpu
