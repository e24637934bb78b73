// The packet processor's loop: consume in order, block at barriers, complete out of order.
#include "agent/packet_processor.hpp"

#include <time.h>

#include <algorithm>
#include <cstring>

#include "agent/futex.hpp"
#include "agent/signal_ops.hpp"

namespace hsad::agent {
namespace {
constexpr std::uint32_t kInvalidWord = HSA_PACKET_TYPE_INVALID << HSA_PACKET_HEADER_TYPE;
// Copies at least this large are cut into pieces of kCopyPiece that the worker pool runs.
constexpr std::size_t kParallelCopyBytes = 1 << 20;
constexpr std::size_t kCopyPiece = 256 << 10;
constexpr std::size_t kStagingBytes = 1 << 20;

std::uint32_t ceil_div(std::uint32_t a, std::uint32_t b) { return (a + b - 1) / b; }

struct CopyArgs {
  unsigned char* dst;
  const unsigned char* src;
  std::uint64_t bytes;
};

// One piece of a parallel copy per "work-group".
void copy_piece(const WorkGroup& wg) {
  const CopyArgs& a = wg.args<CopyArgs>();
  const std::uint64_t begin = std::uint64_t(wg.id.x) * kCopyPiece;
  const std::uint64_t n = std::min<std::uint64_t>(kCopyPiece, a.bytes - begin);
  std::memmove(a.dst + begin, a.src + begin, n);
}

const HostKernel& copy_kernel() {
  static const HostKernel k = [] {
    HostKernel h;
    h.info.name = "copy";
    h.fn = &copy_piece;
    return h;
  }();
  return k;
}
}  // namespace

std::uint64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return std::uint64_t(ts.tv_sec) * 1'000'000'000ull + std::uint64_t(ts.tv_nsec);
}

PacketProcessor::PacketProcessor(RingView ring, WorkerPool& pool, ProcessorHooks hooks)
    : ring_(ring), pool_(pool), hooks_(std::move(hooks)) {
  thread_ = std::thread([this] {
    main();
    exited_.store(true, std::memory_order_release);
  });
}

PacketProcessor::~PacketProcessor() {
  // Without a bound: an owner that may face stuck work calls stop(grace) first.
  while (!stop(std::chrono::hours(1))) {
  }
}

bool PacketProcessor::stop(std::chrono::milliseconds grace) {
  const auto deadline = std::chrono::steady_clock::now() + grace;
  stop_.store(true, std::memory_order_release);
  cancel_.store(true, std::memory_order_release);
  signal_store(ring_.doorbell, signal_load(ring_.doorbell));  // wakes a sleeping processor
  const auto in_time = [&] { return std::chrono::steady_clock::now() < deadline; };
  while (!exited_.load(std::memory_order_acquire) && in_time()) std::this_thread::sleep_for(std::chrono::microseconds(200));
  if (!exited_.load(std::memory_order_acquire)) {
    if (thread_.joinable()) thread_.detach();  // inside a work-group that does not return
    return false;
  }
  if (thread_.joinable()) thread_.join();
  // Dispatches still running read this object's jobs: let them end first (cancelled, they start
  // no more work-groups).
  while (in_flight_.load(std::memory_order_acquire) != 0 && in_time()) {
    if (!pool_.help()) std::this_thread::yield();
  }
  // A worker may have read one of these jobs from its slot just before it left it: once it counts
  // among the job's users, users() says so (WorkerPool::quiesce).
  if (!pool_.quiesce(deadline)) return false;
  for (auto& j : jobs_) {
    while (j.users() != 0 && in_time()) std::this_thread::yield();
  }
  if (in_flight_.load(std::memory_order_acquire) != 0) return false;
  for (auto& j : jobs_) {
    if (j.users() != 0) return false;
  }
  return true;
}

bool PacketProcessor::quiet() const {
  if (!exited_.load(std::memory_order_acquire) || in_flight_.load(std::memory_order_acquire) != 0) return false;
  for (const auto& j : jobs_) {
    if (j.users() != 0) return false;
  }
  return true;
}

std::string PacketProcessor::error() const {
  std::lock_guard<std::mutex> lock(error_mutex_);
  return error_;
}

void PacketProcessor::fail(QueueFault fault, std::uint64_t packet) {
  {
    std::lock_guard<std::mutex> lock(error_mutex_);
    if (!error_.empty()) return;
    error_ = fault.what;
  }
  failed_packet_.store(packet, std::memory_order_release);
  failed_.store(true, std::memory_order_release);
  if (hooks_.on_error) hooks_.on_error(fault);
}

bool PacketProcessor::profiling() const {
  return ring_.profiling_word && (__atomic_load_n(ring_.profiling_word, __ATOMIC_RELAXED) & ring_.profiling_mask) != 0;
}

