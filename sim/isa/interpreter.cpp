// Running a work-group: its waves set up as the AMDHSA ABI and the kernel descriptor say, then
// executed in turn, each until it ends or reaches a barrier, until every wave has ended; and the
// work-groups of a cooperative dispatch run together, passing grid barriers (ds_gws_barrier).
#include "interpreter.hpp"

#include <llvm/Support/AMDHSAKernelDescriptor.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

#include "semantics.hpp"
#include "whole_words.hpp"

namespace hsad::isa {

namespace kd = llvm::amdhsa;

namespace {
std::atomic<std::uint64_t> executed{0};
std::atomic<std::uint64_t> busy_ns{0};
// LDS accesses outside the work-group's allocation: how many, and the first one's description.
std::atomic<bool> strict_lds{false};
std::atomic<std::uint64_t> lds_outside{0};
std::mutex lds_outside_mutex;
std::string first_lds_outside;
// A wave that runs this many instructions is stopped: a kernel that never ends must not keep
// the simulated GPU's thread forever.
constexpr std::uint64_t kInstructionBudget = 1ull << 34;

std::string hex(std::uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

void trace_instruction(const Wave& w, const Inst& in) {
  const std::uint64_t e = w.exec();
  const std::uint32_t lane = e ? std::uint32_t(__builtin_ctzll(e)) : 0;
  std::string value;
  const Operand& d = in.dst[0];
  char b[64];
  if (d.kind == Operand::vgpr) std::snprintf(b, sizeof b, "v%u[%u]=0x%x", d.reg, lane, w.v[d.reg * w.lanes + lane]);
  else if (d.kind == Operand::sgpr) std::snprintf(b, sizeof b, "s%u=0x%x", d.reg, w.s[d.reg & 127]);
  else b[0] = 0;
  std::fprintf(stderr, "[isa] %-60s exec=%016llx scc=%d vcc=%016llx %s\n", in.text.c_str(),
               static_cast<unsigned long long>(e), w.scc ? 1 : 0, static_cast<unsigned long long>(w.vcc()), b);
}

std::uint32_t field(std::uint32_t word, std::uint32_t mask, std::uint32_t shift) { return (word & mask) >> shift; }
}  // namespace

void register_all_ops() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_scalar_ops();
    register_scalar_float_ops();
    register_vector_ops();
    register_memory_ops();
    register_lane_ops();
    register_matrix_ops();
  });
}

std::uint64_t instructions_executed() { return executed.load(std::memory_order_relaxed); }
std::uint64_t interpreter_busy_ns() { return busy_ns.load(std::memory_order_relaxed); }

#ifndef HSAD_ISA_BUILD
#define HSAD_ISA_BUILD "x86-64"
#endif
const char* interpreter_build() { return HSAD_ISA_BUILD; }

KernelDescriptor read_kernel_descriptor(const void* bytes, const Target& target) {
  kd::kernel_descriptor_t raw;
  std::memcpy(&raw, bytes, sizeof raw);
  KernelDescriptor d;
  d.group_segment_fixed_size = raw.group_segment_fixed_size;
  d.private_segment_fixed_size = raw.private_segment_fixed_size;
  d.entry_offset = raw.kernel_code_entry_byte_offset;
  d.rsrc1 = raw.compute_pgm_rsrc1;
  d.rsrc2 = raw.compute_pgm_rsrc2;
  d.rsrc3 = raw.compute_pgm_rsrc3;
  d.properties = raw.kernel_code_properties;
  d.wave32 = target.gfx10 && (d.properties & kd::KERNEL_CODE_PROPERTY_ENABLE_WAVEFRONT_SIZE32);
  d.user_sgprs = field(d.rsrc2, kd::COMPUTE_PGM_RSRC2_USER_SGPR_COUNT, kd::COMPUTE_PGM_RSRC2_USER_SGPR_COUNT_SHIFT);
  // VGPR granules of the descriptor's count (LLVM's VGPR encoding granule): 4 registers (gfx9,
  // gfx10 and gfx11 wave64), 8 (gfx90a and gfx94x, gfx10 and gfx11 wave32).
  const std::uint32_t granule = target.gfx10 ? (d.wave32 ? 8 : 4) : (target.packed_workitem_ids ? 8 : 4);
  d.vgprs = (field(d.rsrc1, kd::COMPUTE_PGM_RSRC1_GRANULATED_WORKITEM_VGPR_COUNT,
                   kd::COMPUTE_PGM_RSRC1_GRANULATED_WORKITEM_VGPR_COUNT_SHIFT) + 1) * granule;
  return d;
}

