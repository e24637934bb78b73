// AQL packets: the one place that knows header bit positions. Pure: plain data in, plain data out.
// Packets are ROCr's own types from hsa/hsa.h; the header is published last with a release store.
#pragma once

#include <hsa/hsa.h>

#include <cstdint>

#include "hsad/kernel.hpp"

namespace hsad::aql {

inline constexpr std::uint32_t kPacketBytes = 64;
static_assert(sizeof(hsa_kernel_dispatch_packet_t) == kPacketBytes);
static_assert(sizeof(hsa_barrier_and_packet_t) == kPacketBytes);
static_assert(sizeof(hsa_agent_dispatch_packet_t) == kPacketBytes);

// The agent-dispatch function a cpu agent's copy command is (HSA leaves 0x8000 and up to vendors
// and applications). It is the packet's `type` field, published with the header.
inline constexpr std::uint16_t kAgentCopy = 0x8001;
// arg[3] of a copy packet: the host side is pageable and goes through the agent's staging buffer.
inline constexpr std::uint64_t kCopyStaged = 1;

enum class Scope : std::uint8_t {
  none = HSA_FENCE_SCOPE_NONE,
  agent = HSA_FENCE_SCOPE_AGENT,
  system = HSA_FENCE_SCOPE_SYSTEM,
};

struct Header {
  hsa_packet_type_t type = HSA_PACKET_TYPE_INVALID;
  bool barrier = false;
  Scope acquire = Scope::none;
  Scope release = Scope::none;

  bool operator==(const Header& o) const {
    return type == o.type && barrier == o.barrier && acquire == o.acquire && release == o.release;
  }
};

std::uint16_t encode(const Header& h);
Header decode(std::uint16_t bits);

// Setup field of a kernel dispatch: the number of grid dimensions (1 to 3).
std::uint16_t dispatch_setup(const Dim3& grid, const Dim3& group);

struct DispatchFields {
  Dim3 grid;
  Dim3 group;
  std::uint32_t private_segment_size = 0;
  std::uint32_t group_segment_size = 0;
  std::uint64_t kernel_object = 0;
  void* kernarg_address = nullptr;
  hsa_signal_t completion_signal{0};
  // The dispatch packet's reserved2 word: 0 for a GPU; the software agent's own marks
  // (kCooperativeMark) where it is the one that reads the packet.
  std::uint64_t agent_mark = 0;
};

// reserved2 of a dispatch packet for the software agent: run every work-group at once, each on a
// thread of its own, so that WorkGroup::grid_sync can hold them all (LaunchConfig::cooperative).
constexpr std::uint64_t kCooperativeMark = 1;

// Writes every field of the dispatch packet at `slot` except the header and setup word, which
// stays INVALID until publish(): the packet processor must never see a half-written packet.
void write_dispatch_body(hsa_kernel_dispatch_packet_t* slot, const DispatchFields& f);
// Barrier-AND (or -OR, by the header type used at publish) with up to five dependencies.
void write_barrier_body(hsa_barrier_and_packet_t* slot, const hsa_signal_t* deps, int dep_count,
                        hsa_signal_t completion);

// An agent-dispatch packet asking the agent to copy `bytes` from src to dst (kAgentCopy): arg[0]
// dst, arg[1] src, arg[2] bytes, arg[3] flags (kCopyStaged).
void write_copy_body(hsa_agent_dispatch_packet_t* slot, void* dst, const void* src, std::uint64_t bytes,
                     std::uint64_t flags, hsa_signal_t completion);

// Stores header | setup << 16 as one 32-bit release store: everything written before is visible
// to a processor that reads the header with acquire.
void publish(void* slot, std::uint16_t header, std::uint16_t setup);
// What a packet processor reads first.
std::uint16_t load_header_acquire(const void* slot);

}  // namespace hsad::aql
