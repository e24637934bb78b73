// RocrDevice: agents and pools found through ROCr, code objects picked by the agent's ISA name
// and loaded with hsa_code_object_reader + hsa_executable, copies by hsa_amd_memory_async_copy.
#include "backends/rocr/rocr_device.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <thread>

#include "backends/aql/aql_queue.hpp"
#include "backends/rocr/rocr_backend.hpp"
#include "backends/rocr/rocr_ring.hpp"
#include "codeobject/amdgpu_occupancy.hpp"
#include "hsad/error.hpp"
#include "hsad/queue.hpp"
#include "module/module_format.hpp"
#include "whole_file.hpp"

extern "C" const unsigned char hsad_amd_code_objects[];
extern "C" const unsigned long long hsad_amd_code_objects_size;

namespace hsad::rocr {

BackendStatus probe() { return RocrDevice::probe(); }
std::vector<std::shared_ptr<detail::DeviceImpl>> open() { return RocrDevice::open(); }

namespace {
constexpr std::uint32_t kDefaultQueuePackets = 4096;

// The embedded bundle, or the file HSAD_AMD_CODE_OBJECTS names (a bundle or one ELF): kernels
// built for a target this library was not built for, without rebuilding it.
std::string read_code_objects_file() {
  const char* path = std::getenv("HSAD_AMD_CODE_OBJECTS");
  if (!path || !*path) return std::string();
  return detail::read_whole_file(path, "rocr", "kernel (HSAD_AMD_CODE_OBJECTS)");
}

std::string_view embedded_code_objects() {
  return {reinterpret_cast<const char*>(hsad_amd_code_objects), std::size_t(hsad_amd_code_objects_size)};
}

// Read when the first kernel is loaded, once for the process.
std::string_view code_objects() {
  static const std::string from_file = read_code_objects_file();
  if (!from_file.empty()) return from_file;
  return embedded_code_objects();
}

// What DeviceInfo::code_object says: the library's object this agent would run, and why.
std::string describe_code_object_choice(const std::string& isa) {
  try {
    // Not code_objects(): HSAD_AMD_CODE_OBJECTS may still be set before the first kernel loads.
    const std::string from_file = read_code_objects_file();
    const std::string_view all = from_file.empty() ? embedded_code_objects() : std::string_view(from_file);
    if (all.empty()) return "none (built without hipcc)";
    const CodeObjectChoice c = choose_code_object(all, isa);
    if (c.bytes.empty()) return "none (" + c.reason + "; have: " + code_object_targets(all) + ")";
    return c.target + " (" + c.reason + ")";
  } catch (const std::exception& e) {  // an unreadable or malformed HSAD_AMD_CODE_OBJECTS: said when a kernel loads
    return std::string("none (") + e.what() + ")";
  }
}

template <typename T>
T agent_info(const Api& api, hsa_agent_t agent, int attribute, const char* what) {
  T value{};
  check(api.hsa_agent_get_info(agent, hsa_agent_info_t(attribute), &value), what);
  return value;
}

std::string agent_string(const Api& api, hsa_agent_t agent, int attribute, const char* what) {
  char text[64] = {};
  check(api.hsa_agent_get_info(agent, hsa_agent_info_t(attribute), text), what);
  return std::string(text, strnlen(text, sizeof text));
}

// The agent's first ISA with its target features ("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"),
// what code objects are matched against; the bare name where ROCr lists none.
hsa_status_t first_isa(hsa_isa_t isa, void* data) {
  *static_cast<hsa_isa_t*>(data) = isa;
  return HSA_STATUS_INFO_BREAK;
}

std::string full_isa_name(const Api& api, hsa_agent_t agent, const std::string& fallback) {
  hsa_isa_t isa{0};
  api.hsa_agent_iterate_isas(agent, &first_isa, &isa);
  if (isa.handle == 0) return fallback;
  std::uint32_t length = 0;
  if (api.hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &length) != HSA_STATUS_SUCCESS || length == 0) return fallback;
  std::string name(length, '\0');
  if (api.hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, name.data()) != HSA_STATUS_SUCCESS) return fallback;
  name.resize(strnlen(name.c_str(), name.size()));
  return name;
}

struct Discovery {
  const Api* api;
  std::vector<hsa_agent_t> gpus;
  hsa_agent_t host{0};
};

