#include "sim_isa.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>

#include "agent/queue_fault.hpp"
#include "interpreter.hpp"
#include "l2_cache.hpp"
#include "semantics.hpp"
#include "sim_cache_report.hpp"
#include "sim_code_object.hpp"
#include "sim_config.hpp"
#include "sim_memory.hpp"
#include "sim_queue.hpp"

namespace hsad::sim {
namespace {

// One decoded executable segment (per wave size on gfx10: the disassembler prints VCC and EXEC
// operands by it).
struct Code {
  std::uint64_t image_base = 0, image_size = 0;
  std::unique_ptr<isa::Program> program;
};

struct Entry {
  std::string name;
  std::uint64_t object = 0;
  isa::KernelDescriptor kd;
  std::shared_ptr<const Code> code;
  HostKernel host;
  bool fully_decoded = false;
  std::string unknown;
  bool grid_barrier = false;  // its code object holds a ds_gws_barrier (it or a function it calls may sync the grid)
};

std::mutex mutex;
std::map<std::pair<std::uint64_t, bool>, std::shared_ptr<const Code>>& codes() {
  static auto* m = new std::map<std::pair<std::uint64_t, bool>, std::shared_ptr<const Code>>();
  return *m;
}
std::map<std::uint64_t, std::shared_ptr<const Entry>>& entries() {
  static auto* m = new std::map<std::uint64_t, std::shared_ptr<const Entry>>();
  return *m;
}

// What a kernel may touch: KFD's allocations and the host memory ROCr registered; through its
// GPU's L2 where the cache model caches them.
class SimMemory : public isa::Memory {
 public:
  explicit SimMemory(std::uint32_t node) : node_(node) {}
  bool allocation(std::uint64_t address, std::uint64_t* base, std::uint64_t* size, std::uint64_t* host_base) override {
    return find_gpu_reachable(address, base, size, host_base);
  }
  isa::CachedRange* cached(std::uint64_t base) override {
    isa::CachedRange* own = cached_range(node_, base);
    if (!own) report_remote_access(node_, base);
    return own;
  }
  void write_back_l2() override {
    if (isa::L2Cache* l2 = l2_of(node_)) l2->write_back();
  }
  void invalidate_l2() override {
    if (isa::L2Cache* l2 = l2_of(node_)) l2->invalidate();
  }

