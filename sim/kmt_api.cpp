// The stand-in libhsakmt.so.1: the 42 hsaKmt* entry points ROCr 5.2 imports (symbol version
// HSAKMT_1), answering as a KFD with one CPU node and HSAD_SIM_GPUS GPU nodes would. Types and
// prototypes come from libhsakmt-dev's hsakmt.h, so a signature mismatch does not compile.
#include <hsakmt.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <ctime>
#include <thread>
#include <unistd.h>

#include "agent/host_machine.hpp"
#include "l2_cache.hpp"
#include "sim_config.hpp"
#include "sim_events.hpp"
#include "sim_memory.hpp"
#include "sim_queue.hpp"
#include "sim_sdma.hpp"

using namespace hsad::sim;

namespace {
constexpr HSAuint64 kFrameBufferBytes = 16ull << 30;
constexpr HSAuint64 kScratchReservation = 4ull << 30;
// Apertures ROCr asserts on (group / LDS and private / scratch), at the addresses KFD uses on gfx9.
constexpr HSAuint64 kLdsAperture = 0x1000000000000ull;
constexpr HSAuint64 kScratchAperture = 0x2000000000000ull;

bool is_gpu(HSAuint32 node) { return node >= 1 && node <= config().gpus; }
bool valid_node(HSAuint32 node) { return node <= config().gpus; }

void set_name(HSAuint16* wide, HSAuint8* ascii, const std::string& name) {
  for (std::size_t i = 0; i + 1 < HSA_PUBLIC_NAME_SIZE && i < name.size(); ++i) {
    wide[i] = HSAuint16(name[i]);
    if (ascii) ascii[i] = HSAuint8(name[i]);
  }
}

HSAuint64 now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return HSAuint64(ts.tv_sec) * 1000000000ull + HSAuint64(ts.tv_nsec);
}
}  // namespace