hsa_status_t collect_agent(hsa_agent_t agent, void* data) {
  auto* d = static_cast<Discovery*>(data);
  hsa_device_type_t type{};
  if (hsa_status_t s = d->api->hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type); s != HSA_STATUS_SUCCESS) return s;
  if (type == HSA_DEVICE_TYPE_GPU) d->gpus.push_back(agent);
  if (type == HSA_DEVICE_TYPE_CPU && d->host.handle == 0) d->host = agent;
  return HSA_STATUS_SUCCESS;
}

Discovery discover(const Api& api) {
  Discovery d{&api, {}, {0}};
  check(api.hsa_iterate_agents(&collect_agent, &d), "hsa_iterate_agents");
  return d;
}

struct PoolSearch {
  const Api* api;
  bool host;
  Pools* out;
};

hsa_status_t collect_pool(hsa_amd_memory_pool_t pool, void* data) {
  auto* p = static_cast<PoolSearch*>(data);
  hsa_amd_segment_t segment{};
  std::uint32_t flags = 0;
  bool can_alloc = false;
  p->api->hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment);
  p->api->hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
  p->api->hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &can_alloc);
  if (segment != HSA_AMD_SEGMENT_GLOBAL || !can_alloc) return HSA_STATUS_SUCCESS;
  if (p->host) {
    if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) && p->out->kernarg.handle == 0) p->out->kernarg = pool;
    if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) && p->out->fine_host.handle == 0) p->out->fine_host = pool;
  } else if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) && p->out->device.handle == 0) {
    p->out->device = pool;
  } else if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) && p->out->device_fine.handle == 0) {
    p->out->device_fine = pool;
  }
  return HSA_STATUS_SUCCESS;
}

Pools find_pools(const Api& api, hsa_agent_t gpu, hsa_agent_t host) {
  Pools pools;
  pools.host_agent = host;
  PoolSearch host_search{&api, true, &pools};
  check(api.hsa_amd_agent_iterate_memory_pools(host, &collect_pool, &host_search), "hsa_amd_agent_iterate_memory_pools");
  PoolSearch gpu_search{&api, false, &pools};
  check(api.hsa_amd_agent_iterate_memory_pools(gpu, &collect_pool, &gpu_search), "hsa_amd_agent_iterate_memory_pools");
  if (pools.kernarg.handle == 0) throw Error("rocr", "open", "the host agent has no kernarg memory pool");
  if (pools.fine_host.handle == 0) throw Error("rocr", "open", "the host agent has no fine-grained memory pool");
  if (pools.device.handle == 0) throw Error("rocr", "open", "the GPU agent has no coarse-grained memory pool");
  return pools;
}
}  // namespace

struct RocrDevice::Executable {
  const Api& api;
  hsa_code_object_reader_t reader{0};
  hsa_executable_t exe{0};
  CodeObject code_object;  // our own reading of the same bytes: the kernarg layouts

  explicit Executable(const Api& a) : api(a) {}
  ~Executable() {
    if (exe.handle) api.hsa_executable_destroy(exe);
    if (reader.handle) api.hsa_code_object_reader_destroy(reader);
  }
};

BackendStatus RocrDevice::probe() {
  std::string why;
  const Api* a = rocr::api(&why);
  if (!a) return {"rocr", false, why};
  try {
    const Discovery d = discover(*a);
    if (d.gpus.empty()) return {"rocr", false, "ROCr found no GPU agent"};
    return {"rocr", true, std::to_string(d.gpus.size()) + " GPU agent(s)"};
  } catch (const Error& e) {
    return {"rocr", false, e.what()};
  }
}

std::vector<std::shared_ptr<detail::DeviceImpl>> RocrDevice::open() {
  std::string why;
  const Api* a = rocr::api(&why);
  if (!a) throw Error(Errc::driver_missing, "rocr", "open", why);
  const Discovery d = discover(*a);
  if (d.host.handle == 0) throw Error("rocr", "open", "ROCr found no CPU agent for host memory");
  std::vector<std::shared_ptr<detail::DeviceImpl>> all;
  for (hsa_agent_t gpu : d.gpus) {
    auto device = std::make_shared<RocrDevice>(*a, gpu, find_pools(*a, gpu, d.host));
    device->ordinal_ = std::uint32_t(all.size());  // ROCr's GPU agents in its order: HIP's device ids
    all.push_back(std::move(device));
  }
  return all;
}