void WorkGroup::fault(const Wave& wave, const Inst& inst, const std::string& what) const {
  const std::string where = entry && inst.address >= entry ? dispatch.kernel + "+" + hex(inst.address - entry) + ", " : "";
  throw Fault("kernel '" + dispatch.kernel + "' at pc " + hex(inst.address) + " (" + where + "wave " +
              std::to_string(wave.index) + "): '" + inst.text + "': " + what);
}

std::uint8_t* WorkGroup::global(const Wave& wave, const Inst& inst, std::uint64_t address, std::uint32_t bytes,
                                CachedRange** cached) {
  const std::uint64_t end = address + bytes;
  for (const Range& r : cache_) {
    if (address >= r.lo && end <= r.hi && end >= address) {
      if (cached) *cached = r.cached;
      return reinterpret_cast<std::uint8_t*>(address + r.delta);
    }
  }
  auto inside = [&](std::uint64_t lo, std::uint64_t size) { return address >= lo && end <= lo + size && end >= address; };
  const auto packet = reinterpret_cast<std::uint64_t>(dispatch.packet);
  const auto scratch_lo = reinterpret_cast<std::uint64_t>(scratch);
  std::uint64_t base = 0, size = 0, host = 0;
  CachedRange* lines = nullptr;
  if (inside(packet, sizeof(DispatchPacket))) {
    base = host = packet, size = sizeof(DispatchPacket);
  } else if (scratch && inside(scratch_lo, scratch_bytes)) {
    base = host = scratch_lo, size = scratch_bytes;
  } else if (!memory.allocation(address, &base, &size, &host) || !inside(base, size)) {
    const std::string where = entry && inst.address >= entry ? dispatch.kernel + "+" + hex(inst.address - entry) + ", " : "";
    throw MemoryFault("kernel '" + dispatch.kernel + "' at pc " + hex(inst.address) + " (" + where + "wave " +
                          std::to_string(wave.index) + "): '" + inst.text + "': an access of " + std::to_string(bytes) +
                          " bytes at " + hex(address) + " lies outside every allocation",
                      address, inst.text.find("store") != std::string::npos || inst.text.find("atomic") != std::string::npos);
  } else {
    lines = memory.cached(base);
  }
  cache_[next_++ % 8] = {base, base + size, lines, host - base};
  if (cached) *cached = lines;
  return reinterpret_cast<std::uint8_t*>(address + (host - base));
}

const std::uint8_t* WorkGroup::read_global(const Wave& wave, const Inst& inst, std::uint64_t address, std::uint32_t bytes) {
  CachedRange* lines = nullptr;
  std::uint8_t* p = global(wave, inst, address, bytes, &lines);
  if (!lines) return p;
  // At system scope the L2 does not answer from what it holds: its dirty bytes (this GPU's
  // newest) go to memory and the line is read again, as the memory probes keep it on a GPU.
  if (at_system_scope(inst.flags, false)) lines->forget(address, address + bytes);
  return lines->read(address, bytes);
}

