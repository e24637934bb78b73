// The simulated KFD. One process-wide state under one mutex: buffer objects by handle, queues by
// KFD queue id, each GPU's doorbell page. What a buffer object is to the simulated GPUs lives in
// sim_memory (adopt/forget); the queues' and events' behaviour in sim_queue, sim_sdma, sim_events.
//
// Memory: the thunk chooses every GPU address (a PROT_NONE reservation of its own, or the user's
// address) and passes it in ALLOC_MEMORY_OF_GPU; the driver here backs VRAM, GTT, doorbell and
// MMIO objects at once with shared memory at that address, so the simulated GPU can use them
// before the thunk maps them for the host (which then finds them mapped: kfd_mmap/render_mmap).
#include "door/kfd.hpp"

#include <linux/kfd_ioctl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "agent/packet_processor.hpp"
#include "agent/signal_ops.hpp"
#include "door/real_libc.hpp"
#include "door/svm_ranges.hpp"
#include "door/topology_tree.hpp"
#include "sim_config.hpp"
#include "sim_events.hpp"
#include "sim_memory.hpp"
#include "sim_queue.hpp"
#include "sim_sdma.hpp"

namespace hsad::sim::door {
namespace {

// What this driver reports of itself: 1.14 has the event age ROCm 6 waits with and everything the
// thunk gates below it (XNACK and SVM at 1.5, runtime enable at 1.13).
constexpr std::uint32_t kMajor = 1, kMinor = 14;

// ioctls newer than Debian 12's kernel header (linux-libc-dev 6.1, KFD 1.11), laid out as KFD 1.13+
// has them, and the ROCm 5.x driver's debugger ioctl, which upstream renumbered.
constexpr unsigned kNrRuntimeEnable = 0x25, kNrDbgTrap = 0x26, kNrDbgTrapRocm5 = 0x82;
struct RuntimeEnableArgs {
  std::uint64_t r_debug;
  std::uint32_t mode_mask;
  std::uint32_t capabilities_mask;
};
struct DbgTrapRocm5Args {  // ROCm 5's kfd_ioctl_dbg_trap_args (debug API 10.x)
  std::uint64_t exception_mask;
  std::uint64_t ptr;
  std::uint32_t pid, op, data1, data2, data3, data4;
};
constexpr std::uint32_t kDbgGetVersionRocm5 = 7, kDbgRuntimeEnableRocm5 = 13;
constexpr std::uint32_t kCapabilityCoreDump = 1u << 31;  // runtime enable: the driver dumps cores itself

// Offsets the thunk maps /dev/kfd at: a GPU's doorbell page, its MMIO page. The low 32 bits of a
// doorbell page's key are 0 (ROCm 5.2's thunk splits a GPU's first doorbell offset there).
constexpr std::uint64_t kDoorbellKey = 3ull << 60, kMmioKey = 2ull << 60;
constexpr std::uint64_t key_of(std::uint64_t type, std::uint32_t node) { return type | (std::uint64_t(node) << 40); }
constexpr std::size_t kDoorbellPage = 8192;
// A doorbell is the value of a signal (amd_signal_t layout, 64 bytes) the queue's packet processor
// watches: queue k's signal at 64 k, its doorbell at 64 k + 8.
constexpr std::size_t kDoorbellSlots = kDoorbellPage / sizeof(agent::SoftSignal);

constexpr std::uint64_t kApertureLds = 1ull << 48, kApertureScratch = 2ull << 48;
constexpr std::uint64_t kGpuvmBase = 16ull << 20, kGpuvmLimit = (1ull << 47) - 1;
constexpr std::uint64_t kFrameBufferBytes = 16ull << 30;
constexpr std::uint64_t kQuarantineBytes = 512ull << 20;

struct Bo {
  std::uint64_t va = 0, size = 0;
  std::uint64_t user = 0;      // USERPTR: the user's address (mmap_offset)
  std::uint32_t flags = 0;
  std::uint32_t node = 0;      // the GPU it was allocated on
  bool mapped_here = false;    // this driver mapped memory at va (VRAM, GTT, doorbell, MMIO)
  bool reachable = false;      // adopted into sim_memory
};

struct Queue {
  std::uint64_t sim_id = 0;
  bool sdma = false;
  std::uint32_t node = 0;
  std::size_t slot = 0;
};

struct Gpu {
  int doorbell_memfd = -1;
  unsigned char* doorbells = nullptr;  // this driver's own view of the doorbell page
  std::vector<bool> slots = std::vector<bool>(kDoorbellSlots, false);
  std::uint64_t vram_used = 0;
};

std::mutex mutex;  // guards Driver
struct Driver {
  std::map<std::uint64_t, Bo> bos;        // by handle
  std::uint64_t next_handle = 1;
  std::map<std::uint32_t, Queue> queues;  // by KFD queue id
  std::uint32_t next_queue_id = 1;
  std::map<std::uint32_t, Gpu> gpus;      // by node
};
// Never destroyed: libraries' destructors (HIP's, at exit) free memory and queues after this
// library's own static destructors would have run.
Driver& driver() {
  static auto* d = new Driver();
  return *d;
}

// Its own lock: the interposed munmap reaches it from anywhere, also from inside a driver call
// (the simulator drops a cache range, whose destructor unmaps its shadow) that holds `mutex`.
// Order: `mutex` before `quarantine_mutex`, never the other way.
std::mutex quarantine_mutex;
struct Quarantine {
  std::deque<std::pair<void*, std::size_t>> held;
  std::uint64_t held_bytes = 0;
  std::map<std::uint64_t, std::uint64_t> freed;  // va -> size of freed objects mapped here, until unmapped
};
Quarantine& quarantine() {
  static auto* q = new Quarantine();  // never destroyed, as Driver
  return *q;
}

const char* ioctl_name(unsigned nr) {
  switch (nr) {
    case 0x01: return "GET_VERSION";
    case 0x02: return "CREATE_QUEUE";
    case 0x03: return "DESTROY_QUEUE";
    case 0x04: return "SET_MEMORY_POLICY";
    case 0x05: return "GET_CLOCK_COUNTERS";
    case 0x06: return "GET_PROCESS_APERTURES";
    case 0x07: return "UPDATE_QUEUE";
    case 0x08: return "CREATE_EVENT";
    case 0x09: return "DESTROY_EVENT";
    case 0x0a: return "SET_EVENT";
    case 0x0b: return "RESET_EVENT";
    case 0x0c: return "WAIT_EVENTS";
    case 0x0d: case 0x0e: case 0x0f: case 0x10: return "DBG_*_DEPRECATED";
    case 0x11: return "SET_SCRATCH_BACKING_VA";
    case 0x12: return "GET_TILE_CONFIG";
    case 0x13: return "SET_TRAP_HANDLER";
    case 0x14: return "GET_PROCESS_APERTURES_NEW";
    case 0x15: return "ACQUIRE_VM";
    case 0x16: return "ALLOC_MEMORY_OF_GPU";
    case 0x17: return "FREE_MEMORY_OF_GPU";
    case 0x18: return "MAP_MEMORY_TO_GPU";
    case 0x19: return "UNMAP_MEMORY_FROM_GPU";
    case 0x1a: return "SET_CU_MASK";
    case 0x1b: return "GET_QUEUE_WAVE_STATE";
    case 0x1c: return "GET_DMABUF_INFO";
    case 0x1d: return "IMPORT_DMABUF";
    case 0x1e: return "ALLOC_QUEUE_GWS";
    case 0x1f: return "SMI_EVENTS";
    case 0x20: return "SVM";
    case 0x21: return "SET_XNACK_MODE";
    case 0x22: return "CRIU_OP";
    case 0x23: return "AVAILABLE_MEMORY";
    case 0x24: return "EXPORT_DMABUF";
    case 0x25: return "RUNTIME_ENABLE";
    case 0x26: return "DBG_TRAP";
    case 0x80: return "IPC_IMPORT_HANDLE";
    case 0x81: return "IPC_EXPORT_HANDLE";
    case 0x82: return "DBG_TRAP (ROCm 5)";
    case 0x83: return "CROSS_MEMORY_COPY";
    case 0x84: return "RLC_SPM";
    case 0x85: return "PC_SAMPLE";
    default: return "an unknown ioctl";
  }
}

// Refuses what the simulated driver does not serve, naming it on stderr: the failing call's errno
// is EINVAL, which the thunk turns into an error status (it retries only EINTR and EAGAIN).
int refuse(unsigned nr, const std::string& what) {
  std::fprintf(stderr, "hsad-sim: the simulated KFD does not serve AMDKFD_IOC_%s (nr 0x%02x)%s%s\n", ioctl_name(nr), nr,
               what.empty() ? "" : ": ", what.c_str());
  errno = EINVAL;
  return -1;
}

int fail(int error) {
  errno = error;
  return -1;
}

std::uint64_t now_ns() { return agent::now_ns(); }

// Under mutex: GPU `node`'s driver state, its doorbell page made on first use.
Gpu& gpu(std::uint32_t node) {
  Gpu& g = driver().gpus[node];
  if (!g.doorbells) {
    g.doorbell_memfd = memfd_create("hsad-sim-doorbells", MFD_CLOEXEC);
    if (g.doorbell_memfd < 0 || ftruncate(g.doorbell_memfd, kDoorbellPage) != 0) throw std::bad_alloc();
    void* p = real::mmap(nullptr, kDoorbellPage, PROT_READ | PROT_WRITE, MAP_SHARED, g.doorbell_memfd, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    g.doorbells = static_cast<unsigned char*>(p);
  }
  return g;
}

bool valid_gpu(std::uint32_t gpu_id) { return node_of(gpu_id) != 0; }

// ---- memory

int alloc_memory(kfd_ioctl_alloc_memory_of_gpu_args& a) {
  const std::uint32_t node = node_of(a.gpu_id);
  if (!node) return fail(EINVAL);
  const std::uint32_t kinds = KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_GTT | KFD_IOC_ALLOC_MEM_FLAGS_USERPTR |
                              KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL | KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP;
  const std::uint32_t kind = a.flags & kinds;
  if (__builtin_popcount(kind) != 1 || a.size == 0 || (a.size & 4095) != 0) {
    return refuse(0x16, "an allocation of flags 0x" + [&] {
      char b[16];
      std::snprintf(b, sizeof b, "%x", a.flags);
      return std::string(b);
    }() + " and " + std::to_string(a.size) + " bytes");
  }
  if (a.va_addr == 0) return refuse(0x16, "an allocation without an address (the VMM API's NoAddress)");
  // A buffer object at an address that registered user memory still covers (SVM, or a USERPTR
  // object not freed yet): that memory was unmapped where the door cannot see it (glibc's free
  // unmaps a large block without calling munmap), and KFD's MMU notifier would have dropped it
  // then. Dropped now, before the range lookup finds the dead registration instead of this object
  // (a code object taken for a blit).
  if (kind != KFD_IOC_ALLOC_MEM_FLAGS_USERPTR) {
    svm_revoke(a.va_addr, a.size);
    forget_overlapping(a.va_addr, a.size);
  }
  std::lock_guard<std::mutex> lock(mutex);
  if (kind != KFD_IOC_ALLOC_MEM_FLAGS_USERPTR) {
    // Such an object's own free, later, must not forget the new one's range (nor quarantine its
    // addresses): it is gone already.
    for (auto& [handle, old] : driver().bos) {
      if ((old.flags & KFD_IOC_ALLOC_MEM_FLAGS_USERPTR) && old.va < a.va_addr + a.size && a.va_addr < old.va + old.size) {
        old.reachable = false;
        old.user = 0;
      }
    }
  }
  Bo bo;
  bo.va = a.va_addr;
  bo.size = a.size;
  bo.flags = a.flags;
  bo.node = node;
  void* at = reinterpret_cast<void*>(a.va_addr);
  if (kind == KFD_IOC_ALLOC_MEM_FLAGS_USERPTR) {
    // The user's memory, at mmap_offset: at its own address (the thunk's paged system memory) or
    // at a GPU address of the thunk's choosing (ROCm 5's registration of user memory).
    adopt(a.va_addr, a.size, 0, false, a.mmap_offset);
    bo.user = a.mmap_offset;
    bo.reachable = true;
  } else if (kind == KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL) {
    Gpu& g = gpu(node);
    if (a.size < kDoorbellPage) return fail(EINVAL);
    if (real::mmap(at, kDoorbellPage, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, g.doorbell_memfd, 0) == MAP_FAILED) {
      return fail(ENOMEM);
    }
    // The GPU reaches it too: a kernel rings a queue's doorbell (device-side enqueue).
    adopt(a.va_addr, kDoorbellPage, node, false);
    bo.mapped_here = bo.reachable = true;
  } else {
    if (real::mmap(at, a.size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
      return fail(ENOMEM);
    }
    bo.mapped_here = true;
    if (kind != KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP) {
      // Coarse-grained device memory (no COHERENT flag) is what the GPU's L2 caches write-back.
      const bool vram = kind == KFD_IOC_ALLOC_MEM_FLAGS_VRAM;
      adopt(a.va_addr, a.size, vram ? node : 0, vram && !(a.flags & KFD_IOC_ALLOC_MEM_FLAGS_COHERENT));
      bo.reachable = true;
      if (vram) gpu(node).vram_used += a.size;
    }
  }
  const std::uint64_t handle = driver().next_handle++;
  a.handle = handle;
  // The offset the thunk maps it at: on the render node (and /dev/kfd for the MMIO page).
  if (kind == KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP) a.mmap_offset = key_of(kMmioKey, node);
  else if (kind != KFD_IOC_ALLOC_MEM_FLAGS_USERPTR) a.mmap_offset = handle << 12;
  {
    std::lock_guard<std::mutex> q(quarantine_mutex);
    quarantine().freed.erase(bo.va);
  }
  driver().bos[handle] = bo;
  return 0;
}

int free_memory(const kfd_ioctl_free_memory_of_gpu_args& a) {
  Bo bo;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = driver().bos.find(a.handle);
    if (it == driver().bos.end()) return fail(EINVAL);
    bo = it->second;
    driver().bos.erase(it);
    if (bo.flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM) driver().gpus[bo.node].vram_used -= bo.size;
    // The thunk unmaps the host mapping next; a kernel that still runs may touch it meanwhile.
    // (User memory at its own address too: the thunk's paged system memory, which it unmaps.)
    if (bo.mapped_here || bo.user == bo.va) {
      std::lock_guard<std::mutex> q(quarantine_mutex);
      quarantine().freed[bo.va] = bo.size;
    }
  }
  // Outside the lock: dropping the range's cache model unmaps memory, through the interposer.
  if (bo.reachable) forget(bo.va, bo.size);
  return 0;
}

int map_memory(kfd_ioctl_map_memory_to_gpu_args& a, bool map) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = driver().bos.find(a.handle);
  if (it == driver().bos.end()) return fail(EINVAL);
  const auto* ids = reinterpret_cast<const std::uint32_t*>(a.device_ids_array_ptr);
  std::vector<std::uint32_t> nodes;
  for (std::uint32_t i = 0; i < a.n_devices; ++i) {
    if (!valid_gpu(ids[i])) return fail(EINVAL);
    nodes.push_back(node_of(ids[i]));
  }
  if (map && it->second.reachable) set_mapped(it->second.va, nodes);
  a.n_success = a.n_devices;
  return 0;
}

// ---- queues

int create_queue(kfd_ioctl_create_queue_args& a) {
  const std::uint32_t node = node_of(a.gpu_id);
  if (!node) return fail(EINVAL);
  const bool aql = a.queue_type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
  const bool sdma = a.queue_type == KFD_IOC_QUEUE_TYPE_SDMA || a.queue_type == KFD_IOC_QUEUE_TYPE_SDMA_XGMI ||
                    a.queue_type == 4;  // SDMA_BY_ENG_ID (KFD 1.17)
  if (!aql && !sdma) return refuse(0x02, "queue type " + std::to_string(a.queue_type) + " (only AQL and SDMA queues)");
  if (a.ring_size == 0 || (a.ring_size & (a.ring_size - 1)) != 0 || !a.ring_base_address || !a.read_pointer_address) {
    return fail(EINVAL);
  }
  std::lock_guard<std::mutex> lock(mutex);
  Gpu& g = gpu(node);
  const auto free_slot = std::find(g.slots.begin(), g.slots.end(), false);
  if (free_slot == g.slots.end()) return fail(ENOSPC);
  const std::size_t slot = std::size_t(free_slot - g.slots.begin());
  auto* signal = new (g.doorbells + slot * sizeof(agent::SoftSignal)) agent::SoftSignal();
  void* ring = reinterpret_cast<void*>(a.ring_base_address);
  auto* read_index = reinterpret_cast<std::uint64_t*>(a.read_pointer_address);
  Queue q;
  q.node = node;
  q.slot = slot;
  q.sdma = sdma;
  if (aql) {
    q.sim_id = create_aql_queue(node, ring, a.ring_size, read_index, a.ctx_save_restore_address,
                                hsa_signal_t{reinterpret_cast<std::uint64_t>(signal)});
  } else {
    q.sim_id = create_sdma_queue(node, ring, a.ring_size, read_index, reinterpret_cast<std::uint64_t*>(&signal->value));
    if (!q.sim_id) return fail(EINVAL);
  }
  g.slots[slot] = true;
  const std::uint32_t id = driver().next_queue_id++;
  driver().queues[id] = q;
  a.queue_id = id;
  a.doorbell_offset = key_of(kDoorbellKey, node) | (slot * sizeof(agent::SoftSignal) + offsetof(agent::SoftSignal, value));
  return 0;
}

int destroy_queue_ioctl(const kfd_ioctl_destroy_queue_args& a) {
  Queue q;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = driver().queues.find(a.queue_id);
    if (it == driver().queues.end()) return fail(EINVAL);
    q = it->second;
    driver().queues.erase(it);
  }
  if (q.sdma) destroy_sdma_queue(q.sim_id);
  else destroy_queue(q.sim_id);
  std::lock_guard<std::mutex> lock(mutex);
  driver().gpus[q.node].slots[q.slot] = false;
  return 0;
}

int update_queue(const kfd_ioctl_update_queue_args& a) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = driver().queues.find(a.queue_id);
  if (it == driver().queues.end()) return fail(EINVAL);
  // ROCr suspends a queue (percentage 0) after an error stopped it; a running queue is never
  // suspended by it, and the simulated command processor cannot pause one.
  if (a.queue_percentage == 0 && !it->second.sdma && !queue_failed(it->second.sim_id)) {
    return refuse(0x07, "suspending a queue that has not stopped (queue percentage 0)");
  }
  return 0;
}

