// One PacketProcessor per ROCr queue, sharing one worker pool. Everything a test needs to see
// what really reached a queue goes through the processor's trace hook (HSAD_SIM_TRACE).
#include "sim_queue.hpp"

#include <hsa/amd_hsa_queue.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "agent/host_machine.hpp"
#include "agent/packet_processor.hpp"
#include "agent/signal_ops.hpp"
#include "hsad/host_kernel.hpp"
#include "l2_cache.hpp"
#include "sim_cache_report.hpp"
#include "sim_code_object.hpp"
#include "sim_config.hpp"
#include "sim_events.hpp"
#include "sim_isa.hpp"
#include "sim_memory.hpp"
#include "sim_sdma.hpp"

namespace hsad::sim {
namespace {

// ROCr's blit kernels (amd_blit_kernel.cpp) take (source, destination) address pairs, 16 bytes
// each: the start of every phase, then the ends; then the work-item count.
std::uint32_t u32_at(const void* kernarg, std::size_t offset) {
  std::uint32_t v;
  std::memcpy(&v, static_cast<const unsigned char*>(kernarg) + offset, 4);
  return v;
}
std::uint64_t u64_at(const void* kernarg, std::size_t offset) {
  std::uint64_t v;
  std::memcpy(&v, static_cast<const unsigned char*>(kernarg) + offset, 8);
  return v;
}

// The (source, destination) pairs of a copy: phase starts, then the ends. A consistent copy
// moves the same number of bytes on both sides and its phases are in order.
bool consistent_copy(const void* k, int pairs) {
  std::uint64_t prev_s = 0, prev_d = 0;
  for (int i = 0; i < pairs; ++i) {
    const std::uint64_t s = u64_at(k, 16 * i), d = u64_at(k, 16 * i + 8);
    if (s < prev_s || d < prev_d || s - u64_at(k, 0) != d - u64_at(k, 8)) return false;
    prev_s = s, prev_d = d;
  }
  return true;
}

// A blit kernel's copy, as memmove: it runs on the GPU, so it reads what the GPU's L2 holds and
// its writes replace what the L2 held of the destination (the cache model).
void blit_copy(std::uint32_t node, std::uint64_t dst, std::uint64_t src, std::uint64_t bytes) {
  // GPU addresses: user memory registered for the GPU may lie elsewhere in this process.
  const std::uint64_t to = host_address(dst, bytes), from = host_address(src, bytes);
  if (!to || !from) throw std::runtime_error("hsad-sim: a ROCr blit copy of memory no GPU may reach");
  before_engine_copy(node, dst, src, bytes);
  std::memmove(reinterpret_cast<void*>(to), reinterpret_cast<const void*>(from), bytes);
  after_engine_copy(node, dst, bytes);
}

// One work-group does the whole blit: the processor runs the rest as no-ops.
void blit(const WorkGroup& wg) {
  if (wg.id.x != 0 || wg.id.y != 0 || wg.id.z != 0) return;
  const void* k = wg.kernarg;
  const auto* queue = static_cast<const QueueContext*>(wg.queue_context);
  const std::uint32_t node = queue ? queue->node : 0;
  if (u32_at(k, 80) == wg.grid.x && consistent_copy(k, 5)) {  // CopyAligned: 4 phases + ends
    blit_copy(node, u64_at(k, 8), u64_at(k, 0), u64_at(k, 64) - u64_at(k, 0));
  } else if (u32_at(k, 48) == wg.grid.x && consistent_copy(k, 3)) {  // CopyMisaligned: 2 phases + ends
    blit_copy(node, u64_at(k, 8), u64_at(k, 0), u64_at(k, 32) - u64_at(k, 0));
  } else if (u32_at(k, 28) == wg.grid.x) {  // Fill: 2 phases + end, value, work-items
    const std::uint32_t value = u32_at(k, 24);
    const std::uint64_t lo = u64_at(k, 0), hi = u64_at(k, 16);
    const std::uint64_t at = hi > lo ? host_address(lo, hi - lo) : lo;
    if (!at) throw std::runtime_error("hsad-sim: a ROCr blit fill of memory no GPU may reach");
    before_engine_copy(node, lo, 0, hi > lo ? hi - lo : 0);
    for (std::uint64_t p = at; p + 4 <= at + (hi - lo); p += 4) std::memcpy(reinterpret_cast<void*>(p), &value, 4);
    after_engine_copy(node, lo, hi > lo ? hi - lo : 0);
  } else {
    // Named with what it was given, for whoever teaches the simulator its layout.
    std::string words;
    for (std::size_t off = 0; off < 96; off += 8) {
      char b[24];
      std::snprintf(b, sizeof b, " %llx", static_cast<unsigned long long>(u64_at(k, off)));
      words += b;
    }
    throw std::runtime_error("hsad-sim: a ROCr blit kernel with an unknown argument layout (grid " +
                             std::to_string(wg.grid.x) + ", kernarg" + words + ")");
  }
}

const HostKernel& blit_kernel() {
  static const HostKernel k = [] {
    HostKernel h;
    h.info.name = "rocr_blit";
    h.fn = &blit;
    return h;
  }();
  return k;
}

std::mutex resolve_mutex;
std::map<std::uint64_t, const HostKernel*>& resolved() {
  static auto* m = new std::map<std::uint64_t, const HostKernel*>();
  return *m;
}

// What runs a dispatch of `object`: ROCr's blits as memmove and fill; a kernel of a loaded code
// object as its machine code (isa) or its host build (host). In isa mode a kernel that uses an
// instruction the interpreter lacks runs its host build where there is one (said once on
// stderr), and its machine code otherwise: the unknown instruction then stops it with an error.
const HostKernel* resolve_uncached(std::uint64_t object) {
  const auto loaded = LoadedCodeObject::at(object);
  const std::string name = loaded ? loaded->kernel_at(object) : std::string();
  if (name.empty()) return &blit_kernel();
  const HostKernel* host = find_host_kernel(name);
  if (config().exec == Exec::host) return host;
  try {
    const IsaKernel isa = isa_kernel(object, name);
    if (isa.fully_decoded || !host) return isa.host_kernel;
    std::fprintf(stderr, "hsad-sim: kernel '%s' uses instructions the ISA interpreter lacks (%s): its host build runs\n",
                 name.c_str(), isa.unknown.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hsad-sim: %s%s\n", e.what(), host ? ": its host build runs" : "");
  }
  return host;
}

const HostKernel* resolve(std::uint64_t object) {
  std::lock_guard<std::mutex> lock(resolve_mutex);
  if (auto it = resolved().find(object); it != resolved().end()) return it->second;
  const HostKernel* k = resolve_uncached(object);
  resolved()[object] = k;
  return k;
}

// The loader frees a code object: what was resolved or decoded in it is forgotten (the next
// code object may be placed at the same address).
void forget_code(std::uint64_t base, std::uint64_t size) {
  {
    std::lock_guard<std::mutex> lock(resolve_mutex);
    auto& m = resolved();
    m.erase(m.lower_bound(base), m.lower_bound(base + size));
  }
  forget_isa_code(base, size);
}

const char* scope_name(aql::Scope s) {
  return s == aql::Scope::system ? "system" : s == aql::Scope::agent ? "agent" : "none";
}
const char* type_name(hsa_packet_type_t t) {
  switch (t) {
    case HSA_PACKET_TYPE_KERNEL_DISPATCH: return "kernel_dispatch";
    case HSA_PACKET_TYPE_BARRIER_AND: return "barrier_and";
    case HSA_PACKET_TYPE_BARRIER_OR: return "barrier_or";
    case HSA_PACKET_TYPE_VENDOR_SPECIFIC: return "vendor_specific";
    default: return "other";
  }
}

void trace(const agent::PacketRecord& r) {
  static std::mutex mutex;
  static FILE* out = config().trace_path.empty() ? nullptr : std::fopen(config().trace_path.c_str(), "w");
  if (!out) return;
  std::lock_guard<std::mutex> lock(mutex);
  std::fprintf(out, "queue=%llu packet=%llu type=%s barrier=%d acquire=%s release=%s kernel=%s grid=%ux%ux%u group=%ux%ux%u signal=%d\n",
               static_cast<unsigned long long>(r.queue_id), static_cast<unsigned long long>(r.packet_id),
               type_name(r.header.type), r.header.barrier ? 1 : 0, scope_name(r.header.acquire),
               scope_name(r.header.release), r.kernel.empty() ? "-" : r.kernel.c_str(), r.grid.x, r.grid.y, r.grid.z,
               r.group.x, r.group.y, r.group.z, r.has_completion_signal ? 1 : 0);
  std::fflush(out);
}

// User dispatches (not ROCr's blits) counted across every queue, for HSAD_SIM_FAULT.
std::string fault(std::uint64_t, const HostKernel& k) {
  static std::atomic<std::uint64_t> user_dispatches{0};
  if (&k == &blit_kernel() || config().fault_at == 0) return {};
  const std::uint64_t n = user_dispatches.fetch_add(1) + 1;
  if (n != config().fault_at) return {};
  return "HSAD_SIM_FAULT: user dispatch " + std::to_string(n) + " (" + k.info.name + ") faulted";
}

// What the driver does on a queue error (KFD's send_exception_work_handler): where the queue's
// context-save area names an error-reason word (ROCr's exception signal's value, when runtime
// enable succeeded), bit (EC - 1) is set there, EC_QUEUE_WAVE_TRAP = 2, which ROCr's
// ExceptionHandler maps to HSA_STATUS_ERROR_EXCEPTION and passes to the queue's callback, and the
// event the header names is set. Without one, the older path: the CP's trap code 0x80000000 in
// the queue's inactive signal.
constexpr std::uint64_t kWaveTrapException = std::uint64_t(1) << (2 - 1);
constexpr std::int64_t kCpTrapCode = 0x80000000;
constexpr std::uint64_t kErrorReasonAt = 24, kErrorEventAt = 32;  // kfd_context_save_area_header

void report_queue_error(std::uint64_t* read_index, std::uint64_t context_save_area) {
  if (context_save_area) {
    const auto* header = reinterpret_cast<const unsigned char*>(context_save_area);
    std::uint64_t reason_at = 0;
    std::uint32_t event = 0;
    std::memcpy(&reason_at, header + kErrorReasonAt, 8);
    std::memcpy(&event, header + kErrorEventAt, 4);
    if (reason_at) {
      __atomic_fetch_or(reinterpret_cast<std::uint64_t*>(reason_at), kWaveTrapException, __ATOMIC_ACQ_REL);
      if (event) set_event(event);
      return;
    }
  }
  auto* q = reinterpret_cast<amd_queue_t*>(reinterpret_cast<unsigned char*>(read_index) - offsetof(amd_queue_t, read_dispatch_id));
  auto* value = reinterpret_cast<std::int64_t*>(q->queue_inactive_signal.handle + 8);
  __atomic_store_n(value, kCpTrapCode, __ATOMIC_RELEASE);
  signal_updated(reinterpret_cast<const amd_signal_t*>(q->queue_inactive_signal.handle));
}

// ROCr never wakes the processor (it only stores the doorbell): look at the ring this often.
constexpr std::chrono::microseconds kIdleSlice{100};

agent::WorkerPool& pool() {
  // One worker per usable CPU but one, as the cpu agent sizes its pool (and one on one CPU).
  static auto* p = new agent::WorkerPool(std::max(1u, agent::usable_cpus() - 1));  // lives to exit
  return *p;
}

struct SimQueue {
  QueueContext context;  // outlives the processor, whose work-groups read it
  std::unique_ptr<agent::PacketProcessor> processor;
  ~SimQueue() {
    // The driver preempts the queue's waves: the interpreter stops them at its next check. A host
    // build stuck inside a work-group is left running with what it uses.
    if (!processor->stop(std::chrono::seconds(2))) processor.release();  // NOLINT: reachable from the stuck thread
  }
};

// Why each queue stopped, by its ring: what hsad_sim_queue_error gives the runtime above.
std::mutex errors_mutex;
std::map<const void*, std::string>& queue_errors() {
  static auto* m = new std::map<const void*, std::string>();
  return *m;
}

std::mutex queues_mutex;
std::map<std::uint64_t, std::unique_ptr<SimQueue>>& queues() {
  static auto* m = new std::map<std::uint64_t, std::unique_ptr<SimQueue>>();
  return *m;
}
std::uint64_t next_id = 1;

// Each device's global wave sync resources and the queue holding them (0: none); under queues_mutex.
struct DeviceGws {
  isa::GlobalWaveSync resources;
  std::uint64_t holder = 0;
};
DeviceGws& device_gws(std::uint32_t node) {
  static auto* devices = new std::map<std::uint32_t, DeviceGws>();
  return (*devices)[node];
}

}  // namespace

GwsResult allocate_gws(std::uint64_t queue_id, std::uint32_t count) {
  std::lock_guard<std::mutex> lock(queues_mutex);
  auto it = queues().find(queue_id);
  if (it == queues().end()) return GwsResult::no_queue;
  QueueContext& q = it->second->context;
  DeviceGws& device = device_gws(q.node);
  if (count == 0) {
    if (device.holder == queue_id) device.holder = 0;
    q.gws.store(nullptr, std::memory_order_release);
    return GwsResult::ok;
  }
  if (device.holder != 0 && device.holder != queue_id) return GwsResult::busy;
  device.holder = queue_id;
  q.gws.store(&device.resources, std::memory_order_release);
  return GwsResult::ok;
}

std::uint64_t create_aql_queue(std::uint32_t node, void* ring, std::uint64_t ring_bytes, std::uint64_t* read_index,
                               std::uint64_t context_save_area, hsa_signal_t doorbell) {
  static std::once_flag hook_once;
  std::call_once(hook_once, [] {
    set_release_hook(&forget_code);
    if (config().stats) {
      std::atexit([] {
        const double n = double(isa_instructions_executed()), s = double(isa_busy_ns()) / 1e9;
        std::fprintf(stderr,
                     "hsad-sim: the ISA interpreter executed %.0f wave instructions in %.3f s of thread time "
                     "(%.2f million per second per thread; interpreter built for %s)\n",
                     n, s, s > 0 ? n / s / 1e6 : 0.0, isa_build());
        for (std::uint32_t node = 1; node <= config().gpus; ++node) {
          const isa::L2Cache* l2 = l2_of(node);
          if (!l2) continue;
          const isa::L2Cache::Counters c = l2->counters();
          std::fprintf(stderr,
                       "hsad-sim: GPU %u's modelled L2 (a model's count, not a measurement): %llu system-scope releases "
                       "wrote back %llu lines, %llu system-scope acquires invalidated %llu lines\n",
                       node, static_cast<unsigned long long>(c.write_backs),
                       static_cast<unsigned long long>(c.lines_written_back), static_cast<unsigned long long>(c.invalidations),
                       static_cast<unsigned long long>(c.lines_invalidated));
        }
        if (const std::uint64_t copies = sdma_copies()) {
          std::fprintf(stderr, "hsad-sim: the copy engines (SDMA) executed %llu linear copies, %llu bytes\n",
                       static_cast<unsigned long long>(copies), static_cast<unsigned long long>(sdma_bytes()));
        }
        if (const std::uint64_t reports = cache_reports()) {
          std::fprintf(stderr, "hsad-sim: %llu cache reports (--cache report): memory a GPU's L2 held dirty was read or "
                       "signalled past\n", static_cast<unsigned long long>(reports));
        }
        if (const std::uint64_t outside = isa_lds_accesses_outside()) {
          std::fprintf(stderr, "hsad-sim: %llu LDS accesses outside their work-group's allocation read 0 or wrote nowhere "
                       "(as on the hardware; --strict-lds makes them faults); the first: %s\n",
                       static_cast<unsigned long long>(outside), isa_first_lds_access_outside().c_str());
        }
      });
    }
  });
  {
    std::lock_guard<std::mutex> lock(errors_mutex);
    queue_errors().erase(ring);  // a new queue on a ring that held a failed one
  }
  auto q = std::make_unique<SimQueue>();
  q->context.node = node;
  agent::ProcessorHooks hooks;
  hooks.resolve = &resolve;
  hooks.trace = &trace;
  hooks.fault = [context = &q->context](std::uint64_t ordinal, const HostKernel& k) {
    if (config().cache_report) {
      context->writer.store(isa::writer_tag("kernel '" + k.info.name + "', dispatch " + std::to_string(ordinal + 1) +
                                            " of queue " + std::to_string(context->id) + " on GPU " +
                                            std::to_string(context->node)),
                            std::memory_order_relaxed);
    }
    return fault(ordinal, k);
  };
  hooks.on_signal = [](hsa_signal_t s) { signal_updated(reinterpret_cast<const amd_signal_t*>(s.handle)); };
  hooks.host_address = [](std::uint64_t address, std::uint64_t bytes) {
    return reinterpret_cast<const void*>(host_address(address, bytes));
  };
  // The command processor's cache actions at a packet's fences: only system scope reaches past
  // the agent's L2 (agent scope: the L2 is the agent's point of coherence).
  if (isa::L2Cache* l2 = l2_of(node)) {
    hooks.acquire = [l2](aql::Scope s) {
      if (s == aql::Scope::system) l2->invalidate();
    };
    hooks.release = [l2, node](aql::Scope s, bool signals) {
      if (s == aql::Scope::system) l2->write_back();
      else if (signals) report_signal_release(node, scope_name(s));
    };
  }
  hooks.on_error = [node, read_index, context_save_area, ring](const agent::QueueFault& fault) {
    {
      std::lock_guard<std::mutex> lock(errors_mutex);
      queue_errors()[ring] = fault.what;
    }
    // A memory fault (no XNACK on the simulated target): KFD's memory event, as the real driver
    // raises it; the queue has stopped. Anything else (a trap, an unknown instruction) is a
    // queue exception.
    if (fault.access) {
      std::fprintf(stderr, "hsad-sim: memory fault: %s\n", fault.what.c_str());
      raise_memory_fault(node, fault.access->address, fault.access->write);
      return;
    }
    std::fprintf(stderr, "hsad-sim: queue error: %s\n", fault.what.c_str());
    report_queue_error(read_index, context_save_area);
  };
  std::lock_guard<std::mutex> lock(queues_mutex);
  const std::uint64_t id = next_id++;
  q->context.id = id;
  agent::RingView view{ring, std::uint32_t(ring_bytes / 64), read_index, doorbell, id, kIdleSlice};
  // hsa_amd_profiling_set_profiler_enabled sets this bit of the amd_queue_t around the read index.
  auto* amd_queue = reinterpret_cast<amd_queue_t*>(reinterpret_cast<unsigned char*>(read_index) -
                                                   offsetof(amd_queue_t, read_dispatch_id));
  view.profiling_word = &amd_queue->queue_properties;
  view.profiling_mask = AMD_QUEUE_PROPERTIES_ENABLE_PROFILING;
  view.context = &q->context;
  q->processor = std::make_unique<agent::PacketProcessor>(view, pool(), std::move(hooks));
  queues()[id] = std::move(q);
  return id;
}

bool queue_failed(std::uint64_t id) {
  std::lock_guard<std::mutex> lock(queues_mutex);
  auto it = queues().find(id);
  return it != queues().end() && it->second->processor->failed();
}

bool destroy_queue(std::uint64_t id) {
  std::unique_ptr<SimQueue> q;
  {
    std::lock_guard<std::mutex> lock(queues_mutex);
    auto it = queues().find(id);
    if (it == queues().end()) return false;
    q = std::move(it->second);
    queues().erase(it);
    DeviceGws& device = device_gws(q->context.node);
    if (device.holder == id) device.holder = 0;  // the driver takes a destroyed queue's GWS back
  }
  return true;  // q's destructor stops the processor outside the lock
}

std::size_t queue_error(const void* ring, char* buffer, std::size_t bytes) {
  std::lock_guard<std::mutex> lock(errors_mutex);
  auto it = queue_errors().find(ring);
  if (it == queue_errors().end()) return 0;
  if (buffer && bytes) {
    const std::size_t n = std::min(bytes - 1, it->second.size());
    std::memcpy(buffer, it->second.data(), n);
    buffer[n] = 0;
  }
  return it->second.size();
}

}  // namespace hsad::sim