 private:
  std::uint32_t node_;
};

// A lookup per work-group (no thread_local cache: this library is dlopened, see interpreter.cpp).
std::shared_ptr<const Entry> entry_for(std::uint64_t object) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = entries().find(object);
  if (it == entries().end()) throw std::runtime_error("its code object was unloaded while it ran");
  return it->second;
}

std::string hex(std::uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// What a dispatch needs of the device to have all its work-groups resident at once, as a
// cooperative launch does, and what the device has: its target's SIMDs per CU and wave slots per
// SIMD (sim_target.hpp), as the topology says; LDS, its target's per CU.
struct Residency {
  std::uint64_t groups, waves, lds, max_waves, max_lds;

  Residency(const isa::DispatchPacket& p, const isa::KernelDescriptor& kd) {
    const Target& t = config().target;
    groups = std::uint64_t((p.grid_size_x + p.workgroup_size_x - 1) / p.workgroup_size_x) *
             ((p.grid_size_y + p.workgroup_size_y - 1) / p.workgroup_size_y) *
             ((p.grid_size_z + p.workgroup_size_z - 1) / p.workgroup_size_z);
    const std::uint64_t lanes = kd.wave32 ? 32 : 64;
    const std::uint64_t items = std::uint64_t(p.workgroup_size_x) * p.workgroup_size_y * p.workgroup_size_z;
    waves = groups * ((items + lanes - 1) / lanes);
    lds = groups * std::max<std::uint64_t>(p.group_segment_size, kd.group_segment_fixed_size);
    max_waves = std::uint64_t(t.compute_units) * t.simds_per_cu * t.max_waves_per_simd;
    max_lds = std::uint64_t(t.compute_units) * t.lds_kib * 1024;
  }
  bool fits() const { return waves <= max_waves && lds <= max_lds; }
  std::string too_large(const std::string& kernel) const {
    const Target& t = config().target;
    return "kernel '" + kernel + "': a cooperative dispatch of " + std::to_string(groups) + " work-groups (" +
           std::to_string(waves) + " waves, " + std::to_string(lds) + " bytes of LDS) does not fit on the simulated " +
           t.name + " at once (" + std::to_string(t.compute_units) + " compute units: " + std::to_string(max_waves) +
           " waves, " + std::to_string(max_lds) + " bytes): its grid barrier could never complete";
  }
};

// One work-group of a dispatch, as a host kernel: the packet says which code. On a queue that
// holds GWS (a cooperative queue) the work-groups of a dispatch that fits on the device run
// together, as the GPU has them resident: work-group (0, 0, 0) runs them all, the others have
// nothing left to do. A kernel that may sync the grid and does not fit is refused there.
void run_group(const WorkGroup& wg) {
  const auto* packet = static_cast<const isa::DispatchPacket*>(wg.dispatch_packet);
  if (!packet) throw std::runtime_error("the ISA interpreter needs the dispatch packet");
  const std::shared_ptr<const Entry> e = entry_for(packet->kernel_object);
  const auto* queue = static_cast<const QueueContext*>(wg.queue_context);
  isa::Dispatch dispatch{e->name, packet, 0, 0, wg.cancel};
  dispatch.gws = queue ? queue->gws.load(std::memory_order_acquire) : nullptr;
  dispatch.writer = queue ? queue->writer.load(std::memory_order_relaxed) : 0;
  const std::uint32_t group[3] = {wg.id.x, wg.id.y, wg.id.z};
  bool cooperative = false;
  if (dispatch.gws) {
    const Residency needs(*packet, e->kd);
    cooperative = needs.fits();
    if (!cooperative && e->grid_barrier) throw std::runtime_error(needs.too_large(e->name));
  }
  if (cooperative && (group[0] || group[1] || group[2])) return;
  SimMemory memory(queue ? queue->node : 0);
  try {
    if (cooperative) {
      isa::run_grid(*e->code->program, e->kd, e->object, dispatch, memory);
    } else {
      isa::run_work_group(*e->code->program, e->kd, e->object, dispatch, group, memory);
    }
  } catch (const isa::MemoryFault& f) {
    // The access travels as a value: the queue (sim_queue.cpp) raises KFD's memory event from it,
    // not a wave trap.
    throw hsad::agent::MemoryAccessFault("GPU memory fault at " + hex(f.address) + (f.write ? " (write)" : " (read)") + ": " +
                                     f.what(),
                                 {f.address, f.write});
  } catch (const isa::Fault& f) {
    throw std::runtime_error(f.what());
  }
}

}  // namespace

IsaKernel isa_kernel(std::uint64_t object, const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex);
  auto found = entries().find(object);
  if (found == entries().end()) {
    const auto loaded = LoadedCodeObject::at(object);
    std::uint64_t code_address = 0, code_bytes = 0;
    if (!loaded || !loaded->code_segment(&code_address, &code_bytes) || object + 64 > loaded->base() + loaded->size()) {
      throw std::runtime_error("kernel '" + name + "': no loaded code object holds its descriptor at " + hex(object));
    }
    static std::once_flag strict_once;
    std::call_once(strict_once, [] { isa::set_strict_lds(config().strict_lds); });
    auto e = std::make_shared<Entry>();
    e->name = name;
    e->object = object;
    const isa::Target generic = isa::target_for(config().target.name);
    e->kd = isa::read_kernel_descriptor(reinterpret_cast<const void*>(object), generic);
    const bool wave64 = !generic.gfx10 || !e->kd.wave32;
    auto& code = codes()[{loaded->base(), wave64}];
    if (!code) {
      auto c = std::make_shared<Code>();
      c->image_base = loaded->base();
      c->image_size = loaded->size();
      c->program = std::make_unique<isa::Program>(
          isa::target_for(config().target.name, wave64), code_address,
          std::string_view(reinterpret_cast<const char*>(code_address), code_bytes));
      code = c;
    }
    e->code = code;
    // Decoded in full: every instruction of the kernel's function (or, without its symbol, of the
    // whole segment) is one the interpreter implements.
    std::uint64_t lo = code_address, bytes = code_bytes;
    loaded->function(name, &lo, &bytes);
    std::set<std::string> unknown;
    const isa::Program& p = *code->program;
    for (std::uint32_t i = 0; i < p.size(); ++i) {
      const isa::Inst& in = p[i];
      if (in.address < lo || in.address >= lo + bytes || in.fn != &isa::unknown_instruction) continue;
      unknown.insert(std::string(isa::base_mnemonic(in.text.substr(0, in.text.find(' ')))));
    }
    e->fully_decoded = unknown.empty();
    for (std::uint32_t i = 0; i < p.size() && !e->grid_barrier; ++i) {
      e->grid_barrier = p[i].text.compare(0, 14, "ds_gws_barrier") == 0;
    }
    for (const auto& u : unknown) e->unknown += (e->unknown.empty() ? "" : ", ") + u;
    e->host.info.name = name;
    e->host.fn = &run_group;
    found = entries().emplace(object, std::move(e)).first;
  }
  const Entry& e = *found->second;
  return IsaKernel{&e.host, e.fully_decoded, e.unknown};
}

void forget_isa_code(std::uint64_t base, std::uint64_t size) {
  std::lock_guard<std::mutex> lock(mutex);
  entries().erase(entries().lower_bound(base), entries().lower_bound(base + size));
  for (auto it = codes().begin(); it != codes().end();) {
    if (it->first.first >= base && it->first.first < base + size) it = codes().erase(it);
    else ++it;
  }
}

std::uint64_t isa_instructions_executed() { return isa::instructions_executed(); }
std::uint64_t isa_busy_ns() { return isa::interpreter_busy_ns(); }
const char* isa_build() { return isa::interpreter_build(); }
std::uint64_t isa_lds_accesses_outside() { return isa::lds_accesses_outside(); }
std::string isa_first_lds_access_outside() { return isa::first_lds_access_outside(); }

}  // namespace hsad::sim
