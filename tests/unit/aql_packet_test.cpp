// AQL packet encoding: exact header bits, setup dimensions, and the publish protocol.
#include <gtest/gtest.h>

#include <cstring>

#include "aql_packets/packet.hpp"

using namespace hsad;
using aql::Scope;

TEST(AqlHeader, DispatchWithBarrierAndSystemFencesHasExactBits) {
  // type 2 (bits 0-7), barrier (bit 8), acquire system (2 << 9), release system (2 << 11)
  EXPECT_EQ(aql::encode({HSA_PACKET_TYPE_KERNEL_DISPATCH, true, Scope::system, Scope::system}), 0x1502);
}

TEST(AqlHeader, AgentScopeBothWaysHasExactBits) {
  EXPECT_EQ(aql::encode({HSA_PACKET_TYPE_KERNEL_DISPATCH, true, Scope::agent, Scope::agent}), 0x0B02);
}

TEST(AqlHeader, FirstPacketOfNarrowBatchHasExactBits) {
  EXPECT_EQ(aql::encode({HSA_PACKET_TYPE_KERNEL_DISPATCH, true, Scope::system, Scope::agent}), 0x0D02);
}

TEST(AqlHeader, BarrierAndWithoutFencesHasExactBits) {
  EXPECT_EQ(aql::encode({HSA_PACKET_TYPE_BARRIER_AND, true, Scope::none, Scope::none}), 0x0103);
}

TEST(AqlHeader, NoBarrierBitWhenNotAsked) {
  EXPECT_EQ(aql::encode({HSA_PACKET_TYPE_KERNEL_DISPATCH, false, Scope::none, Scope::none}), 0x0002);
}

TEST(AqlHeader, DecodeInvertsEncodeForEveryCombination) {
  for (auto type : {HSA_PACKET_TYPE_KERNEL_DISPATCH, HSA_PACKET_TYPE_BARRIER_AND, HSA_PACKET_TYPE_BARRIER_OR}) {
    for (bool barrier : {false, true}) {
      for (Scope a : {Scope::none, Scope::agent, Scope::system}) {
        for (Scope r : {Scope::none, Scope::agent, Scope::system}) {
          const aql::Header h{type, barrier, a, r};
          EXPECT_EQ(aql::decode(aql::encode(h)), h);
        }
      }
    }
  }
}

TEST(AqlSetup, CountsGridDimensions) {
  EXPECT_EQ(aql::dispatch_setup(Dim3{64}, Dim3{64}), 1);
  EXPECT_EQ(aql::dispatch_setup(Dim3{64, 2}, Dim3{8, 2}), 2);
  EXPECT_EQ(aql::dispatch_setup(Dim3{64, 2, 3}, Dim3{8}), 3);
}

TEST(AqlDispatchBody, LeavesHeaderInvalidUntilPublished) {
  alignas(64) hsa_kernel_dispatch_packet_t slot;
  std::memset(&slot, 0xAB, sizeof slot);
  slot.header = HSA_PACKET_TYPE_INVALID;
  slot.setup = 0;
  int kernarg = 0;
  aql::write_dispatch_body(&slot, {Dim3{1024, 2, 1}, Dim3{256, 1, 1}, 16, 32, 0x1234, &kernarg, hsa_signal_t{77}});
  EXPECT_EQ(slot.header, HSA_PACKET_TYPE_INVALID);
  EXPECT_EQ(slot.workgroup_size_x, 256);
  EXPECT_EQ(slot.workgroup_size_y, 1);
  EXPECT_EQ(slot.grid_size_x, 1024u);
  EXPECT_EQ(slot.grid_size_y, 2u);
  EXPECT_EQ(slot.grid_size_z, 1u);
  EXPECT_EQ(slot.private_segment_size, 16u);
  EXPECT_EQ(slot.group_segment_size, 32u);
  EXPECT_EQ(slot.kernel_object, 0x1234u);
  EXPECT_EQ(slot.kernarg_address, &kernarg);
  EXPECT_EQ(slot.completion_signal.handle, 77u);
  EXPECT_EQ(slot.reserved0, 0);
  EXPECT_EQ(slot.reserved2, 0u);
}

TEST(AqlPublish, StoresHeaderAndSetupAsOneWord) {
  alignas(64) hsa_kernel_dispatch_packet_t slot{};
  aql::publish(&slot, 0x1502, 3);
  std::uint32_t word;
  std::memcpy(&word, &slot, 4);
  EXPECT_EQ(word, 0x00031502u);
  EXPECT_EQ(aql::load_header_acquire(&slot), 0x1502);
}

TEST(AqlBarrierBody, FillsDependenciesAndZeroesTheRest) {
  alignas(64) hsa_barrier_and_packet_t slot;
  std::memset(&slot, 0xFF, sizeof slot);
  const hsa_signal_t deps[2] = {{11}, {22}};
  aql::write_barrier_body(&slot, deps, 2, hsa_signal_t{33});
  EXPECT_EQ(slot.dep_signal[0].handle, 11u);
  EXPECT_EQ(slot.dep_signal[1].handle, 22u);
  for (int i = 2; i < 5; ++i) EXPECT_EQ(slot.dep_signal[i].handle, 0u);
  EXPECT_EQ(slot.completion_signal.handle, 33u);
  EXPECT_EQ(slot.reserved0, 0u);
}