void PacketProcessor::complete(hsa_signal_t signal, std::uint64_t start_ns, aql::Scope release) {
  if (hooks_.release) hooks_.release(release, signal.handle != 0);
  if (signal.handle == 0) return;
  if (start_ns && profiling()) {
    // amd_signal_t's start_ts and end_ts, written before the decrement that a waiter sees.
    auto* ts = reinterpret_cast<std::uint64_t*>(signal.handle + 32);
    ts[0] = start_ns;
    ts[1] = now_ns();
  }
  signal_subtract(signal, 1);
  if (hooks_.on_signal) hooks_.on_signal(signal);
}

bool PacketProcessor::idle_wait(std::uint64_t index) {
  // Work in flight: help it along instead of sleeping.
  if (in_flight_.load(std::memory_order_acquire) != 0 && pool_.help()) return true;
  const void* slot = static_cast<const unsigned char*>(ring_.base) + (index & (ring_.size - 1)) * aql::kPacketBytes;
  // Packets of one batch arrive microseconds apart: stay awake that long, then sleep.
  const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
  for (int i = 0;; ++i) {
    if ((aql::load_header_acquire(slot) & 0xff) != HSA_PACKET_TYPE_INVALID) return true;
    if ((i & 7) == 7 && std::chrono::steady_clock::now() >= spin_until) break;
    std::this_thread::yield();  // the producer may be waiting for this core
  }
  // Sleep on the doorbell's value; a producer's ring wakes us. The slice bounds the wait for a
  // producer that stores the doorbell without waking (ROCr on the simulated GPU).
  auto* waiters = reinterpret_cast<std::uint32_t*>(ring_.doorbell.handle + 28);
  __atomic_fetch_add(waiters, 1, __ATOMIC_SEQ_CST);
  const std::int64_t seen = __atomic_load_n(reinterpret_cast<std::int64_t*>(ring_.doorbell.handle + 8), __ATOMIC_SEQ_CST);
  if ((aql::load_header_acquire(slot) & 0xff) == HSA_PACKET_TYPE_INVALID && !stop_.load(std::memory_order_acquire)) {
    futex_wait(reinterpret_cast<const std::uint32_t*>(ring_.doorbell.handle + 8), static_cast<std::uint32_t>(seen),
               ring_.idle_slice);
  }
  __atomic_fetch_sub(waiters, 1, __ATOMIC_SEQ_CST);
  return false;
}

void PacketProcessor::wait_all_complete() {
  while (in_flight_.load(std::memory_order_acquire) != 0 && !stop_.load(std::memory_order_acquire)) {
    if (!pool_.help()) std::this_thread::yield();  // a preempted worker holds the last chunk
  }
}

void PacketProcessor::main() {
  std::uint64_t index = __atomic_load_n(ring_.read_index, __ATOMIC_ACQUIRE);
  const std::uint64_t mask = ring_.size - 1;
  while (!stop_.load(std::memory_order_acquire)) {
    auto* slot = static_cast<unsigned char*>(ring_.base) + (index & mask) * aql::kPacketBytes;
    const std::uint16_t bits = aql::load_header_acquire(slot);
    const aql::Header header = aql::decode(bits);
    if (header.type == HSA_PACKET_TYPE_INVALID || failed()) {
      // A failed queue consumes nothing more, as a GPU queue in error.
      if (failed()) {
        futex_wait(reinterpret_cast<const std::uint32_t*>(ring_.doorbell.handle + 8),
                   static_cast<std::uint32_t>(signal_load(ring_.doorbell)), std::chrono::milliseconds(5));
      } else {
        idle_wait(index);
      }
      continue;
    }
    // The header was read with acquire: the packet body and what the producer wrote before it
    // are visible. A barrier waits for earlier packets, whose completion was released, before the
    // packet is consumed: so the read index passes only packets that started, and after a fault
    // the last packet consumed is the one that faulted, as on AMD's command processor.
    if (header.barrier) {
      wait_all_complete();
      if (stop_.load(std::memory_order_acquire)) break;
      if (failed()) continue;
    }
    alignas(64) unsigned char packet[aql::kPacketBytes];
    std::memcpy(packet, slot, sizeof(packet));
    // A barrier packet acquires once its dependencies are met (execute_barrier): what the agents
    // it waits for wrote is what its acquire must make visible, as a GPU's command processor does.
    const bool waits = header.type == HSA_PACKET_TYPE_BARRIER_AND || header.type == HSA_PACKET_TYPE_BARRIER_OR;
    if (hooks_.acquire && header.acquire != aql::Scope::none && !waits) hooks_.acquire(header.acquire);
    // The slot is free for the producer once its header is INVALID again and read_index passed it.
    __atomic_store_n(reinterpret_cast<std::uint32_t*>(slot), kInvalidWord, __ATOMIC_RELAXED);
    __atomic_store_n(ring_.read_index, index + 1, __ATOMIC_RELEASE);
    const std::uint64_t id = index++;

    switch (header.type) {
      case HSA_PACKET_TYPE_KERNEL_DISPATCH:
        execute_dispatch(*reinterpret_cast<const hsa_kernel_dispatch_packet_t*>(packet), id);
        break;
      case HSA_PACKET_TYPE_BARRIER_AND:
      case HSA_PACKET_TYPE_BARRIER_OR:
        execute_barrier(*reinterpret_cast<const hsa_barrier_and_packet_t*>(packet),
                        header.type == HSA_PACKET_TYPE_BARRIER_OR);
        break;
      case HSA_PACKET_TYPE_AGENT_DISPATCH:
        execute_agent_dispatch(*reinterpret_cast<const hsa_agent_dispatch_packet_t*>(packet), id);
        break;
      case HSA_PACKET_TYPE_VENDOR_SPECIFIC:
        execute_vendor(packet, id);
        break;
      default:
        fail({"packet " + std::to_string(id) + ": AQL packet type " + std::to_string(int(header.type)) +
                  " is not one the packet processor knows",
              std::nullopt},
             id);
    }
  }
}