RocrDevice::RocrDevice(const Api& api, hsa_agent_t agent, const Pools& pools)
    : api_(api), agent_(agent), access_{agent}, pools_(pools) {
  info_.backend = "rocr";
  hardware_id_ = agent.handle;
  info_.isa = agent_string(api_, agent_, HSA_AGENT_INFO_NAME, "hsa_agent_get_info(NAME)");
  isa_name_ = full_isa_name(api_, agent_, info_.isa);
  info_.code_object = describe_code_object_choice(isa_name_);
  info_.name = agent_string(api_, agent_, HSA_AMD_AGENT_INFO_PRODUCT_NAME, "hsa_agent_get_info(PRODUCT_NAME)");
  if (info_.name.empty()) info_.name = "AMD " + info_.isa;
  info_.wavefront_size = agent_info<std::uint32_t>(api_, agent_, HSA_AGENT_INFO_WAVEFRONT_SIZE, "hsa_agent_get_info(WAVEFRONT_SIZE)");
  info_.compute_units = agent_info<std::uint32_t>(api_, agent_, HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT,
                                                  "hsa_agent_get_info(COMPUTE_UNIT_COUNT)");
  info_.max_queue_packets = agent_info<std::uint32_t>(api_, agent_, HSA_AGENT_INFO_QUEUE_MAX_SIZE, "hsa_agent_get_info(QUEUE_MAX_SIZE)");
  info_.limits = dispatch_limits();
  struct CacheSizes { std::uint32_t level[4]; };
  const auto caches = agent_info<CacheSizes>(api_, agent_, HSA_AGENT_INFO_CACHE_SIZE, "hsa_agent_get_info(CACHE_SIZE)");
  for (std::uint32_t bytes : caches.level) {
    if (bytes) info_.last_level_cache_bytes = bytes;  // the last level reported
  }
  info_.last_level_cache_source = info_.last_level_cache_bytes ? "driver" : "unknown";
  std::size_t memory = 0;
  api_.hsa_amd_memory_pool_get_info(pools_.device, HSA_AMD_MEMORY_POOL_INFO_SIZE, &memory);
  info_.memory_bytes = memory;
  check(api_.hsa_signal_create(0, 0, nullptr, &copy_signal_), "hsa_signal_create");
  faults_ = std::make_unique<MemoryFaults>(api_, agent_, info_.name + " (" + isa_name_ + ")");
}

// ROCr's own limits for a dispatch (the packet's fields are wider than what the hardware takes).
DispatchLimits RocrDevice::dispatch_limits() const {
  DispatchLimits l;
  const auto group = agent_info<std::array<std::uint16_t, 3>>(api_, agent_, HSA_AGENT_INFO_WORKGROUP_MAX_DIM,
                                                               "hsa_agent_get_info(WORKGROUP_MAX_DIM)");
  l.max_group = Dim3{group[0], group[1], group[2]};
  l.max_group_size = agent_info<std::uint32_t>(api_, agent_, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE,
                                               "hsa_agent_get_info(WORKGROUP_MAX_SIZE)");
  const auto grid = agent_info<hsa_dim3_t>(api_, agent_, HSA_AGENT_INFO_GRID_MAX_DIM, "hsa_agent_get_info(GRID_MAX_DIM)");
  l.max_grid = Dim3{grid.x, grid.y, grid.z};
  l.max_grid_items = agent_info<std::uint32_t>(api_, agent_, HSA_AGENT_INFO_GRID_MAX_SIZE, "hsa_agent_get_info(GRID_MAX_SIZE)");
  // LDS per work-group: the size of the agent's group-segment pool, as CLR reads it (64 KiB on
  // gfx90a); the default stays where ROCr reports no such pool.
  struct GroupSearch {
    const Api* api;
    std::size_t bytes = 0;
  } search{&api_};
  const auto find_group = [](hsa_amd_memory_pool_t pool, void* data) {
    auto* g = static_cast<GroupSearch*>(data);
    hsa_amd_segment_t segment{};
    g->api->hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment);
    if (segment == HSA_AMD_SEGMENT_GROUP) g->api->hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &g->bytes);
    return HSA_STATUS_SUCCESS;
  };
  api_.hsa_amd_agent_iterate_memory_pools(agent_, find_group, &search);
  if (search.bytes > 0 && search.bytes <= 0xffffffffu) l.max_group_memory_bytes = std::uint32_t(search.bytes);
  return l;
}

std::uint32_t RocrDevice::max_active_groups_per_cu(const detail::KernelImpl& kernel, std::uint32_t group_size,
                                                   std::uint32_t dynamic_shared_bytes) const {
  const auto cu = codeobject::amdgpu_compute_unit(isa_name_);
  if (!cu) {
    throw Error(Errc::unsupported, "rocr", "max_active_groups_per_cu",
                "the occupancy model covers gfx900 to gfx950 and RDNA's gfx1010 to gfx1201, not " + info_.isa,
                "use rocprof's occupancy counters on this GPU");
  }
  return codeobject::amdgpu_groups_per_cu(*cu, kernel.info, group_size, dynamic_shared_bytes);
}

