// The packet processor's loop: consume in order, block at barriers, complete out of order.
#include "backends/cpu/packet_processor.hpp"

#include <cstring>

#include "backends/cpu/futex.hpp"
#include "backends/cpu/signal_ops.hpp"

namespace hsad::cpu {
namespace {
constexpr std::uint32_t kInvalidWord = HSA_PACKET_TYPE_INVALID << HSA_PACKET_HEADER_TYPE;

std::uint32_t ceil_div(std::uint32_t a, std::uint32_t b) { return (a + b - 1) / b; }
}  // namespace

PacketProcessor::PacketProcessor(RingView ring, WorkerPool& pool, ProcessorHooks hooks)
    : ring_(ring), pool_(pool), hooks_(std::move(hooks)) {
  thread_ = std::thread([this] { main(); });
}

PacketProcessor::~PacketProcessor() {
  stop_.store(true, std::memory_order_release);
  signal_store(ring_.doorbell, signal_load(ring_.doorbell));  // wakes a sleeping processor
  thread_.join();
  // Dispatches still running read this object's jobs: let them end first.
  while (in_flight_.load(std::memory_order_acquire) != 0) {
    if (!pool_.help()) std::this_thread::yield();
  }
  for (auto& j : jobs_) {
    while (j.users() != 0) std::this_thread::yield();
  }
}

std::string PacketProcessor::error() const {
  std::lock_guard<std::mutex> lock(error_mutex_);
  return error_;
}

void PacketProcessor::fail(const std::string& what) {
  {
    std::lock_guard<std::mutex> lock(error_mutex_);
    if (!error_.empty()) return;
    error_ = what;
  }
  failed_.store(true, std::memory_order_release);
  if (hooks_.on_error) hooks_.on_error(what);
}

void PacketProcessor::complete(hsa_signal_t signal) {
  if (signal.handle != 0) signal_subtract(signal, 1);
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
  while (in_flight_.load(std::memory_order_acquire) != 0) {
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
    alignas(64) unsigned char packet[aql::kPacketBytes];
    std::memcpy(packet, slot, sizeof(packet));
    // The slot is free for the producer once its header is INVALID again and read_index passed it.
    __atomic_store_n(reinterpret_cast<std::uint32_t*>(slot), kInvalidWord, __ATOMIC_RELAXED);
    __atomic_store_n(ring_.read_index, index + 1, __ATOMIC_RELEASE);
    const std::uint64_t id = index++;

    // The header was read with acquire: the packet body and what the producer wrote before it
    // are visible. A barrier waits for earlier packets, whose completion was released.
    if (header.barrier) wait_all_complete();

    switch (header.type) {
      case HSA_PACKET_TYPE_KERNEL_DISPATCH:
        execute_dispatch(*reinterpret_cast<const hsa_kernel_dispatch_packet_t*>(packet), id);
        break;
      case HSA_PACKET_TYPE_BARRIER_AND:
      case HSA_PACKET_TYPE_BARRIER_OR:
        execute_barrier(*reinterpret_cast<const hsa_barrier_and_packet_t*>(packet),
                        header.type == HSA_PACKET_TYPE_BARRIER_OR);
        break;
      default: {
        // Vendor-specific and agent dispatch packets have no meaning here: count, complete.
        ignored_.fetch_add(1, std::memory_order_relaxed);
        if (hooks_.trace) hooks_.trace({ring_.queue_id, id, header, {}, {}, {}, false});
        complete(reinterpret_cast<const hsa_barrier_and_packet_t*>(packet)->completion_signal);
      }
    }
  }
}

void PacketProcessor::execute_barrier(const hsa_barrier_and_packet_t& p, bool any) {
  if (hooks_.trace) {
    hooks_.trace({ring_.queue_id, 0, aql::decode(p.header), {}, {}, {}, p.completion_signal.handle != 0});
  }
  int idle = 0;
  for (;;) {
    int pending = 0, live = 0;
    for (const hsa_signal_t& dep : p.dep_signal) {
      if (dep.handle == 0) continue;
      ++live;
      pending += signal_load(dep) != 0;
    }
    const bool satisfied = any ? (live == 0 || pending < live) : pending == 0;
    if (satisfied) break;
    if (stop_.load(std::memory_order_acquire)) return;
    if (pool_.help()) continue;
    if (++idle > 256) std::this_thread::sleep_for(std::chrono::microseconds(20));
    else cpu_relax();
  }
  complete(p.completion_signal);
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
    return fail("packet " + std::to_string(id) + ": kernel_object " + hex + " names no known kernel");
  }
  if (grid.volume() == 0 || group.volume() == 0) {
    return fail("packet " + std::to_string(id) + " (" + kernel->info.name + "): empty grid or work-group");
  }
  if (hooks_.fault) {
    std::string fault = hooks_.fault(ordinal, *kernel);
    if (!fault.empty()) return fail(fault);
  }

  Job& job = free_job();
  job.kernel = kernel;
  job.kernarg = p.kernarg_address;
  job.grid = grid;
  job.group = group;
  job.groups = Dim3{ceil_div(grid.x, group.x), ceil_div(grid.y, group.y), ceil_div(grid.z, group.z)};
  job.total = job.groups.volume();
  job.completion_signal = p.completion_signal.handle;
  job.packet_id = id;
  job.sink = this;
  job.prepare();
  in_flight_.fetch_add(1, std::memory_order_acq_rel);
  const std::uint64_t threads = pool_.threads();
  // Small chunks: a thread preempted while holding one delays the dispatch by one chunk only.
  job.chunk = job.total / (threads * 8) ? job.total / (threads * 8) : 1;
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
  if (job.failed()) {
    fail("packet " + std::to_string(job.packet_id) + ": kernel '" + job.kernel->info.name + "' failed: " + job.error());
  } else {
    complete(hsa_signal_t{job.completion_signal});
  }
  const std::size_t index = static_cast<std::size_t>(&job - jobs_);
  job_busy_[index].store(false, std::memory_order_release);
  in_flight_.fetch_sub(1, std::memory_order_acq_rel);
}

}  // namespace hsad::cpu