void PacketProcessor::execute_barrier(const hsa_barrier_and_packet_t& p, bool any) {
  if (hooks_.trace) {
    hooks_.trace({ring_.queue_id, 0, aql::decode(p.header), {}, {}, {}, p.completion_signal.handle != 0});
  }
  // A profiled queue's barrier packets get their times too: HIP's events are barrier packets
  // whose start and end hipEventElapsedTime reads.
  const std::uint64_t start = profiling() ? now_ns() : 0;
  const bool met = wait_until([&] {
    int pending = 0, live = 0;
    for (const hsa_signal_t& dep : p.dep_signal) {
      if (dep.handle == 0) continue;
      ++live;
      pending += signal_load(dep) != 0;
    }
    return any ? (live == 0 || pending < live) : pending == 0;
  });
  if (!met) return;
  const aql::Header header = aql::decode(p.header);
  if (hooks_.acquire && header.acquire != aql::Scope::none) hooks_.acquire(header.acquire);
  complete(p.completion_signal, start, header.release);
}

void PacketProcessor::staged_copy(void* dst, const void* src, std::size_t bytes) {
  // Pageable memory reaches the agent only through its registered staging buffer, as a DMA
  // engine's does: one bounce per piece.
  if (staging_.empty()) staging_.resize(kStagingBytes);
  for (std::size_t done = 0; done < bytes; done += kStagingBytes) {
    const std::size_t n = std::min(kStagingBytes, bytes - done);
    std::memcpy(staging_.data(), static_cast<const unsigned char*>(src) + done, n);
    std::memcpy(static_cast<unsigned char*>(dst) + done, staging_.data(), n);
  }
}

void PacketProcessor::execute_agent_dispatch(const hsa_agent_dispatch_packet_t& p, std::uint64_t id) {
  const aql::Header header = aql::decode(p.header);
  if (p.type != aql::kAgentCopy) {
    ignored_.fetch_add(1, std::memory_order_relaxed);
    if (hooks_.trace) hooks_.trace({ring_.queue_id, id, header, {}, {}, {}, p.completion_signal.handle != 0});
    return complete(p.completion_signal, 0, header.release);
  }
  auto* dst = reinterpret_cast<unsigned char*>(p.arg[0]);
  const auto* src = reinterpret_cast<const unsigned char*>(p.arg[1]);
  const std::uint64_t bytes = p.arg[2];
  if (hooks_.trace) hooks_.trace({ring_.queue_id, id, header, "copy", Dim3{}, Dim3{}, p.completion_signal.handle != 0});
  const std::uint64_t start = now_ns();
  if (p.arg[3] & aql::kCopyStaged) {
    staged_copy(dst, src, bytes);
  } else if (bytes >= kParallelCopyBytes && pool_.threads() > 1) {
    Job& job = free_job();
    job.kernel = &copy_kernel();
    const CopyArgs args{dst, src, bytes};
    static_assert(sizeof(args) <= sizeof(job.inline_args));
    std::memcpy(job.inline_args, &args, sizeof args);
    job.kernarg = job.inline_args;
    job.has_packet = false;
    const auto pieces = static_cast<std::uint32_t>((bytes + kCopyPiece - 1) / kCopyPiece);
    job.grid = job.groups = Dim3{pieces};
    job.group = Dim3{1};
    job.group_memory = 0;
    job.cooperative = false;
    job.total = pieces;
    job.chunk = 1;
    job.completion_signal = p.completion_signal.handle;
    job.packet_id = id;
    job.start_ns = start;
    job.sink = this;
    job.cancel = &cancel_;
    job.queue_context = ring_.context;
    job.prepare();
    in_flight_.fetch_add(1, std::memory_order_acq_rel);
    while (!pool_.post(job)) {
      if (!pool_.help()) cpu_relax();
    }
    return;
  } else {
    std::memmove(dst, src, bytes);
  }
  complete(p.completion_signal, start, header.release);
}