RocrDevice::~RocrDevice() {
  hostcall_.reset();  // its listener stops first: nothing asks it for the heap's slabs any more
  if (heap_) raw_deallocate(heap_, 0, Memory::device);
  if (grid_sync_) raw_deallocate(grid_sync_, 0, Memory::device);
  api_.hsa_signal_destroy(copy_signal_);
}

void RocrDevice::throw_if_faulted() const {
  if (!faults_->faulted()) return;
  throw Error(Errc::device_fault, "rocr", "wait", faults_->text() + "; every queue of the agent stopped",
              "the kernels in flight may have written memory partly; Device::reset() destroys the queues and "
              "clears the fault");
}

void RocrDevice::reset_device(const std::vector<std::shared_ptr<detail::QueueImpl>>&) { faults_->clear(); }

// 0: the default; else a power of two in [2, the agent's maximum] (create_queue and the cooperative one).
std::uint32_t RocrDevice::queue_packets(std::uint32_t packets, const char* call) const {
  if (packets == 0) return std::min(kDefaultQueuePackets, info_.max_queue_packets);
  if (packets < 2 || packets > info_.max_queue_packets || (packets & (packets - 1)) != 0) {
    throw Error(Errc::invalid_argument, "rocr", call, "queue size " + std::to_string(packets) + " is not a power of two in [2, " +
                                                          std::to_string(info_.max_queue_packets) + "] (this agent's maximum)");
  }
  return packets;
}

std::shared_ptr<detail::QueueImpl> RocrDevice::create_queue(std::uint32_t packets, Priority priority) {
  packets = queue_packets(packets, "create_queue");
  auto ring = std::make_unique<RocrRing>(api_, agent_, packets, HSA_QUEUE_TYPE_MULTI);
  if (priority == Priority::high) ring->set_high_priority();
  return std::make_shared<detail::AqlQueue>(shared_from_this(), *this, std::move(ring), detail::AqlQueue::Config{});
}

std::shared_ptr<detail::QueueImpl> RocrDevice::create_cooperative_queue(std::uint32_t packets) {
  packets = queue_packets(packets, "create_cooperative_queue");
  bool cooperative = false;
  api_.hsa_agent_get_info(agent_, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES), &cooperative);
  if (!cooperative) {
    throw Error(Errc::unsupported, "rocr", "create_cooperative_queue",
                "agent " + info_.name + " has no cooperative queues (ROCr: HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES is false; "
                "the driver gave it no GWS)");
  }
  std::unique_ptr<RocrRing> ring;
  {
    std::lock_guard<std::mutex> lock(cooperative_mutex_);
    std::shared_ptr<SharedCooperativeQueue> shared = cooperative_.lock();
    if (shared && shared->status.load(std::memory_order_acquire) != HSA_STATUS_SUCCESS) {
      throw Error(Errc::queue_stopped, "rocr", "create_cooperative_queue",
                  "agent " + info_.name + "'s cooperative queue stopped after an error, and ROCr hands out that same "
                  "queue (one per agent, shared by every cooperative queue of the process) while any is held",
                  "destroy every cooperative Queue of this device; ROCr then makes a new one");
    }
    if (!shared) {
      shared = std::make_shared<SharedCooperativeQueue>();
      cooperative_ = shared;
    }
    ring = std::make_unique<RocrRing>(api_, agent_, packets, std::move(shared));
  }
  detail::AqlQueue::Config config;
  config.cooperative = true;
  return std::make_shared<detail::AqlQueue>(shared_from_this(), *this, std::move(ring), config);
}

std::uint64_t RocrDevice::hostcall_buffer() {
  // A packet for every wave the device may hold at once (the device library never finds the pool
  // empty): 64 per compute unit covers GCN's 40 and RDNA's 32.
  std::call_once(hostcall_once_, [this] {
    hostcall_ = std::make_unique<HostcallService>(api_, agent_, pools_.fine_host, pools_.device,
                                                  std::max<std::uint32_t>(64, info_.compute_units * 64));
  });
  return hostcall_->buffer();
}