int alloc_gws(kfd_ioctl_alloc_queue_gws_args& a) {
  std::uint64_t sim_id = 0;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = driver().queues.find(a.queue_id);
    if (it == driver().queues.end() || it->second.sdma) return fail(EINVAL);
    sim_id = it->second.sim_id;
  }
  switch (allocate_gws(sim_id, a.num_gws)) {
    case GwsResult::ok: a.first_gws = 0; return 0;
    case GwsResult::no_queue: return fail(EINVAL);
    case GwsResult::busy: return fail(EBUSY);
  }
  return fail(EINVAL);
}

// ---- events

int create_event(kfd_ioctl_create_event_args& a) {
  // The thunk hands over its events page (a buffer object, by handle) with its first event.
  if (a.event_page_offset && !has_events_page()) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = driver().bos.find(a.event_page_offset);
    if (it == driver().bos.end()) return fail(EINVAL);
    set_events_page(it->second.va, it->second.size);
  }
  if (a.event_type > std::uint32_t(EventType::memory)) return refuse(0x08, "event type " + std::to_string(a.event_type));
  CreatedEvent e;
  if (!create_event(EventType(a.event_type), a.auto_reset != 0, &e)) return fail(ENOSPC);
  a.event_id = e.id;
  a.event_slot_index = e.slot;
  a.event_trigger_data = std::uint32_t(e.trigger_data);
  if (EventType(a.event_type) == EventType::signal) a.event_page_offset = 1ull << 56;  // "the events page": non-zero
  return 0;
}