void WorkGroup::write_global(const Wave& wave, const Inst& inst, std::uint64_t address, const void* src, std::uint32_t bytes) {
  CachedRange* lines = nullptr;
  std::uint8_t* p = global(wave, inst, address, bytes, &lines);
  if (!lines) {
    write_whole_words(p, src, bytes);
    return;
  }
  lines->write(address, src, bytes, dispatch.writer);
  if (at_system_scope(inst.flags, false)) lines->write_back(address, address + bytes);  // written through
}

bool WorkGroup::global_range(std::uint64_t address, std::uint64_t bytes, CachedRange** cached) {
  const std::uint64_t end = address + bytes;
  if (end < address) return false;
  // The lanes' fast paths use the GPU addresses as they are: memory mapped elsewhere (user memory
  // the driver registered at a GPU address of its own) goes lane by lane through global().
  for (const Range& r : cache_) {
    if (address >= r.lo && end <= r.hi) {
      *cached = r.cached;
      return r.delta == 0;
    }
  }
  std::uint64_t base = 0, size = 0, host = 0;
  if (!memory.allocation(address, &base, &size, &host) || end > base + size) return false;
  *cached = memory.cached(base);
  cache_[next_++ % 8] = {base, base + size, *cached, host - base};
  return host == base;
}

std::uint8_t* WorkGroup::shared(const Wave& wave, const Inst& inst, std::uint64_t offset, std::uint32_t bytes) {
  if (offset + bytes <= lds_bytes && offset + bytes >= offset) return lds + offset;
  const auto what = [&] {  // written only where it is used: a kernel may do this on every lane
    return "an LDS access of " + std::to_string(bytes) + " bytes at " + std::to_string(offset) +
           " lies outside the work-group's " + std::to_string(lds_bytes) + " bytes";
  };
  if (strict_lds.load(std::memory_order_relaxed)) fault(wave, inst, what() + " (strict LDS checking)");
  if (bytes > sizeof outside_) fault(wave, inst, what());  // no instruction moves this much at once
  // As the hardware does: the read gives zeros, the write (an atomic's too) goes nowhere. Every
  // caller uses the bytes at once, before it asks for the next lane's.
  if (lds_outside.fetch_add(1, std::memory_order_relaxed) == 0) {
    std::lock_guard<std::mutex> lock(lds_outside_mutex);
    first_lds_outside = "kernel '" + dispatch.kernel + "', '" + inst.text + "': " + what();
  }
  std::memset(outside_, 0, sizeof outside_);
  return outside_;
}

void set_strict_lds(bool strict) { strict_lds.store(strict, std::memory_order_relaxed); }

std::uint64_t lds_accesses_outside() { return lds_outside.load(std::memory_order_relaxed); }

std::string first_lds_access_outside() {
  std::lock_guard<std::mutex> lock(lds_outside_mutex);
  return first_lds_outside;
}

std::uint8_t* WorkGroup::private_dword(const Wave& wave, const Inst& inst, std::uint64_t wave_base, std::uint64_t offset,
                                       std::uint32_t lane) {
  // Private memory is interleaved by dword across the wave's lanes (element size 4, index
  // stride = the wave's size), as the private segment buffer resource and flat scratch lay it out.
  if (offset / 4 >= (std::uint64_t(private_bytes) + 3) / 4) {
    fault(wave, inst, "a private access at offset " + std::to_string(offset) + " lies outside the " +
                          std::to_string(private_bytes) + "-byte private segment");
  }
  const std::uint64_t address = wave_base + (offset / 4) * 4 * wave.lanes + std::uint64_t(lane) * 4 + offset % 4;
  const auto lo = reinterpret_cast<std::uint64_t>(scratch);
  if (!scratch || address < lo || address + (4 - offset % 4) > lo + scratch_bytes) {
    fault(wave, inst, "a private access at " + hex(address) + " lies outside the work-group's scratch");
  }
  return reinterpret_cast<std::uint8_t*>(address);
}