std::uint64_t RocrDevice::device_heap() {
  // The device library's heap_t: all zero is its initial state; its slabs come through the
  // hostcall device-memory service, so the hostcall service runs too. 4 MiB, as HIP's initial heap.
  std::call_once(heap_once_, [this] {
    constexpr std::size_t kHeapBytes = 4u << 20;
    void* p = raw_allocate(kHeapBytes, Memory::device);
    const std::vector<unsigned char> zeros(kHeapBytes, 0);
    transfer_to_device(p, zeros.data(), kHeapBytes, false);
    heap_ = p;
  });
  (void)hostcall_buffer();
  return reinterpret_cast<std::uint64_t>(heap_);
}

std::uint64_t RocrDevice::grid_sync_block() {
  // Written by hsad_gws_init on the device before each cooperative dispatch: never by the host.
  std::call_once(grid_sync_once_, [this] { grid_sync_ = raw_allocate(64, Memory::device); });
  return reinterpret_cast<std::uint64_t>(grid_sync_);
}

std::shared_ptr<const detail::KernelImpl> RocrDevice::gws_init_kernel() {
  std::call_once(gws_init_once_, [this] { gws_init_ = load_kernel("hsad_gws_init"); });
  return gws_init_;
}

std::shared_ptr<const detail::KernelImpl> RocrDevice::loop_control_kernel() {
  std::call_once(loop_control_once_, [this] { loop_control_ = load_kernel("hsad_loop_control"); });
  return loop_control_;
}

std::unique_ptr<detail::AqlRing> RocrDevice::create_loop_ring(std::uint32_t packets) {
  return std::make_unique<RocrRing>(api_, agent_, packets, HSA_QUEUE_TYPE_MULTI);
}

std::shared_ptr<const RocrDevice::Executable> RocrDevice::load_executable(std::string_view bytes) {
  auto exe = std::make_shared<Executable>(api_);
  exe->code_object = read_code_object(bytes);
  check(api_.hsa_code_object_reader_create_from_memory(bytes.data(), bytes.size(), &exe->reader),
        "hsa_code_object_reader_create_from_memory");
  check(api_.hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, &exe->exe),
        "hsa_executable_create_alt");
  check(api_.hsa_executable_load_agent_code_object(exe->exe, agent_, exe->reader, nullptr, nullptr),
        "hsa_executable_load_agent_code_object");
  check(api_.hsa_executable_freeze(exe->exe, nullptr), "hsa_executable_freeze");
  return exe;
}

std::shared_ptr<const RocrDevice::Executable> RocrDevice::executable() {
  std::lock_guard<std::mutex> lock(exe_mutex_);
  if (exe_) return exe_;
  const std::string_view all = code_objects();
  if (all.empty()) throw Error(Errc::unsupported, "rocr", "kernel", "built without hipcc: no AMD code objects embedded");
  const CodeObjectChoice choice = choose_code_object(all, isa_name_);
  if (choice.bytes.empty()) {
    const std::string generic = amdgpu_generic_target(TargetId::parse(isa_name_).processor);
    const std::string wanted = info_.isa + (generic.empty() ? "" : " or " + generic);
    throw Error(Errc::unsupported, "rocr", "kernel", "no code object for " + wanted + " (have: " + code_object_targets(all) + ")",
                "rebuild with HSAD_AMDGPU_TARGETS including " + wanted + ", or point HSAD_AMD_CODE_OBJECTS at a code object for it");
  }
  exe_ = load_executable(choice.bytes);
  return exe_;
}

std::shared_ptr<detail::KernelImpl> RocrDevice::make_kernel(const std::shared_ptr<const Executable>& exe,
                                                            std::string_view name, const std::string& where) {
  const auto& kernels = exe->code_object.kernels;
  const auto it = std::find_if(kernels.begin(), kernels.end(), [&](const CodeObjectKernel& k) { return k.info.name == name; });
  if (it == kernels.end()) {
    throw Error(Errc::invalid_argument, "rocr", "kernel", "no kernel named '" + std::string(name) + "' in " + where);
  }
  hsa_executable_symbol_t symbol{};
  check(api_.hsa_executable_get_symbol_by_name(exe->exe, it->symbol.c_str(), &agent_, &symbol),
        "hsa_executable_get_symbol_by_name");
  auto k = std::make_shared<detail::KernelImpl>();
  k->info = it->info;
  auto symbol_u32 = [&](hsa_executable_symbol_info_t attribute) {
    std::uint32_t v = 0;
    check(api_.hsa_executable_symbol_get_info(symbol, attribute, &v), "hsa_executable_symbol_get_info");
    return v;
  };
  // The executable is the authority for what the packet carries; the metadata for the layout.
  check(api_.hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &k->kernel_object),
        "hsa_executable_symbol_get_info(KERNEL_OBJECT)");
  k->info.kernarg_segment_size = symbol_u32(HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE);
  k->info.kernarg_segment_align = symbol_u32(HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT);
  k->info.group_segment_size = symbol_u32(HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE);
  k->info.private_segment_size = symbol_u32(HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE);
  k->hidden_args = aql::plan_hidden_args(k->info);
  k->needs_hostcall = aql::needs_hostcall(k->hidden_args);
  k->needs_heap = aql::needs_heap(k->hidden_args);
  k->keep_alive = exe;
  return k;
}