Job& PacketProcessor::free_job() {
  for (;;) {
    for (std::size_t i = 0; i < kJobs; ++i) {
      if (!job_busy_[i].load(std::memory_order_acquire) && jobs_[i].users() == 0) {
        job_busy_[i].store(true, std::memory_order_relaxed);
        return jobs_[i];
      }
    }
    if (!pool_.help()) cpu_relax();
  }
}

void PacketProcessor::execute_dispatch(const hsa_kernel_dispatch_packet_t& p, std::uint64_t id) {
  const Dim3 grid{p.grid_size_x, p.grid_size_y, p.grid_size_z};
  const Dim3 group{p.workgroup_size_x, p.workgroup_size_y, p.workgroup_size_z};
  const HostKernel* kernel = hooks_.resolve ? hooks_.resolve(p.kernel_object) : nullptr;
  if (hooks_.trace) {
    hooks_.trace({ring_.queue_id, id, aql::decode(p.header), kernel ? kernel->info.name : std::string("?"), grid,
                  group, p.completion_signal.handle != 0});
  }
  const std::uint64_t ordinal = dispatch_ordinal_++;
  if (!kernel) {
    char hex[32];
    std::snprintf(hex, sizeof(hex), "0x%llx", static_cast<unsigned long long>(p.kernel_object));
    return fail({"packet " + std::to_string(id) + ": kernel_object " + hex + " names no known kernel", std::nullopt}, id);
  }
  if (grid.volume() == 0 || group.volume() == 0) {
    return fail({"packet " + std::to_string(id) + " (" + kernel->info.name + "): empty grid or work-group", std::nullopt}, id);
  }
  if (hooks_.fault) {
    std::string fault = hooks_.fault(ordinal, *kernel);
    if (!fault.empty()) return fail({fault, std::nullopt}, id);
  }

  Job& job = free_job();
  job.kernel = kernel;
  job.kernarg = p.kernarg_address;
  static_assert(sizeof(job.packet) == sizeof(p));
  std::memcpy(job.packet, &p, sizeof(p));
  job.has_packet = true;
  job.grid = grid;
  job.group = group;
  // The packet's group segment holds the static and the dynamic group memory (never less than
  // the kernel's static use, whoever wrote the packet).
  job.group_memory = std::max(p.group_segment_size, kernel->info.group_segment_size);
  job.cooperative = (p.reserved2 & aql::kCooperativeMark) != 0;
  job.groups = Dim3{ceil_div(grid.x, group.x), ceil_div(grid.y, group.y), ceil_div(grid.z, group.z)};
  job.total = job.groups.volume();
  job.completion_signal = p.completion_signal.handle;
  job.packet_id = id;
  job.start_ns = profiling() ? now_ns() : 0;
  job.sink = this;
  job.cancel = &cancel_;
  job.queue_context = ring_.context;
  job.prepare();
  in_flight_.fetch_add(1, std::memory_order_acq_rel);
  const std::uint64_t threads = pool_.threads();
  // Small chunks: a thread preempted while holding one delays the dispatch by one chunk only.
  job.chunk = job.total / (threads * 8) ? job.total / (threads * 8) : 1;
  if (job.cooperative) job.chunk = job.total;  // one worker starts them all, each on its own thread
  // A dispatch of a couple of work-groups gains less from other threads than the hand-off costs.
  if (job.total <= kInlineGroups) {
    WorkerPool::run_inline(job);
    job_done(job);
    return;
  }
  while (!pool_.post(job)) {
    if (!pool_.help()) cpu_relax();
  }
}

void PacketProcessor::job_done(Job& job) {
  if (stop_.load(std::memory_order_acquire)) {
    // Stopping: nobody waits for it any more, and a cancelled dispatch is no kernel's fault.
  } else if (job.failed()) {
    fail({"packet " + std::to_string(job.packet_id) + ": kernel '" + job.kernel->info.name + "' failed: " + job.error(),
          job.access()},
         job.packet_id);
  } else {
    // A dispatch's release is its packet's; the processor's own parallel copy has no packet (the
    // cpu agent's, whose memory has no cache to fence).
    const aql::Scope release =
        job.has_packet ? aql::decode(*reinterpret_cast<const std::uint16_t*>(job.packet)).release : aql::Scope::none;
    complete(hsa_signal_t{job.completion_signal}, job.start_ns, release);
  }
  const std::size_t index = static_cast<std::size_t>(&job - jobs_);
  job_busy_[index].store(false, std::memory_order_release);
  in_flight_.fetch_sub(1, std::memory_order_acq_rel);
}

}  // namespace hsad::agent
