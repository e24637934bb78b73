// AMD's vendor-specific AQL packets, as AMD's command processor executes them. ROCr's HIP writes
// two: the barrier-value packet (hsa_ext_amd.h; HIP 6's event markers and stream waits), and a
// PM4 indirect buffer (ROCr's amd_aql_pm4_ib_packet.h layout) whose commands CLR uses to write
// the GPU's caches back and invalidate them around its events. Anything else would be work this
// processor cannot do: the queue stops with an error that names it, never a silent completion.
#include <hsa/hsa_ext_amd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "agent/packet_processor.hpp"
#include "agent/signal_ops.hpp"

namespace hsad::agent {
namespace {
// The AmdFormat byte of hsa_amd_vendor_packet_header_t (byte 2 of the packet).
constexpr std::uint8_t kAmdFormatPm4Ib = 1;  // ROCr's AMD_AQL_FORMAT_PM4_IB
constexpr std::uint8_t kAmdFormatBarrierValue = HSA_AMD_PACKET_TYPE_BARRIER_VALUE;

// PM4 type-3 headers: type in bits 31:30, the count of body dwords minus one in 29:16, the
// opcode in 15:8 (AMD's PM4 packet reference for gfx9/gfx10, "Type-3 Packet").
constexpr std::uint32_t pm4_type(std::uint32_t h) { return h >> 30; }
constexpr std::uint32_t pm4_body(std::uint32_t h) { return ((h >> 16) & 0x3fff) + 1; }
constexpr std::uint32_t pm4_opcode(std::uint32_t h) { return (h >> 8) & 0xff; }
constexpr std::uint32_t kPm4Nop = 0x10;
constexpr std::uint32_t kPm4IndirectBuffer = 0x3f;
constexpr std::uint32_t kPm4AcquireMem = 0x58;
// ACQUIRE_MEM's CP_COHER_CNTL bits that reach the L2: write back (TC_WB_ACTION_ENA, 18) and
// invalidate (TC_ACTION_ENA, 23).
constexpr std::uint32_t kCoherL2Writeback = 1u << 18;
constexpr std::uint32_t kCoherL2Invalidate = 1u << 23;

// ROCr's amd_aql_pm4_ib_packet_t: the header, the vendor header (AmdFormat 1), an
// INDIRECT_BUFFER command of four dwords, the dwords left in the packet, and the completion signal.
struct Pm4IbPacket {
  std::uint16_t header;
  std::uint16_t ven_hdr;
  std::uint32_t ib_jump_cmd[4];
  std::uint32_t dw_cnt_remain;
  std::uint32_t reserved[8];
  hsa_signal_t completion_signal;
};
static_assert(sizeof(Pm4IbPacket) == 64, "an AQL packet");

bool condition_holds(hsa_signal_condition32_t cond, std::int64_t v, std::int64_t want) {
  switch (cond) {
    case HSA_SIGNAL_CONDITION_EQ: return v == want;
    case HSA_SIGNAL_CONDITION_NE: return v != want;
    case HSA_SIGNAL_CONDITION_LT: return v < want;
    case HSA_SIGNAL_CONDITION_GTE: return v >= want;
  }
  return false;
}

std::string hex(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}
}  // namespace

void PacketProcessor::execute_vendor(const unsigned char* packet, std::uint64_t id) {
  const aql::Header header = aql::decode(*reinterpret_cast<const std::uint16_t*>(packet));
  const std::uint8_t format = packet[2];
  if (format == kAmdFormatPm4Ib) return execute_pm4_buffer(packet, id);
  if (format != kAmdFormatBarrierValue) {
    return fail({"packet " + std::to_string(id) + ": a vendor-specific AQL packet of AMD format " +
                     std::to_string(int(format)) + ", which the packet processor does not execute",
                 std::nullopt},
                id);
  }
  hsa_amd_barrier_value_packet_t p;
  std::memcpy(&p, packet, sizeof p);
  if (hooks_.trace) hooks_.trace({ring_.queue_id, id, header, {}, {}, {}, p.completion_signal.handle != 0});
  if (p.cond > HSA_SIGNAL_CONDITION_GTE) {
    return fail({"packet " + std::to_string(id) + ": a barrier-value packet with condition " + std::to_string(p.cond),
                 std::nullopt},
                id);
  }
  // Like a barrier-AND: its start is when it was consumed, its acquire once the condition holds.
  const std::uint64_t start = profiling() ? now_ns() : 0;
  const bool met = wait_until([&] {
    return p.signal.handle == 0 || condition_holds(p.cond, signal_load(p.signal) & p.mask, p.value);
  });
  if (!met) return;
  if (hooks_.acquire && header.acquire != aql::Scope::none) hooks_.acquire(header.acquire);
  complete(p.completion_signal, start, header.release);
}

void PacketProcessor::execute_pm4_buffer(const unsigned char* packet, std::uint64_t id) {
  Pm4IbPacket p;
  std::memcpy(&p, packet, sizeof p);
  const aql::Header header = aql::decode(p.header);
  if (hooks_.trace) hooks_.trace({ring_.queue_id, id, header, {}, {}, {}, p.completion_signal.handle != 0});
  const auto refuse = [&](const std::string& what) {
    fail({"packet " + std::to_string(id) + ": a PM4 indirect buffer with " + what + ", which the packet processor "
              "does not execute",
          std::nullopt},
         id);
  };
  const std::uint32_t jump = p.ib_jump_cmd[0];
  if (pm4_type(jump) != 3 || pm4_opcode(jump) != kPm4IndirectBuffer) return refuse("no INDIRECT_BUFFER command");
  const std::uint64_t ib_address = (std::uint64_t(p.ib_jump_cmd[2]) << 32) | p.ib_jump_cmd[1];
  const std::uint32_t dwords = p.ib_jump_cmd[3] & 0xfffff;
  const void* ib_host = hooks_.host_address ? hooks_.host_address(ib_address, std::uint64_t(dwords) * 4)
                                            : reinterpret_cast<const void*>(ib_address);
  if (!ib_host) return refuse("its buffer at " + hex(ib_address) + ", which no GPU may reach");
  const auto* ib = static_cast<const std::uint32_t*>(ib_host);
  const std::uint64_t start = profiling() ? now_ns() : 0;
  if (hooks_.acquire && header.acquire != aql::Scope::none) hooks_.acquire(header.acquire);
  for (std::uint32_t at = 0; at < dwords;) {
    const std::uint32_t h = ib[at];
    if (pm4_type(h) != 3) return refuse("a type-" + std::to_string(pm4_type(h)) + " command at dword " + std::to_string(at));
    const std::uint32_t body = pm4_body(h);
    if (at + 1 + body > dwords) return refuse("a command that runs past the buffer's end");
    const std::uint32_t op = pm4_opcode(h);
    if (op == kPm4AcquireMem) {
      // CP_COHER_CNTL, then the range (CLR names the whole of memory or one buffer): the L2's
      // write-back and invalidation are those of a system-scope release and acquire.
      const std::uint32_t cntl = ib[at + 1];
      if ((cntl & kCoherL2Writeback) && hooks_.release) hooks_.release(aql::Scope::system, false);
      if ((cntl & kCoherL2Invalidate) && hooks_.acquire) hooks_.acquire(aql::Scope::system);
    } else if (op != kPm4Nop) {
      return refuse("command opcode " + hex(op) + " at dword " + std::to_string(at));
    }
    at += 1 + body;
  }
  complete(p.completion_signal, start, header.release);
}

}  // namespace hsad::agent