std::shared_ptr<const detail::KernelImpl> RocrDevice::load_kernel(std::string_view name) {
  return make_kernel(executable(), name, "the library's code object for " + info_.isa);
}

// An application's module: its own executable, loaded through ROCr's loader like the library's.
class RocrDevice::Module : public detail::ModuleImpl {
 public:
  Module(RocrDevice& device, std::shared_ptr<const Executable> exe) : device_(device), exe_(std::move(exe)) {}

 protected:
  std::shared_ptr<detail::KernelImpl> load_kernel(const std::string& name) override {
    return device_.make_kernel(exe_, name, "module '" + origin + "'");
  }

 private:
  RocrDevice& device_;
  std::shared_ptr<const Executable> exe_;
};

std::shared_ptr<detail::ModuleImpl> RocrDevice::load_module(std::string_view bytes, const std::string& origin) {
  const detail::ModuleFormat f = detail::detect_module_format(bytes);
  if (detail::is_cuda(f)) {
    throw Error(Errc::unsupported, "rocr", "load_module", "'" + origin + "' is " + detail::describe(f) + ": NVIDIA code cannot run on " +
                                           info_.isa, "load the AMD code object (hipcc --genco) on an AMD GPU");
  }
  if (!detail::is_amd(f)) throw Error(Errc::invalid_argument, "rocr", "load_module", "'" + origin + "' is " + detail::describe(f));
  std::shared_ptr<const Executable> exe;
  try {
    const std::string_view entry = select_code_object(bytes, isa_name_);
    if (entry.empty()) {
      throw Error(Errc::unsupported, "rocr", "load_module",
                  "'" + origin + "' has no code object for " + TargetId::parse(isa_name_).to_string() + " (it has: " +
                      code_object_targets(bytes) + ")",
                  "build it with --offload-arch=" + info_.isa);
    }
    exe = load_executable(entry);
  } catch (const Error& e) {
    if (e.backend() != "code-object") throw;
    throw Error(Errc::invalid_argument, "rocr", "load_module", "'" + origin + "': " + e.status());  // malformed or truncated
  }
  auto m = std::make_shared<Module>(*this, exe);
  m->device = this;
  m->origin = origin;
  m->target = TargetId::parse(exe->code_object.target).to_string();
  for (const CodeObjectKernel& k : exe->code_object.kernels) m->names.push_back(k.info.name);
  std::sort(m->names.begin(), m->names.end());
  m->code = exe;
  return m;
}

bool RocrDevice::peer_access(detail::DeviceImpl& other_impl) {
  if (other_impl.info().backend != "rocr") return false;
  auto& other = static_cast<RocrDevice&>(other_impl);
  hsa_amd_memory_pool_access_t access = HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED;
  check(api_.hsa_amd_agent_memory_pool_get_info(agent_, other.pools_.device, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS,
                                                &access),
        "hsa_amd_agent_memory_pool_get_info(ACCESS)");
  if (access == HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED) return false;
  other.grant_access(agent_);
  return true;
}

std::vector<hsa_agent_t> RocrDevice::access_list() {
  std::lock_guard<std::mutex> lock(access_mutex_);
  return access_;
}

void RocrDevice::allow_access(void* ptr, const std::vector<hsa_agent_t>& agents) {
  check(api_.hsa_amd_agents_allow_access(std::uint32_t(agents.size()), agents.data(), nullptr, ptr),
        "hsa_amd_agents_allow_access");
}

void RocrDevice::grant_access(hsa_agent_t agent) {
  std::vector<hsa_agent_t> agents;
  {
    std::lock_guard<std::mutex> lock(access_mutex_);
    for (const hsa_agent_t& a : access_) {
      if (a.handle == agent.handle) return;  // granted before
    }
    access_.push_back(agent);
    agents = access_;
  }
  for (const auto& [ptr, bytes] : allocations()) allow_access(ptr, agents);
}

void RocrDevice::allocated(void* ptr, std::size_t, Memory) {
  const std::vector<hsa_agent_t> agents = access_list();
  if (agents.size() > 1) allow_access(ptr, agents);  // the owner alone: raw_allocate did what it needs
}

