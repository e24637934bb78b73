// Memory: global, flat (which reaches LDS and private memory through their apertures) and
// scratch loads, stores and atomics; buffer (MUBUF) accesses through a buffer resource, as the
// private segment buffer is; and LDS (ds_*). Every access is checked: global ones against the
// allocations the runtime made, LDS ones against the work-group's size, private ones against
// the private segment.
#include <atomic>
#include <map>
#include <optional>
#include <utility>

#include "valu.hpp"
#include "whole_words.hpp"

namespace hsad::isa {
namespace {

using U = std::uint64_t;

struct Access {
  std::uint32_t bytes = 4;  // per element: 1, 2, 4 (x2, x3, x4: several elements)
  std::uint32_t count = 1;  // dwords for dwordxN
  bool sign = false;        // sbyte, sshort
  int d16 = 0;              // 1: the low 16 bits of the register, 2: the high 16 bits
  bool d16_zeroes = false;  // a d16 load zeroes the register's other half (SRAM ECC on: Target::sramecc)
};

Access access_of(const Inst& in) {
  Access a;
  a.bytes = in.mem_bytes;
  a.count = in.mem_count;
  a.sign = in.mem_sign;
  a.d16 = in.mem_d16 & 3;
  a.d16_zeroes = (in.mem_d16 & kD16ZeroesOtherHalf) != 0;
  return a;
}

// Decode time: the access a mnemonic names.
Access parse_access(std::string_view m) {
  Access a;
  auto has = [&](std::string_view s) { return m.find(s) != std::string_view::npos; };
  if (has("dwordx4") || has("b128")) a.count = 4;
  else if (has("dwordx3") || has("b96")) a.count = 3;
  else if (has("dwordx2") || has("b64") || has("_x2")) a.count = 2;
  if (has("ubyte") || has("sbyte") || has("_byte") || has("_b8") || has("_u8") || has("_i8")) a.bytes = 1;
  if (has("ushort") || has("sshort") || has("_short") || has("_b16") || has("_u16") || has("_i16")) a.bytes = 2;
  a.sign = has("sbyte") || has("sshort") || has("_i8") || has("_i16");
  if (has("d16_hi")) a.d16 = 2;
  else if (has("d16")) a.d16 = 1;
  return a;
}

enum class Space { global, shared, private_ };

struct Where {
  Space space;
  std::uint64_t address;  // global: the address; shared: the LDS offset; private: the offset in the segment
};

// The wave's private segment base for flat and scratch instructions: FLAT_SCRATCH, which the
// kernel's prologue (gfx9: s[102:103]; gfx10: s_setreg) or the hardware (gfx940) set.
std::uint64_t flat_scratch_base(const WorkGroup& g, const Wave& w) {
  const Target& t = g.program.target();
  if (t.gfx10 || t.architected_flat_scratch) return w.flat_scratch;
  return w.s[kRegFlatScratch] | (std::uint64_t(w.s[kRegFlatScratch + 1]) << 32);
}

Where where_of(const Wave& w, const Inst& in, int lane, bool flat, bool scratch) {
  const Operand& vaddr = in.src[0];
  const Operand& saddr = in.src[2];
  if (scratch) {  // 32-bit offsets into the private segment
    std::uint64_t off = std::uint64_t(std::int64_t(in.offset));
    if (vaddr.kind == Operand::vgpr) off += w.v[vaddr.reg * w.lanes + lane];
    if (saddr.kind == Operand::sgpr || saddr.kind == Operand::constant) off += scalar32(w, saddr);
    return {Space::private_, off & 0xffffffffu};
  }
  std::uint64_t address;
  if (saddr.kind == Operand::sgpr) {  // global with a scalar base: a 32-bit vector offset
    address = scalar64(w, saddr) + (vaddr.kind == Operand::vgpr ? w.v[vaddr.reg * w.lanes + lane] : 0);
  } else {
    address = U(w.v[vaddr.reg * w.lanes + lane]) | (U(w.v[(vaddr.reg + 1) * w.lanes + lane]) << 32);
  }
  address += std::int64_t(in.offset);
  if (flat) {
    if (address - kSharedAperture < kApertureBytes) return {Space::shared, address - kSharedAperture};
    if (address - kPrivateAperture < kApertureBytes) return {Space::private_, address - kPrivateAperture};
  }
  return {Space::global, address};
}

// Whether a lane's wide access lies within one 4 KiB page, so within one allocation (the driver's
// are page-granular) wherever it lies in one at all: then it is checked, and copied, as one piece
// (whole_words.hpp); one that crosses a page goes dword by dword, each found on its own, as before.
bool within_page(std::uint64_t address, std::uint32_t bytes) { return (address & 4095) + bytes <= 4096; }

// Reads `bytes` (<= 4) at element `k` of the access into a dword.
std::uint32_t load_element(WorkGroup& g, Wave& w, const Inst& in, const Where& at, std::uint32_t k, std::uint32_t bytes,
                           int lane) {
  std::uint32_t v = 0;
  const std::uint64_t a = at.address + U(k) * 4;
  switch (at.space) {
    case Space::global: std::memcpy(&v, g.read_global(w, in, a, bytes), bytes); break;
    case Space::shared: std::memcpy(&v, g.shared(w, in, a, bytes), bytes); break;
    case Space::private_: std::memcpy(&v, g.private_dword(w, in, flat_scratch_base(g, w), a, std::uint32_t(lane)), bytes); break;
  }
  return v;
}

void store_element(WorkGroup& g, Wave& w, const Inst& in, const Where& at, std::uint32_t k, std::uint32_t bytes, int lane,
                   std::uint32_t v) {
  const std::uint64_t a = at.address + U(k) * 4;
  switch (at.space) {
    case Space::global: g.write_global(w, in, a, &v, bytes); break;
    case Space::shared: std::memcpy(g.shared(w, in, a, bytes), &v, bytes); break;
    case Space::private_: std::memcpy(g.private_dword(w, in, flat_scratch_base(g, w), a, std::uint32_t(lane)), &v, bytes); break;
  }
}

std::uint32_t extend(std::uint32_t v, const Access& a) {
  if (a.bytes == 1) return a.sign ? std::uint32_t(std::int32_t(std::int8_t(v))) : v & 0xff;
  if (a.bytes == 2) return a.sign ? std::uint32_t(std::int32_t(std::int16_t(v))) : v & 0xffff;
  return v;
}

void write_loaded(Wave& w, const Operand& dst, int lane, std::uint32_t k, std::uint32_t v, const Access& a) {
  std::uint32_t& r = dst32(w, dst, k)[lane];
  if (a.d16 == 0) {
    r = v;
    return;
  }
  const std::uint32_t kept = a.d16_zeroes ? 0 : r;
  r = a.d16 == 1 ? (kept & 0xffff0000u) | (v & 0xffff) : (kept & 0xffffu) | (v << 16);
}

// A lane's wide global access (within_page) read as one piece into its registers: aligned 8 and 16
// bytes whole, as a store on another thread leaves them.
void load_whole(WorkGroup& g, Wave& w, const Inst& in, const Access& a, std::uint64_t address, int lane) {
  std::uint32_t v[4];
  read_whole_words(v, g.read_global(w, in, address, 4 * a.count), a.count);
  for (std::uint32_t k = 0; k < a.count; ++k) write_loaded(w, in.dst[0], lane, k, v[k], a);
}

// Every active lane's address, and whether all are global and within one allocation: then the
// accesses need no check each (one for the instruction). `cached`: that allocation's L2 lines,
// where the GPU's L2 caches it.
struct Addresses {
  std::uint64_t address[64];  // global: the address; else Where::address (read only where one_allocation)
  bool one_allocation = false;
  CachedRange* cached = nullptr;
};

template <bool Flat, bool Scratch>
void addresses_of(WorkGroup& g, const Wave& w, const Inst& in, std::uint32_t span, Addresses& out) {
  if constexpr (!Flat && !Scratch) {
    // global_*: where_of's cases, chosen once for the instruction instead of once per lane.
    const Operand& vaddr = in.src[0];
    const Operand& saddr = in.src[2];
    // Every lane's address in a straight loop (those EXEC leaves out are computed and ignored),
    // then the bounds over the EXEC lanes.
    std::uint64_t* address = out.address;
    const std::uint32_t lanes = w.lanes;
    const std::uint64_t exec = w.exec();
    const bool all = exec == w.lane_mask();
    // The bounds over the EXEC lanes, taken on 32-bit words where the addresses are a 64-bit base
    // and 32-bit parts (most of the time: SSE2 has no 64-bit min or max, and even AVX2 does twice
    // as many 32-bit lanes at once). Lanes EXEC leaves out count as the first active one's.
    const auto bounds32 = [&](const std::uint32_t* words, std::uint32_t& min, std::uint32_t& max) {
      std::uint32_t mn = ~0u, mx = 0;
      if (all) {
        for (std::uint32_t l = 0; l < lanes; ++l) mn = std::min(mn, words[l]), mx = std::max(mx, words[l]);
      } else {
        const std::uint32_t first = words[__builtin_ctzll(exec)];
        for (std::uint32_t l = 0; l < lanes; ++l) {
          const std::uint32_t v = (exec >> l) & 1 ? words[l] : first;
          mn = std::min(mn, v), mx = std::max(mx, v);
        }
      }
      min = mn, max = mx;
    };
    std::uint64_t lo = ~0ull, hi = 0;
    bool bounded = false;
    if (saddr.kind == Operand::sgpr) {
      const std::uint64_t base = scalar64(w, saddr) + std::uint64_t(std::int64_t(in.offset));
      const std::uint32_t* offset = vaddr.kind == Operand::vgpr ? w.v + vaddr.reg * lanes : nullptr;
      if (offset) {
        for (std::uint32_t l = 0; l < lanes; ++l) address[l] = base + offset[l];
        std::uint32_t mn, mx;
        bounds32(offset, mn, mx);
        lo = base + mn, hi = base + mx;
      } else {
        for (std::uint32_t l = 0; l < lanes; ++l) address[l] = base;
        lo = hi = base;
      }
      bounded = true;
    } else {
      const std::uint32_t* low = w.v + vaddr.reg * lanes;
      const std::uint32_t* high = low + lanes;
      const std::uint64_t offset = std::uint64_t(std::int64_t(in.offset));
      std::uint32_t differ = 0;
      for (std::uint32_t l = 0; l < lanes; ++l) {
        address[l] = (U(low[l]) | (U(high[l]) << 32)) + offset;
        differ |= high[l] ^ high[0];
      }
      if (differ == 0 && all) {  // one high word: the bounds of the low words, the offset added after
        std::uint32_t mn, mx;
        bounds32(low, mn, mx);
        const std::uint64_t top = U(high[0]) << 32;
        lo = (top | mn) + offset, hi = (top | mx) + offset;
        bounded = true;
      }
    }
    if (!bounded) {
      if (all) {
        for (std::uint32_t l = 0; l < lanes; ++l) lo = std::min(lo, address[l]), hi = std::max(hi, address[l]);
      } else {
        for_lanes(w, [&](std::uint32_t l) { lo = std::min(lo, address[l]), hi = std::max(hi, address[l]); });
      }
    }
    hi += span;
    out.one_allocation = lo < hi && g.global_range(lo, hi - lo, &out.cached);
    return;
  }
  std::uint64_t lo = ~0ull, hi = 0;
  bool global = !Scratch;
  for_lanes(w, [&](std::uint32_t lane) {
    const Where at = where_of(w, in, int(lane), Flat, Scratch);
    out.address[lane] = at.address;
    global = global && at.space == Space::global;
    lo = std::min(lo, at.address);
    hi = std::max(hi, at.address + span);
  });
  out.one_allocation = global && lo < hi && g.global_range(lo, hi - lo, &out.cached);
}

template <bool Flat, bool Scratch>
void load(WorkGroup& g, Wave& w, const Inst& in) {
  const Access a = access_of(in);
  Addresses ad;
  addresses_of<Flat, Scratch>(g, w, in, a.count == 1 ? a.bytes : 4 * a.count, ad);
  // At system scope lane by lane, through WorkGroup::read_global (the L2 reads memory again).
  if (ad.cached && at_system_scope(in.flags, false)) ad.one_allocation = false;
  if (ad.one_allocation && a.bytes == 4 && a.d16 == 0) {
    // Whole dwords into whole registers (most loads): each destination row found once.
    std::uint32_t* rows[4];
    for (std::uint32_t k = 0; k < a.count; ++k) rows[k] = dst32(w, in.dst[0], k);
    const auto put = [&](std::uint32_t lane, const std::uint8_t* p) {
      if (a.count == 1) {
        std::memcpy(&rows[0][lane], p, 4);
        return;
      }
      std::uint32_t v[4];
      read_whole_words(v, p, a.count);  // aligned 8 and 16 bytes whole, as a store on another thread leaves them
      for (std::uint32_t k = 0; k < a.count; ++k) rows[k][lane] = v[k];
    };
    if (ad.cached) {
      CachedRange::Lanes l2(*ad.cached);
      l2.read_lanes(ad.address, w.exec(), 4 * a.count, put);
    } else {
      for_lanes(w, [&](std::uint32_t lane) { put(lane, reinterpret_cast<const std::uint8_t*>(ad.address[lane])); });
    }
    return;
  }
  if (ad.one_allocation) {
    const std::uint32_t span = 4 * (a.count - 1) + a.bytes;
    std::optional<CachedRange::Lanes> l2;
    if (ad.cached) l2.emplace(*ad.cached);
    for_lanes(w, [&](std::uint32_t lane) {
      const std::uint64_t at = ad.address[lane];
      const auto* p = l2 ? l2->read(at, span) : reinterpret_cast<const std::uint8_t*>(at);
      for (std::uint32_t k = 0; k < a.count; ++k) {
        std::uint32_t v = 0;
        std::memcpy(&v, p + 4 * k, a.bytes);
        write_loaded(w, in.dst[0], int(lane), k, extend(v, a), a);
      }
    });
    return;
  }
  for_lanes(w, [&](std::uint32_t lane) {
    const Where at = where_of(w, in, int(lane), Flat, Scratch);
    if (at.space == Space::global && a.count > 1 && within_page(at.address, 4 * a.count)) {
      load_whole(g, w, in, a, at.address, int(lane));
      return;
    }
    for (std::uint32_t k = 0; k < a.count; ++k) {
      const std::uint32_t v = extend(load_element(g, w, in, at, k, a.bytes, int(lane)), a);
      write_loaded(w, in.dst[0], int(lane), k, v, a);
    }
  });
}

template <bool Flat, bool Scratch>
void store(WorkGroup& g, Wave& w, const Inst& in) {
  const Access a = access_of(in);
  Addresses ad;
  addresses_of<Flat, Scratch>(g, w, in, a.count == 1 ? a.bytes : 4 * a.count, ad);
  // The data's rows, found once for the instruction (a store does not change its registers).
  const std::uint32_t* rows[4];
  std::uint32_t strides[4], broadcast[4];
  for (std::uint32_t k = 0; k < a.count; ++k) {
    const Src32 s = src32(w, in.src[1], k, 2);
    strides[k] = s.stride;
    broadcast[k] = s.stride ? 0 : s.value;
    rows[k] = s.stride ? s.p : &broadcast[k];
  }
  const auto data = [&](std::uint32_t k, std::uint32_t lane) { return rows[k][lane * strides[k]]; };
  const std::uint32_t shift = a.d16 == 2 ? 16 : 0;
  // At system scope lane by lane, through WorkGroup::write_global (written through the L2).
  if (ad.cached && at_system_scope(in.flags, false)) ad.one_allocation = false;
  if (ad.one_allocation && a.count == 1 && a.bytes == 4 && shift == 0) {
    // One whole dword a lane (most stores): the width a constant, so each is one move.
    if (ad.cached) {
      CachedRange::Lanes l2(*ad.cached, g.dispatch.writer);
      l2.write_dwords(ad.address, w.exec(), [&](std::uint32_t lane) { return data(0, lane); });
    } else {
      for_lanes(w, [&](std::uint32_t lane) {
        const std::uint32_t v = data(0, lane);
        std::memcpy(reinterpret_cast<void*>(ad.address[lane]), &v, 4);
      });
    }
    return;
  }
  if (ad.one_allocation && ad.cached) {
    CachedRange::Lanes l2(*ad.cached, g.dispatch.writer);
    for_lanes(w, [&](std::uint32_t lane) {
      std::uint32_t v[4];
      for (std::uint32_t k = 0; k < a.count; ++k) v[k] = data(k, lane) >> shift;
      l2.write(ad.address[lane], v, a.count == 1 ? a.bytes : 4 * a.count);
    });
    return;
  }
  if (ad.one_allocation) {
    for_lanes(w, [&](std::uint32_t lane) {
      auto* p = reinterpret_cast<std::uint8_t*>(ad.address[lane]);
      if (a.count > 1) {  // whole dwords: aligned 8 and 16 bytes in one store, as a load on another thread reads them
        std::uint32_t v[4];
        for (std::uint32_t k = 0; k < a.count; ++k) v[k] = data(k, lane);
        write_whole_words(p, v, 4 * a.count);
        return;
      }
      const std::uint32_t v = data(0, lane) >> shift;
      std::memcpy(p, &v, a.bytes);
    });
    return;
  }
  for_lanes(w, [&](std::uint32_t lane) {
    const Where at = where_of(w, in, int(lane), Flat, Scratch);
    if (at.space == Space::global && a.count > 1 && within_page(at.address, 4 * a.count)) {  // aligned 8 and 16 bytes whole
      std::uint32_t v[4];
      for (std::uint32_t k = 0; k < a.count; ++k) v[k] = data(k, lane);
      g.write_global(w, in, at.address, v, 4 * a.count);
      return;
    }
    for (std::uint32_t k = 0; k < a.count; ++k) {
      std::uint32_t v = src32(w, in.src[1], k, 2)[lane];
      if (a.d16 == 2) v >>= 16;
      store_element(g, w, in, at, k, a.bytes, int(lane), v);
    }
  });
}

// ---- atomics

enum class AtomicOp { add, sub, smin, umin, smax, umax, and_, or_, xor_, inc, dec, swap, cmpswap, fadd, fmin, fmax };

AtomicOp atomic_of(std::string_view printed) {
  std::string m(printed);  // "ds_max_rtn_u32" names the same operation as "ds_max_u32"
  if (const auto rtn = m.find("_rtn"); rtn != std::string::npos) m.erase(rtn, 4);
  static const std::pair<const char*, AtomicOp> ops[] = {
      {"cmpswap", AtomicOp::cmpswap}, {"add_f", AtomicOp::fadd}, {"min_f", AtomicOp::fmin}, {"max_f", AtomicOp::fmax},
      {"fmin", AtomicOp::fmin},       {"fmax", AtomicOp::fmax},
      {"smin", AtomicOp::smin},       {"umin", AtomicOp::umin},  {"smax", AtomicOp::smax},  {"umax", AtomicOp::umax},
      {"min_i", AtomicOp::smin},      {"min_u", AtomicOp::umin}, {"max_i", AtomicOp::smax}, {"max_u", AtomicOp::umax},
      {"rsub", AtomicOp::sub},        {"sub", AtomicOp::sub},    {"add", AtomicOp::add},    {"and", AtomicOp::and_},
      {"xor", AtomicOp::xor_},        {"or", AtomicOp::or_},     {"inc", AtomicOp::inc},    {"dec", AtomicOp::dec},
      {"swap", AtomicOp::swap},       {"wrxchg", AtomicOp::swap}, {"cmpst", AtomicOp::cmpswap},
  };
  for (const auto& [name, op] : ops) {
    if (m.find(name) != std::string::npos) return op;
  }
  return AtomicOp::add;
}

template <class T>
T apply(AtomicOp op, T old, T v, T cmp) {
  using S = std::make_signed_t<T>;
  switch (op) {
    case AtomicOp::add: return old + v;
    case AtomicOp::sub: return old - v;
    case AtomicOp::smin: return T(std::min(S(old), S(v)));
    case AtomicOp::umin: return std::min(old, v);
    case AtomicOp::smax: return T(std::max(S(old), S(v)));
    case AtomicOp::umax: return std::max(old, v);
    case AtomicOp::and_: return old & v;
    case AtomicOp::or_: return old | v;
    case AtomicOp::xor_: return old ^ v;
    case AtomicOp::inc: return old >= v ? T(0) : old + 1;
    case AtomicOp::dec: return (old == 0 || old > v) ? v : old - 1;
    case AtomicOp::swap: return v;
    case AtomicOp::cmpswap: return old == cmp ? v : old;
    case AtomicOp::fadd:
    case AtomicOp::fmin:
    case AtomicOp::fmax: {
      if constexpr (sizeof(T) == 4) {
        const float a = as_f32(old), b = as_f32(v);
        return bits32(op == AtomicOp::fadd ? a + b : op == AtomicOp::fmin ? std::fmin(a, b) : std::fmax(a, b));
      } else {
        const double a = as_f64(old), b = as_f64(v);
        return bits64(op == AtomicOp::fadd ? a + b : op == AtomicOp::fmin ? std::fmin(a, b) : std::fmax(a, b));
      }
    }
  }
  return old;
}

// One lane's atomic on `p` (host memory other threads may touch): a compare-and-swap loop.
template <class T>
T atomic_rmw(T* p, AtomicOp op, T v, T cmp) {
  T old = __atomic_load_n(p, __ATOMIC_RELAXED);
  for (;;) {
    const T next = apply(op, old, v, cmp);
    if (__atomic_compare_exchange_n(p, &old, next, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) return old;
  }
}

// An atomic on memory the L2 caches. At system scope it is done at memory: the line's dirty bytes
// go there first and the L2 reads the line again, and the result is written through.
template <class Op>
void atomic_in_l2(CachedRange& lines, const Inst& in, std::uint64_t address, std::uint32_t size, Op&& rmw,
                  std::uint16_t writer) {
  const bool system = at_system_scope(in.flags, true);
  if (system) lines.forget(address, address + size);
  lines.atomic(address, size, rmw, writer);
  if (system) lines.write_back(address, address + size);
}

template <bool Flat>
void vmem_atomic(WorkGroup& g, Wave& w, const Inst& in) {
  const AtomicOp op = AtomicOp(in.atomic_op);
  const bool wide = in.mem_wide;
  const bool returns = in.ndst > 0;
  const std::uint32_t size = wide ? 8 : 4;
  for_lanes(w, [&](std::uint32_t lane) {
    const Where at = where_of(w, in, int(lane), Flat, false);
    if (at.address % size != 0) g.fault(w, in, "a misaligned atomic (the hardware refuses it)");
    const U v = wide ? (U(src32(w, in.src[1], 0, 2)[lane]) | (U(src32(w, in.src[1], 1, 2)[lane]) << 32))
                     : src32(w, in.src[1], 0, 2)[lane];
    const U cmp = op != AtomicOp::cmpswap ? 0
                  : wide ? (U(src32(w, in.src[1], 2, 2)[lane]) | (U(src32(w, in.src[1], 3, 2)[lane]) << 32))
                         : src32(w, in.src[1], 1, 2)[lane];
    U old;
    if (at.space == Space::private_) g.fault(w, in, "an atomic on private memory");
    CachedRange* lines = nullptr;
    std::uint8_t* p = at.space == Space::shared ? g.shared(w, in, at.address, size) : g.global(w, in, at.address, size, &lines);
    auto rmw = [&](std::uint8_t* q) {
      if (wide) old = atomic_rmw(reinterpret_cast<U*>(q), op, v, cmp);
      else old = atomic_rmw(reinterpret_cast<std::uint32_t*>(q), op, std::uint32_t(v), std::uint32_t(cmp));
    };
    // Device-memory atomics execute in the L2, where it caches the allocation.
    if (lines) atomic_in_l2(*lines, in, at.address, size, rmw, g.dispatch.writer);
    else rmw(p);
    if (returns) {
      dst32(w, in.dst[0], 0)[lane] = std::uint32_t(old);
      if (wide) dst32(w, in.dst[0], 1)[lane] = std::uint32_t(old >> 32);
    }
  });
}

// ---- buffer (MUBUF) accesses through a buffer resource (V#)

struct Resource {
  std::uint64_t base;
  std::uint32_t stride, records, index_stride, element_size;
  bool swizzle, add_tid;
};

Resource resource_of(const WorkGroup& g, const Wave& w, const Operand& r) {
  const std::uint32_t w0 = scalar32(w, r, 0), w1 = scalar32(w, r, 1), w2 = scalar32(w, r, 2), w3 = scalar32(w, r, 3);
  Resource res;
  res.base = w0 | (U(w1 & 0xffff) << 32);
  res.stride = (w1 >> 16) & 0x3fff;
  res.swizzle = (w1 >> 31) & 1;
  res.records = w2;
  res.index_stride = 8u << ((w3 >> 21) & 3);
  res.add_tid = (w3 >> 23) & 1;
  res.element_size = g.program.target().gfx10 ? 4 : 2u << ((w3 >> 19) & 3);
  return res;
}

// The address of byte offset `offset` for `lane`, as the ISA reference's buffer addressing
// computes it (swizzled: interleaved by element across index_stride lanes).
std::uint64_t buffer_address(const Resource& r, std::uint32_t index, std::uint64_t offset, std::uint32_t soffset) {
  if (!r.swizzle) return r.base + soffset + U(index) * r.stride + offset;
  const U index_msb = index / r.index_stride, index_lsb = index % r.index_stride;
  const U offset_msb = offset / r.element_size, offset_lsb = offset % r.element_size;
  return r.base + soffset + (index_msb * r.stride + offset_msb * r.element_size) * r.index_stride +
         index_lsb * r.element_size + offset_lsb;
}

// Whether an access of `bytes` at a lane's `index` and byte `offset` lies inside the buffer, as GFX9
// and later check it: a raw buffer (or a strided one addressed by offset alone) by the byte offset
// with the instruction's SGPR offset counted (Tensile's kernels bound their tails so: rows at
// soffset past num_records read 0), a strided one addressed by index by the index. Swizzled buffers
// (scratch) are not checked.
bool in_buffer_range(const Resource& r, const Inst& in, std::uint32_t index, std::uint64_t offset, std::uint32_t soffset,
                     std::uint32_t bytes) {
  if (r.swizzle) return true;
  if (r.stride != 0 && (in.flags & kIdxen)) return index < r.records;
  return offset + soffset + bytes <= r.records;
}

// A lane's index and byte offset into the buffer, from its address VGPRs (idxen, offen).
std::pair<std::uint32_t, std::uint32_t> buffer_index_and_offset(const Wave& w, const Inst& in, const Resource& r,
                                                                std::uint32_t lane) {
  const Operand& vaddr = in.src[0];
  std::uint32_t index = 0, voffset = 0;
  if (vaddr.kind == Operand::vgpr) {
    const std::uint32_t first = w.v[vaddr.reg * w.lanes + lane];
    if ((in.flags & kIdxen) && (in.flags & kOffen)) index = first, voffset = w.v[(vaddr.reg + 1) * w.lanes + lane];
    else if (in.flags & kIdxen) index = first;
    else if (in.flags & kOffen) voffset = first;
  }
  if (r.add_tid) index += lane;
  return {index, voffset};
}

template <bool Load>
void buffer(WorkGroup& g, Wave& w, const Inst& in) {
  const Access a = access_of(in);
  const Resource r = resource_of(g, w, in.src[2]);
  const std::uint32_t soffset = scalar32(w, in.src[3]);
  for_lanes(w, [&](std::uint32_t lane) {
    const auto [index, voffset] = buffer_index_and_offset(w, in, r, lane);
    if (a.count > 1 && !r.swizzle) {
      // Every dword in range and the dwords contiguous in one page: one piece, aligned 8 and 16 bytes
      // whole, as a global access is (whole_words.hpp).
      const std::uint64_t first = U(voffset) + U(std::int64_t(in.offset)), last = first + U(a.count - 1) * 4;
      const std::uint64_t at = buffer_address(r, index, first, soffset);
      if (in_buffer_range(r, in, index, first, soffset, 4) && in_buffer_range(r, in, index, last, soffset, 4) &&
          buffer_address(r, index, last, soffset) == at + U(a.count - 1) * 4 && within_page(at, 4 * a.count)) {
        if (Load) {
          load_whole(g, w, in, a, at, int(lane));
        } else {
          std::uint32_t v[4];
          for (std::uint32_t k = 0; k < a.count; ++k) v[k] = src32(w, in.src[1], k, 2)[lane];
          g.write_global(w, in, at, v, 4 * a.count);
        }
        return;
      }
    }
    for (std::uint32_t k = 0; k < a.count; ++k) {
      const std::uint64_t offset = U(voffset) + U(std::int64_t(in.offset)) + U(k) * 4;
      // Loads beyond the buffer read 0, stores vanish (each dword of a dwordxN on its own).
      const bool in_range = in_buffer_range(r, in, index, offset, soffset, a.bytes);
      const std::uint64_t address = buffer_address(r, index, offset, soffset);
      if (Load) {
        std::uint32_t v = 0;
        if (in_range) std::memcpy(&v, g.read_global(w, in, address, a.bytes), a.bytes);
        write_loaded(w, in.dst[0], int(lane), k, extend(v, a), a);
      } else if (in_range) {
        std::uint32_t v = src32(w, in.src[1], k, 2)[lane];
        if (a.d16 == 2) v >>= 16;
        g.write_global(w, in, address, &v, a.bytes);
      }
    }
  });
}

// buffer_atomic_*: the buffer's addressing (as buffer<> computes it), then the atomic as a global
// one does, in the L2 where it caches the line. Out of a raw buffer's range it does nothing (and
// returns 0). rocBLAS's Tensile kernels accumulate split sums this way (cmpswap loops, add_f64).
void buffer_atomic(WorkGroup& g, Wave& w, const Inst& in) {
  const AtomicOp op = AtomicOp(in.atomic_op);
  const bool wide = in.mem_wide;
  const std::uint32_t size = wide ? 8 : 4;
  const Resource r = resource_of(g, w, in.src[2]);
  const std::uint32_t soffset = scalar32(w, in.src[3]);
  const bool returns = in.ndst > 0;
  for_lanes(w, [&](std::uint32_t lane) {
    const auto [index, voffset] = buffer_index_and_offset(w, in, r, lane);
    const std::uint64_t offset = U(voffset) + U(std::int64_t(in.offset));
    const bool in_range = in_buffer_range(r, in, index, offset, soffset, size);
    U old = 0;
    if (in_range) {
      const std::uint64_t address = buffer_address(r, index, offset, soffset);
      if (address % size != 0) g.fault(w, in, "a misaligned atomic (the hardware refuses it)");
      const U v = wide ? (U(src32(w, in.src[1], 0, 2)[lane]) | (U(src32(w, in.src[1], 1, 2)[lane]) << 32))
                       : src32(w, in.src[1], 0, 2)[lane];
      const U cmp = op != AtomicOp::cmpswap ? 0
                    : wide ? (U(src32(w, in.src[1], 2, 2)[lane]) | (U(src32(w, in.src[1], 3, 2)[lane]) << 32))
                           : src32(w, in.src[1], 1, 2)[lane];
      CachedRange* lines = nullptr;
      std::uint8_t* p = g.global(w, in, address, size, &lines);
      auto rmw = [&](std::uint8_t* q) {
        if (wide) old = atomic_rmw(reinterpret_cast<U*>(q), op, v, cmp);
        else old = atomic_rmw(reinterpret_cast<std::uint32_t*>(q), op, std::uint32_t(v), std::uint32_t(cmp));
      };
      if (lines) atomic_in_l2(*lines, in, address, size, rmw, g.dispatch.writer);
      else rmw(p);
    }
    if (returns) {
      dst32(w, in.dst[0], 0)[lane] = std::uint32_t(old);
      if (wide) dst32(w, in.dst[0], 1)[lane] = std::uint32_t(old >> 32);
    }
  });
}

// ---- LDS

std::uint32_t lds_address(const Wave& w, const Inst& in, std::uint32_t lane) {
  return w.v[in.src[0].reg * w.lanes + lane] + std::uint32_t(in.offset);
}

template <bool Read>
void ds_plain(WorkGroup& g, Wave& w, const Inst& in) {
  const Access a = access_of(in);
  for_lanes(w, [&](std::uint32_t lane) {
    const std::uint32_t address = lds_address(w, in, lane);
    for (std::uint32_t k = 0; k < a.count; ++k) {
      std::uint8_t* p = g.shared(w, in, address + 4 * k, a.bytes);
      if (Read) {
        std::uint32_t v = 0;
        std::memcpy(&v, p, a.bytes);
        write_loaded(w, in.dst[0], int(lane), k, extend(v, a), a);
      } else {
        std::uint32_t v = src32(w, in.src[1], k, 2)[lane];
        if (a.d16 == 2) v >>= 16;
        std::memcpy(p, &v, a.bytes);
      }
    }
  });
}

// ds_read2 / ds_write2: two elements at offset0 and offset1 (in elements; st64: in 64 elements).
template <bool Read>
void ds_pair(WorkGroup& g, Wave& w, const Inst& in) {
  const std::uint32_t dwords = in.mem_count;  // b64: two dwords per element
  const std::uint32_t scale = 4 * dwords * (in.mem_wide ? 64 : 1);  // st64
  for_lanes(w, [&](std::uint32_t lane) {
    const std::uint32_t base = w.v[in.src[0].reg * w.lanes + lane];
    const std::uint32_t at[2] = {base + std::uint32_t(in.offset) * scale, base + std::uint32_t(in.offset1) * scale};
    for (int e = 0; e < 2; ++e) {
      std::uint8_t* p = g.shared(w, in, at[e], 4 * dwords);
      for (std::uint32_t k = 0; k < dwords; ++k) {
        if (Read) {
          std::memcpy(&dst32(w, in.dst[0], e * dwords + k)[lane], p + 4 * k, 4);
        } else {
          const std::uint32_t v = src32(w, in.src[1 + e], k, 2)[lane];
          std::memcpy(p + 4 * k, &v, 4);
        }
      }
    }
  });
}

void ds_atomic(WorkGroup& g, Wave& w, const Inst& in) {
  const AtomicOp op = AtomicOp(in.atomic_op);
  const bool wide = in.mem_wide;
  const bool reverse = in.mem_sign;  // ds_rsub: the operands the other way round
  for_lanes(w, [&](std::uint32_t lane) {
    const std::uint32_t address = lds_address(w, in, lane);
    std::uint8_t* p = g.shared(w, in, address, wide ? 8 : 4);
    if (address % (wide ? 8 : 4)) g.fault(w, in, "a misaligned LDS atomic (the hardware refuses it)");
    const U v = wide ? (U(src32(w, in.src[1], 0, 2)[lane]) | (U(src32(w, in.src[1], 1, 2)[lane]) << 32))
                     : src32(w, in.src[1], 0, 2)[lane];
    // ds_cmpst: the compare value comes first, the new value second.
    const U second = in.nsrc > 2 ? (wide ? (U(src32(w, in.src[2], 0, 4)[lane]) | (U(src32(w, in.src[2], 1, 4)[lane]) << 32))
                                         : src32(w, in.src[2], 0, 4)[lane])
                                 : 0;
    U old;
    if (wide) {
      U cur;
      std::memcpy(&cur, p, 8);
      old = cur;
      const U next = op == AtomicOp::cmpswap ? (cur == v ? second : cur)
                     : reverse ? second - cur : apply(op, cur, v, U(0));
      std::memcpy(p, &next, 8);
    } else {
      std::uint32_t cur;
      std::memcpy(&cur, p, 4);
      old = cur;
      const std::uint32_t next = op == AtomicOp::cmpswap ? (cur == std::uint32_t(v) ? std::uint32_t(second) : cur)
                                 : reverse ? std::uint32_t(v) - cur
                                           : apply(op, cur, std::uint32_t(v), 0u);
      std::memcpy(p, &next, 4);
    }
    if (in.ndst > 0) {
      dst32(w, in.dst[0], 0)[lane] = std::uint32_t(old);
      if (wide) dst32(w, in.dst[0], 1)[lane] = std::uint32_t(old >> 32);
    }
  });
}

// ds_gws_*: the resource is M0[21:16] plus the instruction's offset; the value is the data
// operand's first active lane.
std::uint32_t gws_resource(WorkGroup& g, const Wave& w, const Inst& in) {
  const std::uint32_t r = ((w.s[kRegM0] >> 16) & 0x3f) + std::uint32_t(in.offset);
  if (r >= GlobalWaveSync::kResources) {
    g.fault(w, in, "GWS resource " + std::to_string(r) + " does not exist (there are " +
                       std::to_string(GlobalWaveSync::kResources) + ")");
  }
  return r;
}
std::uint32_t gws_value(const Wave& w, const Inst& in) {
  const std::uint64_t e = w.exec();
  return src32(w, in.src[0], 0, 1)[e ? std::uint32_t(__builtin_ctzll(e)) : 0];
}

void ds_gws_init(WorkGroup& g, Wave& w, const Inst& in) {
  if (!g.dispatch.gws) {
    g.fault(w, in, "the dispatch's queue holds no global wave sync resources (GWS): only a cooperative queue has "
                   "them (HSA_QUEUE_TYPE_COOPERATIVE, hipLaunchCooperativeKernel)");
  }
  g.dispatch.gws->set(gws_resource(g, w, in), gws_value(w, in));
}

void ds_gws_barrier(WorkGroup& g, Wave& w, const Inst& in) {
  if (!g.grid) {
    g.fault(w, in, "a grid barrier outside a cooperative launch: its work-groups are not resident together, so "
                   "it could never complete (launch it with hipLaunchCooperativeKernel, on a cooperative queue)");
  }
  const std::uint32_t r = gws_resource(g, w, in);
  g.grid->arrive(g, w, in, r, gws_value(w, in));
}

std::string_view mnemonic_of(const Inst& in) {
  return canonical_mnemonic(base_mnemonic(std::string_view(in.text).substr(0, in.text.find(' '))));
}

void prepare_access(Inst& in) {
  const Access a = parse_access(mnemonic_of(in));
  in.mem_bytes = std::uint8_t(a.bytes);
  in.mem_count = std::uint8_t(a.count);
  in.mem_sign = a.sign;
  in.mem_d16 = std::uint8_t(a.d16);
}

void prepare_atomic(Inst& in) {
  const std::string_view m = mnemonic_of(in);
  in.atomic_op = std::uint8_t(atomic_of(m));
  const bool ds = m.substr(0, 3) == "ds_";
  in.mem_wide = ds ? m.find("64") != std::string_view::npos
                   : m.find("_x2") != std::string_view::npos || m.find("_f64") != std::string_view::npos;
  in.mem_sign = m.find("rsub") != std::string_view::npos;
}

void prepare_pair(Inst& in) {
  const std::string_view m = mnemonic_of(in);
  in.mem_count = m.find("b64") != std::string_view::npos ? 2 : 1;
  in.mem_wide = m.find("st64") != std::string_view::npos;
}

void reg(const char* name, Handler fn, void (*prepare)(Inst&) = &prepare_access) {
  OpInfo info;
  info.fn = fn;
  info.prepare = prepare;
  register_op(name, info);
}

}  // namespace

void register_memory_ops() {
  const char* loads[] = {"load_ubyte", "load_sbyte", "load_ushort", "load_sshort", "load_dword", "load_dwordx2",
                         "load_dwordx3", "load_dwordx4", "load_ubyte_d16", "load_ubyte_d16_hi", "load_sbyte_d16",
                         "load_sbyte_d16_hi", "load_short_d16", "load_short_d16_hi"};
  const char* stores[] = {"store_byte", "store_short", "store_dword", "store_dwordx2", "store_dwordx3", "store_dwordx4",
                          "store_byte_d16_hi", "store_short_d16_hi"};
  static std::vector<std::string> names;
  auto add = [&](std::string name, Handler fn) {
    names.push_back(std::move(name));
    const bool atomic = fn == &vmem_atomic<false> || fn == &vmem_atomic<true> || fn == &ds_atomic || fn == &buffer_atomic;
    reg(names.back().c_str(), fn, atomic ? &prepare_atomic : fn == &ds_pair<true> || fn == &ds_pair<false> ? &prepare_pair
                                                                                                           : &prepare_access);
  };
  for (const char* l : loads) {
    add(std::string("global_") + l, &load<false, false>);
    add(std::string("flat_") + l, &load<true, false>);
    add(std::string("scratch_") + l, &load<false, true>);
    add(std::string("buffer_") + l, &buffer<true>);
  }
  for (const char* s : stores) {
    add(std::string("global_") + s, &store<false, false>);
    add(std::string("flat_") + s, &store<true, false>);
    add(std::string("scratch_") + s, &store<false, true>);
    add(std::string("buffer_") + s, &buffer<false>);
  }
  const char* atomics[] = {"add", "sub", "smin", "umin", "smax", "umax", "and", "or", "xor", "inc", "dec", "swap", "cmpswap",
                           "add_f32", "add_f64", "min_f64", "max_f64", "fmin", "fmax", "fmin_x2", "fmax_x2"};
  for (const char* a : atomics) {
    add(std::string("global_atomic_") + a, &vmem_atomic<false>);
    add(std::string("flat_atomic_") + a, &vmem_atomic<true>);
    add(std::string("buffer_atomic_") + a, &buffer_atomic);
    if (std::string(a).find("f64") == std::string::npos && std::string(a).find("f32") == std::string::npos) {
      add(std::string("global_atomic_") + a + "_x2", &vmem_atomic<false>);
      add(std::string("flat_atomic_") + a + "_x2", &vmem_atomic<true>);
      add(std::string("buffer_atomic_") + a + "_x2", &buffer_atomic);
    }
  }
  for (const char* r : {"ds_read_b32", "ds_read_b64", "ds_read_b96", "ds_read_b128", "ds_read_u8", "ds_read_i8",
                        "ds_read_u16", "ds_read_i16", "ds_read_u8_d16", "ds_read_u8_d16_hi", "ds_read_i8_d16",
                        "ds_read_i8_d16_hi", "ds_read_u16_d16", "ds_read_u16_d16_hi"}) {
    add(r, &ds_plain<true>);
  }
  for (const char* s : {"ds_write_b32", "ds_write_b64", "ds_write_b96", "ds_write_b128", "ds_write_b8", "ds_write_b16",
                        "ds_write_b8_d16_hi", "ds_write_b16_d16_hi"}) {
    add(s, &ds_plain<false>);
  }
  for (const char* r : {"ds_read2_b32", "ds_read2_b64", "ds_read2st64_b32", "ds_read2st64_b64"}) add(r, &ds_pair<true>);
  for (const char* s : {"ds_write2_b32", "ds_write2_b64", "ds_write2st64_b32", "ds_write2st64_b64"}) add(s, &ds_pair<false>);
  for (const char* op : {"add", "sub", "rsub", "inc", "dec", "min_i32", "max_i32", "min_u32", "max_u32", "and", "or", "xor",
                         "min_i64", "max_i64", "min_u64", "max_u64"}) {
    std::string base(op);
    const bool typed = base.find("32") != std::string::npos || base.find("64") != std::string::npos;
    for (const char* width : {"_u32", "_u64", "_b32", "_b64"}) {
      if (typed && width != std::string("_u32")) continue;
      const std::string name = typed ? base : base + width;
      const std::string stem = "ds_" + name;
      add(stem, &ds_atomic);
      const auto us = stem.rfind('_');
      add(stem.substr(0, us) + "_rtn" + stem.substr(us), &ds_atomic);
    }
  }
  reg("ds_gws_init", &ds_gws_init, nullptr);
  reg("ds_gws_barrier", &ds_gws_barrier, nullptr);
  // Floating-point LDS atomics: IEEE adds (gfx90a and later for f64), fmin/fmax (gfx9 and RDNA).
  for (const char* s : {"ds_cmpst_b32", "ds_cmpst_rtn_b32", "ds_cmpst_b64", "ds_cmpst_rtn_b64", "ds_wrxchg_rtn_b32",
                        "ds_wrxchg_rtn_b64", "ds_add_f32", "ds_add_rtn_f32", "ds_add_f64", "ds_add_rtn_f64",
                        "ds_min_f32", "ds_min_rtn_f32", "ds_max_f32", "ds_max_rtn_f32", "ds_min_f64", "ds_min_rtn_f64",
                        "ds_max_f64", "ds_max_rtn_f64"}) {
    add(s, &ds_atomic);
  }
}

}  // namespace hsad::isa