void unknown_instruction(WorkGroup& group, Wave& wave, const Inst& inst) {
  const std::string_view base = canonical_mnemonic(base_mnemonic(std::string_view(inst.text).substr(0, inst.text.find(' '))));
  if ((inst.flags & kClamp) && find_op(base)) {
    group.fault(wave, inst, "an instruction the interpreter does not implement (clamp saturating its integer result)");
  }
  if (inst.flags & kUnknownModifier) {
    group.fault(wave, inst, "a modifier the interpreter does not understand ('" + unknown_modifier_of(inst) + "')");
  }
  if (inst.flags & kUnknownOperand) group.fault(wave, inst, "an operand the interpreter cannot read");
  if (inst.flags & kUnorderedPair) {
    group.fault(wave, inst, "one half of a dual-issue (VOPD) pair whose halves each read the other's result: "
                            "no order of the two gives what issuing them together does");
  }
  group.fault(wave, inst, "an instruction the interpreter does not implement");
}

namespace {

// Per-thread storage for a work-group: registers, LDS, scratch, reused between work-groups.
struct Storage {
  std::vector<std::uint32_t> regs;
  std::vector<std::uint8_t> lds;
  std::vector<std::uint8_t> scratch;
  std::vector<Wave> waves;
  std::vector<std::uint64_t> step_start;  // each wave's count where GroupRun::run's step began
};

// Storage is reused between work-groups through a pool, not thread_local: the interpreter lives
// in a library ROCr dlopens (the simulated KFD), where thread_local is dynamic TLS, which
// LeakSanitizer's stop-the-world scan can crash on at exit.
class StorageLease {
 public:
  StorageLease() {
    std::lock_guard<std::mutex> lock(mutex());
    if (!pool().empty()) {
      storage_ = std::move(pool().back());
      pool().pop_back();
    } else {
      storage_ = std::make_unique<Storage>();
    }
  }
  ~StorageLease() {
    std::lock_guard<std::mutex> lock(mutex());
    // Kept for the next work-group, up to a bound: a cooperative grid leases one per work-group
    // at once (hundreds), which need not stay allocated after it.
    if (pool().size() < kKept) pool().push_back(std::move(storage_));
  }
  Storage& operator*() { return *storage_; }

 private:
  static constexpr std::size_t kKept = 64;
  static std::mutex& mutex() {
    static auto* m = new std::mutex;
    return *m;
  }
  static std::vector<std::unique_ptr<Storage>>& pool() {
    static auto* p = new std::vector<std::unique_ptr<Storage>>;  // never destroyed: workers may run at exit
    return *p;
  }
  std::unique_ptr<Storage> storage_;
};

// Thread time spent interpreting, counted however the run ends (a fault throws).
struct Busy {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  ~Busy() {
    busy_ns.fetch_add(std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now() - start).count()),
                      std::memory_order_relaxed);
  }
};