void* RocrDevice::raw_allocate(std::size_t bytes, Memory kind) {
  const hsa_amd_memory_pool_t pool = kind == Memory::pinned_host          ? pools_.fine_host
                                     : kind == Memory::device_fine_grained ? pools_.device_fine
                                                                           : pools_.device;
  if (pool.handle == 0) {
    throw Error(Errc::unsupported, "rocr", "alloc",
                "Memory::device_fine_grained: this GPU's agent offers no fine-grained memory pool",
                "ROCr offers one on GPUs joined by XGMI (a hive), or on PCIe with HSA_FORCE_FINE_GRAIN_PCIE=1");
  }
  void* p = nullptr;
  check(api_.hsa_amd_memory_pool_allocate(pool, bytes, 0, &p), "hsa_amd_memory_pool_allocate");
  if (kind == Memory::pinned_host) {
    if (hsa_status_t s = api_.hsa_amd_agents_allow_access(1, &agent_, nullptr, p); s != HSA_STATUS_SUCCESS) {
      api_.hsa_amd_memory_pool_free(p);
      check(s, "hsa_amd_agents_allow_access");
    }
  }
  return p;
}

void RocrDevice::raw_deallocate(void* ptr, std::size_t, Memory) noexcept { api_.hsa_amd_memory_pool_free(ptr); }

std::size_t RocrDevice::copy(void* dst, const void* src, std::size_t bytes, bool host_is_src, bool host_pinned) {
  std::lock_guard<std::mutex> lock(copy_mutex_);
  void* host = host_is_src ? const_cast<void*>(src) : dst;
  void* host_for_gpu = host;
  if (!host_pinned) {
    // Pageable memory: ROCr's copy engines reach it only while it is locked.
    check(api_.hsa_amd_memory_lock(host, bytes, &agent_, 1, &host_for_gpu), "hsa_amd_memory_lock");
  }
  struct Unlock {
    const Api& api;
    void* p;
    ~Unlock() {
      if (p) api.hsa_amd_memory_unlock(p);
    }
  } unlock{api_, host_pinned ? nullptr : host};
  api_.hsa_signal_store_relaxed(copy_signal_, 1);
  if (host_is_src) {
    check(api_.hsa_amd_memory_async_copy(dst, agent_, host_for_gpu, pools_.host_agent, bytes, 0, nullptr, copy_signal_),
          "hsa_amd_memory_async_copy");
  } else {
    check(api_.hsa_amd_memory_async_copy(host_for_gpu, pools_.host_agent, src, agent_, bytes, 0, nullptr, copy_signal_),
          "hsa_amd_memory_async_copy");
  }
  const auto deadline = detail::Clock::now() + kDefaultTimeout;
  while (api_.hsa_signal_wait_scacquire(copy_signal_, HSA_SIGNAL_CONDITION_LT, 1, api_.timestamp_hz / 100,
                                        HSA_WAIT_STATE_BLOCKED) >= 1) {
    if (detail::Clock::now() > deadline) {
      throw Error(Errc::timeout, "rocr", "hsa_amd_memory_async_copy", "copy of " + std::to_string(bytes) + " bytes timed out",
                  "the copy engine or the blit queue is stuck");
    }
  }
  return host_pinned ? 0 : bytes;
}

std::size_t RocrDevice::transfer_to_device(void* dst, const void* src, std::size_t bytes, bool src_pinned) {
  return copy(dst, src, bytes, true, src_pinned);
}

std::size_t RocrDevice::transfer_to_host(void* dst, const void* src, std::size_t bytes, bool dst_pinned) {
  return copy(dst, src, bytes, false, dst_pinned);
}

hsa_signal_t RocrDevice::create_signal(std::int64_t initial) {
  hsa_signal_t s{};
  check(api_.hsa_signal_create(initial, 0, nullptr, &s), "hsa_signal_create");
  return s;
}

void RocrDevice::destroy_signal(hsa_signal_t signal) noexcept { api_.hsa_signal_destroy(signal); }

void RocrDevice::store_signal(hsa_signal_t signal, std::int64_t value) { api_.hsa_signal_store_relaxed(signal, value); }

std::int64_t RocrDevice::load_signal(hsa_signal_t signal) { return api_.hsa_signal_load_scacquire(signal); }