int wait_events_ioctl(kfd_ioctl_wait_events_args& a) {
  auto* data = reinterpret_cast<kfd_event_data*>(a.events_ptr);
  std::vector<WaitedEvent> waited(a.num_events);
  for (std::uint32_t i = 0; i < a.num_events; ++i) {
    waited[i].id = data[i].event_id;
    std::memcpy(&waited[i].last_age, &data[i], 8);  // KFD 1.14: signal_event_data.last_event_age
  }
  const WaitResult r = wait_events(waited.data(), a.num_events, a.wait_for_all != 0, a.timeout);
  if (r == WaitResult::invalid) return fail(EINVAL);
  for (std::uint32_t i = 0; i < a.num_events; ++i) {
    const WaitedEvent& w = waited[i];
    if (w.fault_address && w.signaled) {
      kfd_hsa_memory_exception_data& m = data[i].memory_exception_data;
      std::memset(&m, 0, sizeof m);
      m.failure.NotPresent = 1;  // outside every allocation: no page there
      m.va = w.fault_address;
      m.gpu_id = gpu_id_of(w.fault_node);
    } else {
      std::memcpy(&data[i], &w.age, 8);
    }
  }
  a.wait_result = r == WaitResult::complete ? KFD_IOC_WAIT_RESULT_COMPLETE : KFD_IOC_WAIT_RESULT_TIMEOUT;
  return 0;
}