void init_wave(Wave& w, WorkGroup& g, const Target& target, const KernelDescriptor& d, const Dispatch& dispatch,
               const std::uint32_t group[3], const std::uint32_t size[3], std::uint32_t first_item, std::uint32_t items) {
  std::memset(w.s, 0, sizeof w.s);
  w.scc = false;
  w.state = Wave::State::running;
  w.mode = 0;
  w.gpr_idx_on = false;
  w.preserve_hi16 = target.gfx10;
  w.scratch_base = reinterpret_cast<std::uint64_t>(g.scratch) + w.index * g.wave_scratch_bytes;
  w.flat_scratch = target.architected_flat_scratch ? w.scratch_base : 0;
  std::uint32_t s = 0;
  auto put64 = [&](std::uint64_t v) {
    w.s[s++] = std::uint32_t(v);
    w.s[s++] = std::uint32_t(v >> 32);
  };
  const std::uint16_t p = d.properties;
  if (p & kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER) {
    // A buffer resource over the work-group's scratch: swizzled, element size 4, index stride =
    // the wave size, the lane added to the index.
    const auto base = reinterpret_cast<std::uint64_t>(g.scratch);
    const std::uint32_t index_stride = w.lanes == 64 ? 3 : 2;
    w.s[s++] = std::uint32_t(base);
    w.s[s++] = std::uint32_t((base >> 32) & 0xffff) | (1u << 31);  // swizzle enable
    w.s[s++] = std::uint32_t(g.scratch_bytes);
    w.s[s++] = (1u << 19) | (index_stride << 21) | (1u << 23);    // element size 4, index stride, add tid
  }
  if (p & kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_PTR) put64(reinterpret_cast<std::uint64_t>(dispatch.packet));
  if (p & kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_QUEUE_PTR) put64(dispatch.queue);
  if (p & kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_KERNARG_SEGMENT_PTR) put64(dispatch.packet->kernarg_address);
  if (p & kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_ID) put64(dispatch.dispatch_id);
  if (p & kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_FLAT_SCRATCH_INIT) put64(reinterpret_cast<std::uint64_t>(g.scratch));
  if (p & kd::KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_SIZE) w.s[s++] = g.private_bytes;
  s = d.user_sgprs;  // system SGPRs follow the user SGPRs the descriptor counts
  if (d.rsrc2 & kd::COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_X) w.s[s++] = group[0];
  if (d.rsrc2 & kd::COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Y) w.s[s++] = group[1];
  if (d.rsrc2 & kd::COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Z) w.s[s++] = group[2];
  if (d.rsrc2 & kd::COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_INFO) w.s[s++] = 0;
  if (d.rsrc2 & kd::COMPUTE_PGM_RSRC2_ENABLE_PRIVATE_SEGMENT) w.s[s++] = std::uint32_t(w.index * g.wave_scratch_bytes);
  // gfx12's architected SGPRs: the hardware puts the work-group's id in trap temporaries, which the
  // code reads: TTMP9 its x, TTMP7 its y (low half) and z (high half).
  if (target.gfx12) {
    constexpr std::uint32_t kTtmp0 = 108;
    w.s[kTtmp0 + 9] = group[0];
    w.s[kTtmp0 + 7] = (group[1] & 0xffffu) | (group[2] << 16);
  }

  const std::uint32_t ids = field(d.rsrc2, kd::COMPUTE_PGM_RSRC2_ENABLE_VGPR_WORKITEM_ID,
                                  kd::COMPUTE_PGM_RSRC2_ENABLE_VGPR_WORKITEM_ID_SHIFT);
  // The work-item ids: the first lane's by division, the others by counting on (this runs for
  // every wave of every work-group, and divisions per lane were a good part of a short kernel).
  const std::uint32_t active = first_item >= items ? 0 : std::min(w.lanes, items - first_item);
  std::uint32_t x = first_item % size[0], y = (first_item / size[0]) % size[1], z = first_item / (size[0] * size[1]);
  for (std::uint32_t lane = 0; lane < active; ++lane) {
    if (target.packed_workitem_ids) {
      w.vreg(0, lane) = x | (y << 10) | (z << 20);
    } else {
      w.vreg(0, lane) = x;
      if (ids >= 1 && w.num_v > 1) w.vreg(1, lane) = y;
      if (ids >= 2 && w.num_v > 2) w.vreg(2, lane) = z;
    }
    if (++x == size[0]) {
      x = 0;
      if (++y == size[1]) y = 0, ++z;
    }
  }
  for (std::uint32_t lane = active; lane < w.lanes; ++lane) w.vreg(0, lane) = 0;
  w.set_exec(active == 64 ? ~0ull : (1ull << active) - 1);
}

}  // namespace

