// AQL header encoding and the write-body-then-publish protocol.
#include "aql_packets/packet.hpp"

#include "aql_packets/fence_policy.hpp"

#include <cstring>

namespace hsad::aql {
namespace {
constexpr std::uint16_t field(std::uint16_t value, int shift, int width) {
  return static_cast<std::uint16_t>((value & ((1u << width) - 1u)) << shift);
}
constexpr std::uint16_t extract(std::uint16_t bits, int shift, int width) {
  return static_cast<std::uint16_t>((bits >> shift) & ((1u << width) - 1u));
}
}  // namespace

std::uint16_t encode(const Header& given) {
  const Header h = narrowed_for_test(given);
  return field(h.type, HSA_PACKET_HEADER_TYPE, HSA_PACKET_HEADER_WIDTH_TYPE) |
         field(h.barrier ? 1 : 0, HSA_PACKET_HEADER_BARRIER, HSA_PACKET_HEADER_WIDTH_BARRIER) |
         field(static_cast<std::uint16_t>(h.acquire), HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE,
               HSA_PACKET_HEADER_WIDTH_SCACQUIRE_FENCE_SCOPE) |
         field(static_cast<std::uint16_t>(h.release), HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE,
               HSA_PACKET_HEADER_WIDTH_SCRELEASE_FENCE_SCOPE);
}

Header decode(std::uint16_t bits) {
  Header h;
  h.type = static_cast<hsa_packet_type_t>(extract(bits, HSA_PACKET_HEADER_TYPE, HSA_PACKET_HEADER_WIDTH_TYPE));
  h.barrier = extract(bits, HSA_PACKET_HEADER_BARRIER, HSA_PACKET_HEADER_WIDTH_BARRIER) != 0;
  h.acquire = static_cast<Scope>(
      extract(bits, HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE, HSA_PACKET_HEADER_WIDTH_SCACQUIRE_FENCE_SCOPE));
  h.release = static_cast<Scope>(
      extract(bits, HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE, HSA_PACKET_HEADER_WIDTH_SCRELEASE_FENCE_SCOPE));
  return h;
}

std::uint16_t dispatch_setup(const Dim3& grid, const Dim3& group) {
  const int dims = grid.dimensions() > group.dimensions() ? grid.dimensions() : group.dimensions();
  return field(static_cast<std::uint16_t>(dims), HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS,
               HSA_KERNEL_DISPATCH_PACKET_SETUP_WIDTH_DIMENSIONS);
}

void write_dispatch_body(hsa_kernel_dispatch_packet_t* slot, const DispatchFields& f) {
  // Every byte after the first 4 (header and setup); those are published separately.
  slot->workgroup_size_x = static_cast<std::uint16_t>(f.group.x);
  slot->workgroup_size_y = static_cast<std::uint16_t>(f.group.y);
  slot->workgroup_size_z = static_cast<std::uint16_t>(f.group.z);
  slot->reserved0 = 0;
  slot->grid_size_x = f.grid.x;
  slot->grid_size_y = f.grid.y;
  slot->grid_size_z = f.grid.z;
  slot->private_segment_size = f.private_segment_size;
  slot->group_segment_size = f.group_segment_size;
  slot->kernel_object = f.kernel_object;
  slot->kernarg_address = f.kernarg_address;
  slot->reserved2 = f.agent_mark;
  slot->completion_signal = f.completion_signal;
}

void write_barrier_body(hsa_barrier_and_packet_t* slot, const hsa_signal_t* deps, int dep_count,
                        hsa_signal_t completion) {
  slot->reserved0 = 0;
  slot->reserved1 = 0;
  for (int i = 0; i < 5; ++i) slot->dep_signal[i] = i < dep_count ? deps[i] : hsa_signal_t{0};
  slot->reserved2 = 0;
  slot->completion_signal = completion;
}

void write_copy_body(hsa_agent_dispatch_packet_t* slot, void* dst, const void* src, std::uint64_t bytes,
                     std::uint64_t flags, hsa_signal_t completion) {
  slot->reserved0 = 0;
  slot->return_address = nullptr;
  slot->arg[0] = reinterpret_cast<std::uint64_t>(dst);
  slot->arg[1] = reinterpret_cast<std::uint64_t>(src);
  slot->arg[2] = bytes;
  slot->arg[3] = flags;
  slot->reserved2 = 0;
  slot->completion_signal = completion;
}

void publish(void* slot, std::uint16_t header, std::uint16_t setup) {
  const std::uint32_t word = std::uint32_t(header) | (std::uint32_t(setup) << 16);
  __atomic_store_n(static_cast<std::uint32_t*>(slot), word, __ATOMIC_RELEASE);
}

std::uint16_t load_header_acquire(const void* slot) {
  return __atomic_load_n(static_cast<const std::uint16_t*>(slot), __ATOMIC_ACQUIRE);
}

}  // namespace hsad::aql