// ---- SVM (ROCm 6 registers user memory and queues' save areas through it, at their own address)

std::mutex svm_mutex;
std::map<std::uint64_t, std::pair<std::uint64_t, std::vector<kfd_ioctl_svm_attribute>>>& svm_ranges() {
  static auto* m = new std::map<std::uint64_t, std::pair<std::uint64_t, std::vector<kfd_ioctl_svm_attribute>>>();
  return *m;
}

int svm(kfd_ioctl_svm_args& a) {
  if (a.size == 0 || (a.start_addr & 4095) != 0) return fail(EINVAL);
  std::lock_guard<std::mutex> lock(svm_mutex);
  auto& ranges = svm_ranges();
  if (a.op == KFD_IOCTL_SVM_OP_SET_ATTR) {
    bool access = false, no_access = false;
    for (std::uint32_t i = 0; i < a.nattr; ++i) {
      const std::uint32_t type = a.attrs[i].type;
      if (type > KFD_IOCTL_SVM_ATTR_GRANULARITY) return refuse(0x20, "SVM attribute " + std::to_string(type));
      const bool per_gpu = type == KFD_IOCTL_SVM_ATTR_ACCESS || type == KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE ||
                           type == KFD_IOCTL_SVM_ATTR_NO_ACCESS;
      if (per_gpu && !valid_gpu(a.attrs[i].value)) return fail(EINVAL);
      access |= type == KFD_IOCTL_SVM_ATTR_ACCESS || type == KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE;
      no_access |= type == KFD_IOCTL_SVM_ATTR_NO_ACCESS;
    }
    // Every simulated GPU reaches host memory at its own address: one grant serves all of them.
    if (access) svm_grant(a.start_addr, a.size);
    else if (no_access) svm_revoke(a.start_addr, a.size);
    auto& r = ranges[a.start_addr];
    r.first = a.size;
    for (std::uint32_t i = 0; i < a.nattr; ++i) {
      auto same = std::find_if(r.second.begin(), r.second.end(), [&](const auto& x) { return x.type == a.attrs[i].type; });
      if (same != r.second.end()) *same = a.attrs[i];
      else r.second.push_back(a.attrs[i]);
    }
    return 0;
  }
  if (a.op == KFD_IOCTL_SVM_OP_GET_ATTR) {
    auto it = ranges.find(a.start_addr);
    for (std::uint32_t i = 0; i < a.nattr; ++i) {
      std::uint32_t value = 0xffffffff;  // KFD_IOCTL_SVM_LOCATION_UNDEFINED
      if (it != ranges.end()) {
        for (const auto& x : it->second.second) {
          if (x.type == a.attrs[i].type) value = x.value;
        }
      }
      a.attrs[i].value = value;
    }
    return 0;
  }
  return refuse(0x20, "SVM operation " + std::to_string(a.op));
}

}  // namespace