namespace {

// One work-group of a dispatch, from its waves' set-up to their end, run in steps: a step ends
// when every wave ended, or none can go on before other work-groups do (all wait at a grid
// barrier or at an s_barrier behind a wave that does), or one wave ran its time slice.
class GroupRun {
 public:
  GroupRun(const Program& program, const KernelDescriptor& d, std::uint64_t descriptor_address, const Dispatch& dispatch,
           const std::uint32_t group[3], Memory& memory, GridBarrier* grid)
      : program_(program), st_(*lease_), g_(program, d, dispatch, memory, nullptr, 0, nullptr, 0) {
    const Target& target = program.target();
    const DispatchPacket& packet = *dispatch.packet;
    const std::uint32_t full[3] = {packet.workgroup_size_x, packet.workgroup_size_y, packet.workgroup_size_z};
    const std::uint32_t grid_size[3] = {packet.grid_size_x, packet.grid_size_y, packet.grid_size_z};
    // The last work-group of a dimension is partial: its work-items are laid out with its own size.
    std::uint32_t size[3];
    for (int i = 0; i < 3; ++i) {
      const std::uint64_t start = std::uint64_t(group[i]) * full[i];
      size[i] = std::uint32_t(std::min<std::uint64_t>(full[i], grid_size[i] - start));
    }
    const std::uint32_t items = size[0] * size[1] * size[2];
    const std::uint32_t lanes = target.gfx10 && d.wave32 ? 32 : 64;
    if ((lanes == 64) != target.wave64) {
      throw Fault("kernel '" + dispatch.kernel + "' runs in wave" + std::to_string(lanes) +
                  " but its code was decoded for wave" + (target.wave64 ? "64" : "32"));
    }
    waves_ = (items + lanes - 1) / lanes;

    const std::uint32_t lds_bytes = std::max(packet.group_segment_size, d.group_segment_fixed_size);
    if (st_.lds.size() < lds_bytes) st_.lds.resize(lds_bytes);
    const std::uint32_t private_bytes = std::max(packet.private_segment_size, d.private_segment_fixed_size);
    const std::uint64_t wave_scratch = (std::uint64_t(private_bytes + 3) / 4) * 4 * lanes;
    const std::uint64_t scratch_bytes = wave_scratch * waves_;
    if (st_.scratch.size() < scratch_bytes) st_.scratch.resize(scratch_bytes);
    g_.lds = st_.lds.data();
    g_.lds_bytes = lds_bytes;
    g_.scratch = scratch_bytes ? st_.scratch.data() : nullptr;
    g_.scratch_bytes = scratch_bytes;
    g_.wave_scratch_bytes = wave_scratch;
    g_.private_bytes = private_bytes;
    g_.grid = grid;

    const std::uint32_t num_v = std::max<std::uint32_t>({d.vgprs, program.max_vgpr(), 3});
    const std::uint32_t num_a = program.max_agpr();
    const std::size_t per_wave = std::size_t(num_v + num_a) * lanes;
    if (st_.regs.size() < per_wave * waves_) st_.regs.resize(per_wave * waves_);
    if (st_.waves.size() < waves_) st_.waves.resize(waves_);
    if (st_.step_start.size() < waves_) st_.step_start.resize(waves_);
    std::uint32_t entry = 0;
    try {
      entry = program.index_of(descriptor_address + std::uint64_t(d.entry_offset));
    } catch (const std::out_of_range& e) {
      throw Fault("kernel '" + dispatch.kernel + "': its entry point is not an instruction of the code (" + e.what() + ")");
    }
    g_.entry = program[entry].address;
    for (std::uint32_t i = 0; i < waves_; ++i) {
      Wave& w = st_.waves[i];
      w.lanes = lanes;
      w.index = i;
      w.num_v = num_v;
      w.num_a = num_a;
      w.v = st_.regs.data() + per_wave * i;
      w.a = w.v + std::size_t(num_v) * lanes;
      w.pc = entry;
      w.executed = 0;
      init_wave(w, g_, target, d, dispatch, group, size, i * lanes, items);
    }
    // HSAD_ISA_TRACE=1: every instruction wave 0 of work-group (0, 0, 0) executes, with its
    // destination's value in the first active lane, to stderr (for debugging the interpreter).
    static const bool trace_on = std::getenv("HSAD_ISA_TRACE") != nullptr;
    trace_ = trace_on && group[0] == 0 && group[1] == 0 && group[2] == 0;
  }
  ~GroupRun() { executed.fetch_add(count_, std::memory_order_relaxed); }
  GroupRun(const GroupRun&) = delete;
  GroupRun& operator=(const GroupRun&) = delete;