void RocrDevice::async_copy(const detail::Copy& c, const hsa_signal_t* deps, std::uint32_t dep_count, hsa_signal_t done,
                            std::vector<void*>& locked) {
  // Each side's agent: the GPU that owns the buffer, or the host (CPU) agent for host memory.
  auto side = [this](detail::DeviceImpl* d) { return d ? static_cast<RocrDevice*>(d)->agent_ : pools_.host_agent; };
  void* dst = c.dst;
  const void* src = c.src;
  if (!c.host_pinned) {
    // Pageable memory: the copy engine reaches it only while it is locked, until the submission
    // has completed (the submission unlocks it then).
    void* host = c.kind == detail::CopyKind::to_device ? const_cast<void*>(c.src) : c.dst;
    void* reachable = nullptr;
    check(api_.hsa_amd_memory_lock(host, c.bytes, &agent_, 1, &reachable), "hsa_amd_memory_lock");
    locked.push_back(host);
    if (c.kind == detail::CopyKind::to_device) src = reachable;
    else dst = reachable;
  }
  check(api_.hsa_amd_memory_async_copy(dst, side(c.dst_device), src, side(c.src_device), c.bytes, dep_count,
                                       dep_count ? deps : nullptr, done),
        "hsa_amd_memory_async_copy");
}

void RocrDevice::unlock_host(void* ptr) noexcept { api_.hsa_amd_memory_unlock(ptr); }

void RocrDevice::command_times(hsa_signal_t signal, bool async_copy, std::uint64_t* start_ns, std::uint64_t* end_ns) {
  std::uint64_t start = 0, end = 0;
  if (async_copy) {
    hsa_amd_profiling_async_copy_time_t t{};
    check(api_.hsa_amd_profiling_get_async_copy_time(signal, &t), "hsa_amd_profiling_get_async_copy_time");
    start = t.start, end = t.end;
  } else {
    hsa_amd_profiling_dispatch_time_t t{};
    check(api_.hsa_amd_profiling_get_dispatch_time(agent_, signal, &t), "hsa_amd_profiling_get_dispatch_time");
    start = t.start, end = t.end;
  }
  // Ticks of the system timestamp domain (HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY) to ns.
  const double ns_per_tick = 1e9 / double(api_.timestamp_hz);
  *start_ns = std::uint64_t(double(start) * ns_per_tick);
  *end_ns = std::uint64_t(double(end) * ns_per_tick);
}

bool RocrDevice::wait_signal_zero(hsa_signal_t signal, detail::Clock::time_point deadline,
                                  const std::function<void()>& check_abort) {
  // Spin briefly (a short batch finishes within it), then block in ROCr's wait; between hints,
  // look for a queue error so a faulting kernel reaches the waiter instead of hanging it. ROCr's
  // blocked wait still spins 200 us of each hint before it sleeps, so a wait past kBlockFor (a
  // device-run loop of many iterations) sleeps between looks instead, each sleep a 64th of the
  // time waited: next to no host CPU, and at most about 2% late.
  constexpr auto kBlockFor = std::chrono::milliseconds(2);
  const auto began = detail::Clock::now();
  bool first = true;
  for (;;) {
    const auto waited = detail::Clock::now() - began;
    if (waited >= kBlockFor) {
      if (api_.hsa_signal_load_scacquire(signal) == 0) return true;
      if (check_abort) check_abort();
      if (detail::Clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::min<detail::Clock::duration>(waited / 64, std::chrono::milliseconds(1)));
      continue;
    }
    const std::uint64_t hint = first ? api_.timestamp_hz / 5000 : api_.timestamp_hz / 1000;
    const hsa_signal_value_t v = api_.hsa_signal_wait_scacquire(signal, HSA_SIGNAL_CONDITION_EQ, 0, hint,
                                                                first ? HSA_WAIT_STATE_ACTIVE : HSA_WAIT_STATE_BLOCKED);
    if (v == 0) return true;
    if (check_abort) check_abort();
    if (detail::Clock::now() >= deadline) return false;
    first = false;
  }
}

void* RocrDevice::alloc_kernarg(std::size_t bytes) {
  void* p = nullptr;
  check(api_.hsa_amd_memory_pool_allocate(pools_.kernarg, bytes, 0, &p), "hsa_amd_memory_pool_allocate(kernarg)");
  if (hsa_status_t s = api_.hsa_amd_agents_allow_access(1, &agent_, nullptr, p); s != HSA_STATUS_SUCCESS) {
    api_.hsa_amd_memory_pool_free(p);
    check(s, "hsa_amd_agents_allow_access(kernarg)");
  }
  return p;
}

void RocrDevice::free_kernarg(void* ptr) noexcept { api_.hsa_amd_memory_pool_free(ptr); }

}  // namespace hsad::rocr