int kfd_ioctl(unsigned long request, void* arg) {
  if (_IOC_TYPE(request) != 'K') return refuse(_IOC_NR(request), "a request of another driver on /dev/kfd");
  const unsigned nr = _IOC_NR(request);
  switch (nr) {
    case 0x01: {
      auto& a = *static_cast<kfd_ioctl_get_version_args*>(arg);
      a.major_version = kMajor;
      a.minor_version = kMinor;
      return 0;
    }
    case 0x02: return create_queue(*static_cast<kfd_ioctl_create_queue_args*>(arg));
    case 0x03: return destroy_queue_ioctl(*static_cast<kfd_ioctl_destroy_queue_args*>(arg));
    case 0x04: return valid_gpu(static_cast<kfd_ioctl_set_memory_policy_args*>(arg)->gpu_id) ? 0 : fail(EINVAL);
    case 0x05: {
      auto& a = *static_cast<kfd_ioctl_get_clock_counters_args*>(arg);
      // One clock for all three: the packet processor's timestamps are in it too.
      a.gpu_clock_counter = a.cpu_clock_counter = a.system_clock_counter = now_ns();
      a.system_clock_freq = 1000000000ull;
      return 0;
    }
    case 0x07: return update_queue(*static_cast<kfd_ioctl_update_queue_args*>(arg));
    case 0x08: return create_event(*static_cast<kfd_ioctl_create_event_args*>(arg));
    case 0x09: return destroy_event(static_cast<kfd_ioctl_destroy_event_args*>(arg)->event_id) ? 0 : fail(EINVAL);
    case 0x0a: return set_event(static_cast<kfd_ioctl_set_event_args*>(arg)->event_id) ? 0 : fail(EINVAL);
    case 0x0b: return reset_event(static_cast<kfd_ioctl_reset_event_args*>(arg)->event_id) ? 0 : fail(EINVAL);
    case 0x0c: return wait_events_ioctl(*static_cast<kfd_ioctl_wait_events_args*>(arg));
    case 0x11: return valid_gpu(static_cast<kfd_ioctl_set_scratch_backing_va_args*>(arg)->gpu_id) ? 0 : fail(EINVAL);
    case 0x12: {
      auto& a = *static_cast<kfd_ioctl_get_tile_config_args*>(arg);
      a.num_tile_configs = 0;
      a.num_macro_tile_configs = 0;
      a.gb_addr_config = 0;
      a.num_banks = a.num_ranks = 0;
      return 0;
    }
    case 0x13: return valid_gpu(static_cast<kfd_ioctl_set_trap_handler_args*>(arg)->gpu_id) ? 0 : fail(EINVAL);
    case 0x14: {
      auto& a = *static_cast<kfd_ioctl_get_process_apertures_new_args*>(arg);
      auto* out = reinterpret_cast<kfd_process_device_apertures*>(a.kfd_process_device_apertures_ptr);
      const std::uint32_t n = std::min(a.num_of_nodes, config().gpus);
      for (std::uint32_t i = 0; i < n; ++i) {
        out[i] = {};
        out[i].gpu_id = gpu_id_of(i + 1);
        out[i].lds_base = kApertureLds;
        out[i].lds_limit = kApertureLds + 0xffffffffull;
        out[i].scratch_base = kApertureScratch;
        out[i].scratch_limit = kApertureScratch + 0xffffffffull;
        out[i].gpuvm_base = kGpuvmBase;
        out[i].gpuvm_limit = kGpuvmLimit;  // 47 bits: the thunk places every buffer by mmap
      }
      a.num_of_nodes = n;
      return 0;
    }
    case 0x15: return valid_gpu(static_cast<kfd_ioctl_acquire_vm_args*>(arg)->gpu_id) ? 0 : fail(EINVAL);
    case 0x16: return alloc_memory(*static_cast<kfd_ioctl_alloc_memory_of_gpu_args*>(arg));
    case 0x17: return free_memory(*static_cast<kfd_ioctl_free_memory_of_gpu_args*>(arg));
    case 0x18: return map_memory(*static_cast<kfd_ioctl_map_memory_to_gpu_args*>(arg), true);
    case 0x19: return map_memory(*reinterpret_cast<kfd_ioctl_map_memory_to_gpu_args*>(arg), false);
    case 0x1a: return 0;  // a CU mask: every simulated CU runs every queue's work anyway
    case 0x1e: return alloc_gws(*static_cast<kfd_ioctl_alloc_queue_gws_args*>(arg));
    case 0x20: return svm(*static_cast<kfd_ioctl_svm_args*>(arg));
    case 0x21: {
      auto& a = *static_cast<kfd_ioctl_set_xnack_mode_args*>(arg);
      if (a.xnack_enabled < 0) {
        a.xnack_enabled = 0;  // no XNACK: a fault stops the queue, as the targets ship
        return 0;
      }
      return a.xnack_enabled == 0 ? 0 : fail(EPERM);
    }
    case 0x23: {
      auto& a = *static_cast<kfd_ioctl_get_available_memory_args*>(arg);
      const std::uint32_t node = node_of(a.gpu_id);
      if (!node) return fail(EINVAL);
      std::lock_guard<std::mutex> lock(mutex);
      a.available = kFrameBufferBytes - std::min(kFrameBufferBytes, gpu(node).vram_used);
      return 0;
    }
    case kNrRuntimeEnable: {
      // Exceptions are reported as the queues' save areas say (sim_queue.cpp), enabled or not.
      static_cast<RuntimeEnableArgs*>(arg)->capabilities_mask = kCapabilityCoreDump;
      return 0;
    }
    case kNrDbgTrapRocm5: {
      auto& a = *static_cast<DbgTrapRocm5Args*>(arg);
      if (a.op == kDbgGetVersionRocm5) {
        a.data1 = 10;  // the ROCm 5 debug API's major version the thunk requires
        a.data2 = 3;
        return 0;
      }
      if (a.op == kDbgRuntimeEnableRocm5) return 0;
      return refuse(nr, "debugger operation " + std::to_string(a.op));
    }
    case kNrDbgTrap: return refuse(nr, "the debugger (no core dump is made: the driver says it makes them)");
    default: return refuse(nr, "");
  }
}