  std::uint64_t instructions() const { return count_; }

  // One step; true once every wave has ended.
  //
  // The waves of a work-group take turns at each memory instruction (Inst::yields), as a CU's SIMDs
  // run them side by side: a wave reads what another wrote before it only where the program's
  // order or its barriers say so. Run one at a time to the next s_barrier instead, a wave would
  // see every write made before the barrier by the waves ahead of it, which hides nothing a real
  // GPU hides (rocSOLVER 6.4's potf2 reads its pivot in every wave while the first wave
  // overwrites it, with no barrier between: on a GPU every wave has read it first).
  bool run(std::uint64_t slice) {
    const Dispatch& dispatch = g_.dispatch;
    const bool interleave = waves_ > 1;
    for (std::uint32_t i = 0; i < waves_; ++i) st_.step_start[i] = st_.waves[i].executed;
    for (;;) {
      std::uint32_t done = 0, running = 0, at_grid = 0;
      bool sliced = false;
      for (std::uint32_t i = 0; i < waves_; ++i) {
        Wave& w = st_.waves[i];
        // Counted in locals in the hot loop; the wave's total is what the budget applies to, the
        // step's share of it what the slice applies to.
        const std::uint64_t in_step = w.executed - st_.step_start[i];
        const std::uint64_t limit = std::min(slice - std::min(slice, in_step), kInstructionBudget - w.executed);
        std::uint64_t ran = 0;
        const Inst* last = nullptr;
        while (w.state == Wave::State::running && ran < limit) {
          const Inst& in = program_[w.pc];
          w.pc = in.next;
          in.fn(g_, w, in);
          last = &in;
          if (trace_ && i == 0) trace_instruction(w, in);
          ++ran;
          // Every 4096 of the wave's instructions (its total: a turn between memory instructions is short).
          if (((w.executed + ran) & 4095) == 0 && dispatch.cancel && dispatch.cancel->load(std::memory_order_relaxed)) {
            g_.fault(w, in, "preempted: its queue was destroyed");
          }
          if (in.yields && interleave) break;
        }
        w.executed += ran;
        count_ += ran;
        if (w.state == Wave::State::running && w.executed >= kInstructionBudget) {
          g_.fault(w, *last, "the wave ran " + std::to_string(kInstructionBudget) + " instructions: a kernel that never ends");
        }
        sliced = sliced || (w.state == Wave::State::running && ran == limit);
      }
      for (std::uint32_t i = 0; i < waves_; ++i) {
        const Wave::State s = st_.waves[i].state;
        done += s == Wave::State::done;
        running += s == Wave::State::running;
        at_grid += s == Wave::State::grid_barrier;
      }
      if (done == waves_) return true;
      if (sliced || (at_grid && !running)) return false;
      if (running) continue;  // the waves that gave way at a memory instruction go on
      // Every wave still alive waits at s_barrier: release them together.
      for (std::uint32_t i = 0; i < waves_; ++i) {
        if (st_.waves[i].state == Wave::State::barrier) st_.waves[i].state = Wave::State::running;
      }
    }
  }

 private:
  const Program& program_;
  StorageLease lease_;
  Storage& st_;
  WorkGroup g_;
  std::uint32_t waves_ = 0;
  std::uint64_t count_ = 0;
  bool trace_ = false;
};

// Counts each resource's arrivals across the grid; the last one releases them all.
class GridSync final : public GridBarrier {
 public:
  explicit GridSync(GlobalWaveSync& gws) : gws_(gws) {}