extern "C" {

HSAKMT_STATUS HSAKMTAPI hsaKmtOpenKFD(void) { return HSAKMT_STATUS_SUCCESS; }
HSAKMT_STATUS HSAKMTAPI hsaKmtCloseKFD(void) { return HSAKMT_STATUS_SUCCESS; }

HSAKMT_STATUS HSAKMTAPI hsaKmtGetVersion(HsaVersionInfo* v) {
  v->KernelInterfaceMajorVersion = 1;
  v->KernelInterfaceMinorVersion = 8;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtRuntimeEnable(void*, bool) { return HSAKMT_STATUS_SUCCESS; }
HSAKMT_STATUS HSAKMTAPI hsaKmtRuntimeDisable(void) { return HSAKMT_STATUS_SUCCESS; }

HSAKMT_STATUS HSAKMTAPI hsaKmtAcquireSystemProperties(HsaSystemProperties* p) {
  std::memset(p, 0, sizeof *p);
  p->NumNodes = 1 + config().gpus;
  return HSAKMT_STATUS_SUCCESS;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtReleaseSystemProperties(void) { return HSAKMT_STATUS_SUCCESS; }

HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeProperties(HSAuint32 node, HsaNodeProperties* p) {
  if (!valid_node(node)) return HSAKMT_STATUS_INVALID_NODE_UNIT;
  std::memset(p, 0, sizeof *p);
  if (!is_gpu(node)) {
    p->NumCPUCores = hsad::agent::usable_cpus();
    p->NumMemoryBanks = 1;
    p->NumCaches = 1;  // ROCr's CPU agent asserts that it has a cache (HIP asks it for properties)
    p->NumIOLinks = config().gpus;
    p->MaxEngineClockMhzCCompute = 2000;
    set_name(p->MarketingName, nullptr, "hsadispatch simulated host CPU");
    return HSAKMT_STATUS_SUCCESS;
  }
  const Target& t = config().target;
  p->NumFComputeCores = t.compute_units * 4;  // SIMDs
  p->NumSIMDPerCU = 4;
  p->NumMemoryBanks = 3;  // frame buffer, LDS aperture, scratch aperture
  p->NumCaches = 1;
  p->NumIOLinks = config().gpus;  // the host and every other GPU
  p->FComputeIdLo = 0x80000000u + node * 0x1000u;
  p->MaxWavesPerSIMD = t.wavefront == 32 ? 16 : 8;
  p->LDSSizeInKB = 64;
  p->WaveFrontSize = t.wavefront;
  p->NumShaderBanks = 4;
  p->NumArrays = 1;
  p->NumCUPerArray = t.compute_units / 4;
  p->MaxSlotsScratchCU = 32;
  p->EngineId.ui32.Major = t.major;
  p->EngineId.ui32.Minor = t.minor;
  p->EngineId.ui32.Stepping = t.stepping;
  p->EngineId.ui32.uCode = 60;
  p->Capability.ui32.DoorbellType = 2;  // 64-bit doorbells, as on gfx9 and later
  p->VendorId = 0x1002;
  p->DeviceId = t.device_id;
  p->LocationId = node << 8;
  p->LocalMemSize = kFrameBufferBytes;
  p->MaxEngineClockMhzFCompute = 1700;
  p->DrmRenderMinor = -1;  // no render node: nothing to open
  p->NumCpQueues = 24;
  // Global wave sync: what a cooperative launch's grid barrier needs (KFD gives all of a device's
  // to one queue; ROCr asks for them for its cooperative queue).
  p->NumGws = hsad::isa::GlobalWaveSync::kResources;
  p->UniqueID = 0x5157000000000000ull + node;
  // GPUs joined by XGMI form a hive, as an MI250's do: ROCr then offers each one's memory
  // fine-grained too (a second pool), which the other GPUs' stores reach while kernels run.
  if (config().gpus > 1) p->HiveID = 0x5157000000000001ull;
  // Marketing name says it, so no number taken here passes for an AMD measurement.
  const std::string name = std::string("hsadispatch simulated ") + t.name + " (not an AMD GPU)";
  set_name(p->MarketingName, p->AMDName, name);
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeMemoryProperties(HSAuint32 node, HSAuint32 banks, HsaMemoryProperties* m) {
  if (!valid_node(node)) return HSAKMT_STATUS_INVALID_NODE_UNIT;
  if (banks) std::memset(m, 0, sizeof(*m) * banks);
  if (!is_gpu(node)) {
    if (banks >= 1) {
      m[0].HeapType = HSA_HEAPTYPE_SYSTEM;
      m[0].SizeInBytes = HSAuint64(sysconf(_SC_PHYS_PAGES)) * HSAuint64(sysconf(_SC_PAGESIZE));
    }
    return HSAKMT_STATUS_SUCCESS;
  }
  const HsaMemoryProperties all[3] = {
      {HSA_HEAPTYPE_FRAME_BUFFER_PUBLIC, {kFrameBufferBytes}, {0}, 4096, 1600, 0},
      {HSA_HEAPTYPE_GPU_LDS, {64ull << 10}, {0}, 0, 0, kLdsAperture},
      {HSA_HEAPTYPE_GPU_SCRATCH, {kScratchReservation}, {0}, 0, 0, kScratchAperture},
  };
  for (HSAuint32 i = 0; i < banks && i < 3; ++i) m[i] = all[i];
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeCacheProperties(HSAuint32 node, HSAuint32, HSAuint32 count, HsaCacheProperties* c) {
  if (!valid_node(node)) return HSAKMT_STATUS_INVALID_NODE_UNIT;
  if (count) std::memset(c, 0, sizeof(*c) * count);
  if (!is_gpu(node) && count >= 1) {  // one data cache, as small as any host's first level
    c[0].ProcessorIdLow = 0;
    c[0].CacheLevel = 1;
    c[0].CacheSize = 32;  // KiB
    c[0].CacheLineSize = 64;
    c[0].CacheType.ui32.Data = 1;
    c[0].CacheType.ui32.CPU = 1;
  }
  if (is_gpu(node) && count >= 1) {
    c[0].ProcessorIdLow = 0x80000000u + node * 0x1000u;
    c[0].CacheLevel = 2;
    c[0].CacheSize = 8192;  // KiB
    c[0].CacheLineSize = 128;
    c[0].CacheType.ui32.Data = 1;
    c[0].CacheType.ui32.HSACU = 1;
  }
  return HSAKMT_STATUS_SUCCESS;
}

// Every node links to every other: the host CPU to each GPU over PCIe, the GPUs to one another over
// XGMI, one hop each, so ROCr lets a GPU reach a peer's memory once asked (HIP's peer access).
HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeIoLinkProperties(HSAuint32 node, HSAuint32 count, HsaIoLinkProperties* links) {
  if (!valid_node(node)) return HSAKMT_STATUS_INVALID_NODE_UNIT;
  HSAuint32 k = 0;
  for (HSAuint32 to = 0; to < 1 + config().gpus && k < count; ++to) {
    if (to == node) continue;
    HsaIoLinkProperties& l = links[k++];
    std::memset(&l, 0, sizeof l);
    const bool xgmi = is_gpu(node) && is_gpu(to);
    l.IoLinkType = xgmi ? HSA_IOLINK_TYPE_XGMI : HSA_IOLINKTYPE_PCIEXPRESS;
    l.NodeFrom = node;
    l.NodeTo = to;
    l.Weight = xgmi ? 15 : 20;
    l.MinimumBandwidth = l.MaximumBandwidth = xgmi ? 50000 : 16000;  // MB/s: nominal, nothing is timed by them
  }
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetClockCounters(HSAuint32, HsaClockCounters* c) {
  const HSAuint64 t = now_ns();
  c->GPUClockCounter = t;
  c->CPUClockCounter = t;
  c->SystemClockCounter = t;
  c->SystemClockFrequencyHz = 1000000000ull;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetTileConfig(HSAuint32, HsaGpuTileConfig* c) {
  c->NumTileConfigs = 0;
  c->NumMacroTileConfigs = 0;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetXNACKMode(HSAint32* enable) {
  *enable = 0;
  return HSAKMT_STATUS_SUCCESS;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtSetXNACKMode(HSAint32) { return HSAKMT_STATUS_SUCCESS; }
HSAKMT_STATUS HSAKMTAPI hsaKmtSetTrapHandler(HSAuint32, void*, HSAuint64, void*, HSAuint64) { return HSAKMT_STATUS_SUCCESS; }
HSAKMT_STATUS HSAKMTAPI hsaKmtSetMemoryPolicy(HSAuint32, HSAuint32, HSAuint32, void*, HSAuint64) { return HSAKMT_STATUS_SUCCESS; }
HSAKMT_STATUS HSAKMTAPI hsaKmtSetMemoryUserData(const void*, void*) { return HSAKMT_STATUS_SUCCESS; }

// Memory: host mappings for every kind; mapping to the GPU is the identity.
HSAKMT_STATUS HSAKMTAPI hsaKmtAllocMemory(HSAuint32 node, HSAuint64 bytes, HsaMemFlags flags, void** address) {
  // Coarse-grained GPU memory is what the GPU's L2 caches write-back (fine-grained memory and the
  // host's are coherent: the cache model leaves them in memory).
  const bool reserve = flags.ui32.Scratch || bytes >= kScratchReservation;
  void* p = allocate(bytes, reserve, node, node != 0 && flags.ui32.CoarseGrain);
  if (!p) return HSAKMT_STATUS_NO_MEMORY;
  *address = p;
  return HSAKMT_STATUS_SUCCESS;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtFreeMemory(void* address, HSAuint64) {
  return release(address) ? HSAKMT_STATUS_SUCCESS : HSAKMT_STATUS_INVALID_PARAMETER;
}
// Mapping is the identity; the nodes mapped to are recorded for hsaKmtQueryPointerInfo (what
// hsa_amd_pointer_info reports as the agents that may access the memory).
HSAKMT_STATUS HSAKMTAPI hsaKmtMapMemoryToGPU(void* address, HSAuint64, HSAuint64* alternate) {
  if (alternate) *alternate = reinterpret_cast<HSAuint64>(address);
  // The KFD maps to the node the memory was allocated on, or to every GPU for the host's memory.
  Region r;
  if (find_region(reinterpret_cast<std::uint64_t>(address), &r) && r.base == reinterpret_cast<std::uint64_t>(address)) {
    std::vector<std::uint32_t> nodes;
    if (r.node != 0) nodes.push_back(r.node);
    else for (std::uint32_t g = 1; g <= config().gpus; ++g) nodes.push_back(g);
    set_mapped(address, std::move(nodes));
  }
  return HSAKMT_STATUS_SUCCESS;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtMapMemoryToGPUNodes(void* address, HSAuint64, HSAuint64* alternate, HsaMemMapFlags,
                                                  HSAuint64 count, HSAuint32* nodes) {
  if (alternate) *alternate = reinterpret_cast<HSAuint64>(address);
  set_mapped(address, std::vector<std::uint32_t>(nodes, nodes + count));
  return HSAKMT_STATUS_SUCCESS;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtUnmapMemoryToGPU(void*) { return HSAKMT_STATUS_SUCCESS; }
// Host memory ROCr registers (hsa_amd_memory_lock) is reachable by kernels from now on.
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterMemoryWithFlags(void* address, HSAuint64 bytes, HsaMemFlags) {
  register_host(address, bytes);
  return HSAKMT_STATUS_SUCCESS;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtDeregisterMemory(void* address) {
  deregister_host(address);
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtQueryPointerInfo(const void* pointer, HsaPointerInfo* info) {
  std::memset(info, 0, sizeof *info);
  // The caller copies MappedNodes at once (ROCr does, under its memory lock).
  thread_local std::vector<std::uint32_t> mapped;
  Region r;
  if (find_region(reinterpret_cast<std::uint64_t>(pointer), &r)) {
    info->Type = r.registered ? HSA_POINTER_REGISTERED_USER : HSA_POINTER_ALLOCATED;
    info->Node = r.node;
    info->GPUAddress = r.base;
    info->CPUAddress = reinterpret_cast<void*>(r.base);
    info->SizeInBytes = r.size;
    mapped = std::move(r.mapped);
    info->NMappedNodes = std::uint32_t(mapped.size());
    info->MappedNodes = mapped.data();
  } else {
    info->Type = HSA_POINTER_UNKNOWN;
  }
  return HSAKMT_STATUS_SUCCESS;
}

// Sharing, graphics interop and SVM: not on a simulated GPU.
HSAKMT_STATUS HSAKMTAPI hsaKmtShareMemory(void*, HSAuint64, HsaSharedMemoryHandle*) { return HSAKMT_STATUS_NOT_SUPPORTED; }
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterSharedHandle(const HsaSharedMemoryHandle*, void**, HSAuint64*) {
  return HSAKMT_STATUS_NOT_SUPPORTED;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterSharedHandleToNodes(const HsaSharedMemoryHandle*, void**, HSAuint64*, HSAuint64,
                                                          HSAuint32*) {
  return HSAKMT_STATUS_NOT_SUPPORTED;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterGraphicsHandleToNodes(HSAuint64, HsaGraphicsResourceInfo*, HSAuint64, HSAuint32*) {
  return HSAKMT_STATUS_NOT_SUPPORTED;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtSVMGetAttr(void*, HSAuint64, unsigned int, HSA_SVM_ATTRIBUTE*) { return HSAKMT_STATUS_NOT_SUPPORTED; }
HSAKMT_STATUS HSAKMTAPI hsaKmtSVMSetAttr(void*, HSAuint64, unsigned int, HSA_SVM_ATTRIBUTE*) { return HSAKMT_STATUS_NOT_SUPPORTED; }

// The device's GWS to one queue (0 resources: back from it), as KFD does: all of them, the
// first at 0; another queue of the device that holds them makes this fail.
HSAKMT_STATUS HSAKMTAPI hsaKmtAllocQueueGWS(HSA_QUEUEID id, HSAuint32 count, HSAuint32* first) {
  switch (allocate_gws(id, count)) {
    case GwsResult::ok:
      if (first) *first = 0;
      return HSAKMT_STATUS_SUCCESS;
    case GwsResult::no_queue: return HSAKMT_STATUS_INVALID_HANDLE;
    case GwsResult::busy: return HSAKMT_STATUS_ERROR;
  }
  return HSAKMT_STATUS_ERROR;
}

// Events (sim_events.cpp): hsad-sim runs ROCr with interrupts on, so its signals have events
// that the packet processor fires as the command processor would.
HSAKMT_STATUS HSAKMTAPI hsaKmtCreateEvent(HsaEventDescriptor* desc, bool, bool signaled, HsaEvent** event) {
  *event = create_event(desc ? desc->EventType : HSA_EVENTTYPE_SIGNAL, signaled);
  return HSAKMT_STATUS_SUCCESS;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtDestroyEvent(HsaEvent* event) {
  destroy_event(event);
  return HSAKMT_STATUS_SUCCESS;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtSetEvent(HsaEvent* event) {
  set_event(event);
  return HSAKMT_STATUS_SUCCESS;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnMultipleEvents(HsaEvent* events[], HSAuint32 n, bool all, HSAuint32 ms) {
  return wait_events(events, n, all, ms) ? HSAKMT_STATUS_SUCCESS : HSAKMT_STATUS_WAIT_TIMEOUT;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnEvent(HsaEvent* event, HSAuint32 ms) {
  return hsaKmtWaitOnMultipleEvents(&event, 1, true, ms);
}

// Queues: AQL rings are drained by the software packet processor; nothing else is created.
HSAKMT_STATUS HSAKMTAPI hsaKmtCreateQueue(HSAuint32 node, HSA_QUEUE_TYPE type, HSAuint32, HSA_QUEUE_PRIORITY,
                                          void* ring, HSAuint64 bytes, HsaEvent*, HsaQueueResource* r) {
  if (!is_gpu(node)) return HSAKMT_STATUS_INVALID_NODE_UNIT;
  if (type == HSA_QUEUE_SDMA || type == HSA_QUEUE_SDMA_XGMI) return create_sdma_queue(node, ring, bytes, r);
  if (type != HSA_QUEUE_COMPUTE_AQL) return HSAKMT_STATUS_NOT_SUPPORTED;
  // ROCr fills in the read and write index addresses and, when it wants exceptions reported
  // there, ErrorReason; the resource struct is ROCr's temporary, so both are copied now.
  std::uint64_t* doorbell = nullptr;
  r->QueueId = create_aql_queue(node, ring, bytes, r->Queue_read_ptr_aql, r->ErrorReason, &doorbell);
  r->Queue_DoorBell_aql = doorbell;
  return HSAKMT_STATUS_SUCCESS;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtUpdateQueue(HSA_QUEUEID, HSAuint32, HSA_QUEUE_PRIORITY, void*, HSAuint64, HsaEvent*) {
  return HSAKMT_STATUS_SUCCESS;
}
// Not a KFD call: the simulated GPU's account of why the queue on `ring` stopped, which a
// real driver does not give (ROCr only reports HSA_STATUS_ERROR_EXCEPTION). The rocr backend
// looks for this symbol and, where it is there, puts the text into its error.
extern "C" std::size_t hsaKmtSimQueueError(const void* ring, char* buffer, std::size_t bytes) {
  return queue_error(ring, buffer, bytes);
}

// Not a KFD call either: what the cache model's L2s did at fences so far, summed over GPU `node`
// (0: every GPU): releases, lines written back, acquires, lines invalidated. Returns 0 where the
// model is off. A model's count, which the benches report per rung (apps/common/sim_cache.*).
extern "C" int hsaKmtSimCacheCounters(std::uint32_t node, std::uint64_t out[4]) {
  std::uint64_t sum[4] = {0, 0, 0, 0};
  bool any = false;
  for (std::uint32_t g = 1; g <= config().gpus; ++g) {
    const hsad::isa::L2Cache* l2 = (node == 0 || node == g) ? l2_of(g) : nullptr;
    if (!l2) continue;
    const hsad::isa::L2Cache::Counters c = l2->counters();
    sum[0] += c.write_backs, sum[1] += c.lines_written_back, sum[2] += c.invalidations, sum[3] += c.lines_invalidated;
    any = true;
  }
  std::memcpy(out, sum, sizeof sum);
  return any ? 1 : 0;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtDestroyQueue(HSA_QUEUEID id) {
  const bool destroyed = is_sdma_queue_id(id) ? destroy_sdma_queue(id) : destroy_queue(id);
  return destroyed ? HSAKMT_STATUS_SUCCESS : HSAKMT_STATUS_INVALID_HANDLE;
}
HSAKMT_STATUS HSAKMTAPI hsaKmtSetQueueCUMask(HSA_QUEUEID, HSAuint32, HSAuint32*) { return HSAKMT_STATUS_SUCCESS; }

}  // extern "C"