int render_ioctl(std::uint32_t node, unsigned long request, void*) {
  std::fprintf(stderr, "hsad-sim: the simulated GPU %u's render node does not serve DRM ioctl 0x%lx (nr 0x%02x)\n", node,
               request, unsigned(_IOC_NR(request)));
  errno = EINVAL;
  return -1;
}

void* kfd_mmap(void* addr, std::size_t length, int prot, int flags, off_t offset, MmapFn real_mmap) {
  const auto key = static_cast<std::uint64_t>(offset);
  const std::uint64_t type = key & (3ull << 60);
  const auto node = std::uint32_t((key >> 40) & 0xff);
  if (type == kDoorbellKey && node >= 1 && node <= config().gpus && length <= kDoorbellPage) {
    std::lock_guard<std::mutex> lock(mutex);
    Gpu& g = gpu(node);
    // Where the thunk put the doorbell buffer object, the page is mapped there already.
    for (const auto& [h, bo] : driver().bos) {
      if ((bo.flags & KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL) && bo.node == node && bo.va == reinterpret_cast<std::uint64_t>(addr)) {
        return addr;
      }
    }
    return real_mmap(addr, length, prot, flags & ~MAP_PRIVATE, g.doorbell_memfd, 0);
  }
  if (type == kMmioKey && node >= 1 && node <= config().gpus) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const auto& [h, bo] : driver().bos) {
      if ((bo.flags & KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP) && bo.node == node && bo.va == reinterpret_cast<std::uint64_t>(addr)) {
        return addr;
      }
    }
    return real_mmap(addr, length, PROT_READ | PROT_WRITE, (flags & ~MAP_PRIVATE) | MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  }
  std::fprintf(stderr, "hsad-sim: the simulated KFD does not serve an mmap of /dev/kfd at offset 0x%llx\n",
               static_cast<unsigned long long>(key));
  errno = EINVAL;
  return MAP_FAILED;
}