  void arrive(WorkGroup&, Wave& wave, const Inst&, std::uint32_t resource, std::uint32_t value) override {
    std::vector<Wave*>& waiting = waiting_[resource];
    waiting.push_back(&wave);
    wave.state = Wave::State::grid_barrier;
    if (waiting.size() < std::uint64_t(gws_.value(resource)) + 1) return;
    for (Wave* w : waiting) w->state = Wave::State::running;
    waiting.clear();
    gws_.set(resource, value);  // the barrier arms itself again with its operand
  }

  // The resources some wave waits on, with how many arrived and how many each expects.
  std::string waiting() const {
    std::string out;
    for (std::uint32_t r = 0; r < GlobalWaveSync::kResources; ++r) {
      if (waiting_[r].empty()) continue;
      out += (out.empty() ? "" : "; ") + std::string("resource ") + std::to_string(r) + ": " +
             std::to_string(waiting_[r].size()) + " of " + std::to_string(std::uint64_t(gws_.value(r)) + 1) +
             " waves arrived";
    }
    return out;
  }

 private:
  GlobalWaveSync& gws_;
  std::vector<Wave*> waiting_[GlobalWaveSync::kResources];
};

// A wave gives way after this many instructions in a cooperative dispatch.
constexpr std::uint64_t kGridSlice = 1u << 16;

}  // namespace

void run_work_group(const Program& program, const KernelDescriptor& d, std::uint64_t descriptor_address,
                    const Dispatch& dispatch, const std::uint32_t group[3], Memory& memory) {
  register_all_ops();
  Busy busy;
  GroupRun run(program, d, descriptor_address, dispatch, group, memory, nullptr);
  // Without a grid barrier no wave waits on another work-group: one step runs it to its end.
  run.run(~0ull);
}

void run_grid(const Program& program, const KernelDescriptor& d, std::uint64_t descriptor_address,
              const Dispatch& dispatch, Memory& memory) {
  register_all_ops();
  Busy busy;
  if (!dispatch.gws) {
    throw Fault("kernel '" + dispatch.kernel + "': a cooperative dispatch on a queue that holds no GWS");
  }
  const DispatchPacket& p = *dispatch.packet;
  const std::uint32_t groups[3] = {(p.grid_size_x + p.workgroup_size_x - 1) / p.workgroup_size_x,
                                   (p.grid_size_y + p.workgroup_size_y - 1) / p.workgroup_size_y,
                                   (p.grid_size_z + p.workgroup_size_z - 1) / p.workgroup_size_z};
  GridSync sync(*dispatch.gws);
  std::vector<std::unique_ptr<GroupRun>> runs;
  runs.reserve(std::size_t(groups[0]) * groups[1] * groups[2]);
  for (std::uint32_t z = 0; z < groups[2]; ++z) {
    for (std::uint32_t y = 0; y < groups[1]; ++y) {
      for (std::uint32_t x = 0; x < groups[0]; ++x) {
        const std::uint32_t id[3] = {x, y, z};
        runs.push_back(std::make_unique<GroupRun>(program, d, descriptor_address, dispatch, id, memory, &sync));
      }
    }
  }
  std::size_t live = runs.size();
  while (live) {
    std::uint64_t ran = 0;
    for (auto& run : runs) {
      if (!run) continue;
      const std::uint64_t before = run->instructions();
      const bool ended = run->run(kGridSlice);
      ran += run->instructions() - before;
      if (ended) run.reset(), --live;
    }
    if (live && ran == 0) {
      throw Fault("kernel '" + dispatch.kernel + "': a grid barrier (ds_gws_barrier) that can never complete (" +
                  sync.waiting() + "; the dispatch's other waves ended or wait behind them): on a GPU, a hang");
    }
  }
}

}  // namespace hsad::isa