void* render_mmap(std::uint32_t render_node, void* addr, std::size_t length, int, int, off_t offset, MmapFn) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = driver().bos.find(static_cast<std::uint64_t>(offset) >> 12);
  if (it == driver().bos.end() || !it->second.mapped_here || it->second.node != render_node) {
    std::fprintf(stderr, "hsad-sim: the simulated GPU %u's render node does not serve an mmap at offset 0x%llx\n",
                 render_node, static_cast<unsigned long long>(offset));
    errno = EINVAL;
    return MAP_FAILED;
  }
  const Bo& bo = it->second;
  // The buffer object is mapped at its GPU address already, for the host as for the GPU: the
  // thunk maps it exactly there (MAP_FIXED), with any protection, which it keeps as it is.
  if (addr != reinterpret_cast<void*>(bo.va) || length > bo.size) {
    std::fprintf(stderr, "hsad-sim: a buffer object mapped for the host elsewhere than at its GPU address\n");
    errno = EINVAL;
    return MAP_FAILED;
  }
  return addr;
}

bool quarantine_unmap(void* addr, std::size_t length, MunmapFn real_munmap) {
  std::vector<std::pair<void*, std::size_t>> release;
  {
    std::lock_guard<std::mutex> lock(quarantine_mutex);
    auto it = quarantine().freed.find(reinterpret_cast<std::uint64_t>(addr));
    if (it == quarantine().freed.end() || it->second != length) return false;
    quarantine().freed.erase(it);
    // Kept mapped a while: a kernel still running when its buffers were freed (the host gave up
    // waiting) then reads stale bytes or is stopped by the interpreter's allocation check, as a
    // GPU would fault, instead of taking the process down with SIGSEGV.
    if (length > kQuarantineBytes / 2) return false;  // ROCr's scratch reservation: never touched by the interpreter
    quarantine().held.emplace_back(addr, length);
    quarantine().held_bytes += length;
    while (quarantine().held_bytes > kQuarantineBytes) {
      release.push_back(quarantine().held.front());
      quarantine().held_bytes -= quarantine().held.front().second;
      quarantine().held.pop_front();
    }
  }
  for (const auto& [p, n] : release) real_munmap(p, n);
  return true;
}

}  // namespace hsad::sim::door
