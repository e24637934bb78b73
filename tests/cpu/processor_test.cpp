// The packet processor through a raw cpu ring: barrier bit, barrier-AND/OR, completion
// signals, AMD's vendor packets, unknown kernels. Packets are written here by hand, as a GPU
// runtime would write them.
#include <gtest/gtest.h>

#include <hsa/hsa_ext_amd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "aql_packets/packet.hpp"
#include "backends/cpu/cpu_ring.hpp"
#include "agent/signal_ops.hpp"
#include "hsad/error.hpp"
#include "hsad/host_kernel.hpp"
#include "test_kernels.hpp"

using namespace hsad;
using namespace std::chrono_literals;
using aql::Scope;

namespace {
class RawQueue {
 public:
  RawQueue() : pool_(std::make_shared<agent::WorkerPool>(2)), ring_(64, pool_, 0) { test::register_test_kernels(); }

  void dispatch(const char* kernel, const void* args, std::uint32_t groups, std::uint32_t group_size, bool barrier,
                hsa_signal_t completion = {0}) {
    const std::uint64_t i = ring_.add_write_index(1);
    auto* slot = static_cast<hsa_kernel_dispatch_packet_t*>(ring_.base()) + (i & (ring_.size() - 1));
    aql::write_dispatch_body(slot, {Dim3{groups * group_size}, Dim3{group_size}, 0, 0,
                                    reinterpret_cast<std::uint64_t>(find_host_kernel(kernel)),
                                    const_cast<void*>(args), completion});
    aql::publish(slot, aql::encode({HSA_PACKET_TYPE_KERNEL_DISPATCH, barrier, Scope::system, Scope::system}), 1);
    ring_.ring_doorbell(i);
  }

  void barrier(hsa_packet_type_t type, std::initializer_list<hsa_signal_t> deps, hsa_signal_t completion,
               bool barrier_bit = false) {
    const std::uint64_t i = ring_.add_write_index(1);
    auto* slot = static_cast<hsa_barrier_and_packet_t*>(ring_.base()) + (i & (ring_.size() - 1));
    aql::write_barrier_body(slot, deps.begin(), static_cast<int>(deps.size()), completion);
    aql::publish(slot, aql::encode({type, barrier_bit, Scope::none, Scope::none}), 0);
    ring_.ring_doorbell(i);
  }

  void raw(std::uint16_t header, hsa_signal_t completion) {
    const std::uint64_t i = ring_.add_write_index(1);
    auto* slot = static_cast<hsa_barrier_and_packet_t*>(ring_.base()) + (i & (ring_.size() - 1));
    aql::write_barrier_body(slot, nullptr, 0, completion);
    aql::publish(slot, header, 0);
    ring_.ring_doorbell(i);
  }

  // A vendor-specific packet: `body` is its 64 bytes after the first word (header and AMD format).
  void vendor(std::uint8_t amd_format, const unsigned char (&body)[64], bool barrier_bit = false) {
    const std::uint64_t i = ring_.add_write_index(1);
    auto* slot = static_cast<unsigned char*>(ring_.base()) + 64 * (i & (ring_.size() - 1));
    std::memcpy(slot + 4, body + 4, 60);
    aql::publish(reinterpret_cast<hsa_barrier_and_packet_t*>(slot),
                 aql::encode({HSA_PACKET_TYPE_VENDOR_SPECIFIC, barrier_bit, Scope::none, Scope::none}), amd_format);
    ring_.ring_doorbell(i);
  }

  bool wait(hsa_signal_t s, std::chrono::milliseconds timeout = 10000ms) {
    return agent::signal_wait_zero(s, std::chrono::steady_clock::now() + timeout, [this] { ring_.throw_if_failed(); });
  }

  cpu::CpuRing& ring() { return ring_; }

 private:
  std::shared_ptr<agent::WorkerPool> pool_;
  cpu::CpuRing ring_;
};

struct Signal {
  explicit Signal(std::int64_t v = 1) : s(agent::create_soft_signal(v)) {}
  ~Signal() { agent::destroy_soft_signal(s); }
  hsa_signal_t s;
};
}  // namespace

TEST(PacketProcessor, BarrierPacketNeverStartsBeforeEarlierPacketsEnd) {
  RawQueue q;
  test::Timeline t;
  Signal done;
  const test::RecordArgs a{&t, 0, 300}, b{&t, 1, 0};
  q.dispatch("test_record", &a, 32, 1, false);  // slow, many groups
  q.dispatch("test_record", &b, 1, 1, true, done.s);
  ASSERT_TRUE(q.wait(done.s));
  EXPECT_GT(t.first_start[1].load(), t.last_end[0].load()) << "the barrier packet started while the first ran";
}

TEST(PacketProcessor, PacketsWithoutBarrierBitMayOverlap) {
  // The positive control for the test above: the same packets without the barrier bit do
  // overlap, so the barrier test would catch a processor that ignored the bit.
  RawQueue q;
  test::Timeline t;
  Signal done(2);
  // 32 groups of 1 ms on two workers: the second packet has ~16 ms to start, ample even on one
  // loaded CPU.
  const test::RecordArgs a{&t, 0, 1000}, b{&t, 1, 0};
  q.dispatch("test_record", &a, 32, 1, false, done.s);
  q.dispatch("test_record", &b, 1, 1, false, done.s);
  ASSERT_TRUE(q.wait(done.s));
  EXPECT_LT(t.first_start[1].load(), t.last_end[0].load());
}

TEST(PacketProcessor, CompletionSignalDecrementedOncePerPacket) {
  RawQueue q;
  Signal s(5);
  test::Timeline t;
  const test::RecordArgs a{&t, 0, 0};
  for (int i = 0; i < 3; ++i) q.dispatch("test_record", &a, 4, 1, true, s.s);
  Signal fence;  // with the barrier bit: completes after every packet before it
  q.barrier(HSA_PACKET_TYPE_BARRIER_AND, {}, fence.s, true);
  ASSERT_TRUE(q.wait(fence.s));
  EXPECT_EQ(agent::signal_load(s.s), 2);
}

TEST(PacketProcessor, BarrierAndWaitsForEveryDependency) {
  RawQueue q;
  Signal dep1, dep2, done;
  q.barrier(HSA_PACKET_TYPE_BARRIER_AND, {dep1.s, dep2.s}, done.s);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(agent::signal_load(done.s), 1);
  agent::signal_store(dep1.s, 0);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(agent::signal_load(done.s), 1) << "completed with one dependency still pending";
  agent::signal_store(dep2.s, 0);
  EXPECT_TRUE(q.wait(done.s));
}

TEST(PacketProcessor, BarrierAndBlocksLaterPacketsOfTheQueue) {
  RawQueue q;
  Signal dep, done;
  test::Timeline t;
  const test::RecordArgs a{&t, 0, 0};
  q.barrier(HSA_PACKET_TYPE_BARRIER_AND, {dep.s}, {0});
  q.dispatch("test_record", &a, 1, 1, false, done.s);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(t.first_start[0].load(), UINT64_MAX) << "a dispatch ran past an unsatisfied barrier-AND";
  agent::signal_store(dep.s, 0);
  EXPECT_TRUE(q.wait(done.s));
}

TEST(PacketProcessor, BarrierOrWaitsForAnyDependency) {
  RawQueue q;
  Signal dep1, dep2, done;
  q.barrier(HSA_PACKET_TYPE_BARRIER_OR, {dep1.s, dep2.s}, done.s);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(agent::signal_load(done.s), 1);
  agent::signal_store(dep2.s, 0);
  EXPECT_TRUE(q.wait(done.s));
}

// AMD's barrier-value packet (HIP 6's markers and stream waits): completes once its signal's
// masked value meets the condition.
TEST(PacketProcessor, ABarrierValuePacketWaitsForItsCondition) {
  RawQueue q;
  Signal watched(5), done;
  hsa_amd_barrier_value_packet_t p{};
  p.signal = watched.s;
  p.value = 2;
  p.mask = 0x3;
  p.cond = HSA_SIGNAL_CONDITION_EQ;
  p.completion_signal = done.s;
  unsigned char body[64];
  std::memcpy(body, &p, 64);
  q.vendor(HSA_AMD_PACKET_TYPE_BARRIER_VALUE, body);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(agent::signal_load(done.s), 1) << "completed while 5 & 3 != 2";
  agent::signal_store(watched.s, 6);  // 6 & 3 == 2
  EXPECT_TRUE(q.wait(done.s));
}

// CLR's cache flush around events: a PM4 indirect buffer holding ACQUIRE_MEM (and NOPs).
TEST(PacketProcessor, APm4BufferOfCacheOperationsCompletes) {
  RawQueue q;
  Signal done;
  const std::uint32_t ib[] = {0xc0055800, 0x28840000, 0xffffffff, 0xff, 0, 0, 0, 0xc0001000, 0};
  std::uint32_t words[16] = {};
  words[1] = 0xc0023f00;  // INDIRECT_BUFFER
  words[2] = std::uint32_t(reinterpret_cast<std::uintptr_t>(ib));
  words[3] = std::uint32_t(reinterpret_cast<std::uintptr_t>(ib) >> 32);
  words[4] = (1u << 23) | 9;  // valid, 9 dwords
  words[5] = 10;
  std::memcpy(&words[14], &done.s, 8);
  unsigned char body[64];
  std::memcpy(body, words, 64);
  q.vendor(1, body);
  EXPECT_TRUE(q.wait(done.s));
}

// A command the processor cannot execute is an error naming it, never a silent completion.
TEST(PacketProcessor, AnUnknownVendorPacketOrPm4CommandPutsTheQueueInError) {
  for (const bool pm4 : {false, true}) {
    SCOPED_TRACE(pm4 ? "PM4 WRITE_DATA" : "AMD format 7");
    RawQueue q;
    Signal done;
    const std::uint32_t ib[] = {0xc0033700, 0, 0, 0, 0};  // WRITE_DATA
    std::uint32_t words[16] = {};
    if (pm4) {
      words[1] = 0xc0023f00;
      words[2] = std::uint32_t(reinterpret_cast<std::uintptr_t>(ib));
      words[3] = std::uint32_t(reinterpret_cast<std::uintptr_t>(ib) >> 32);
      words[4] = (1u << 23) | 5;
    }
    std::memcpy(&words[14], &done.s, 8);
    unsigned char body[64];
    std::memcpy(body, words, 64);
    q.vendor(pm4 ? 1 : 7, body);
    try {
      q.wait(done.s, 2000ms);
      ADD_FAILURE() << "the packet completed";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(pm4 ? "command opcode 0x37" : "AMD format 7"), std::string::npos) << e.what();
    }
  }
}

TEST(PacketProcessor, UnknownKernelObjectPutsTheQueueInError) {
  RawQueue q;
  Signal done;
  const std::uint64_t i = q.ring().add_write_index(1);
  auto* slot = static_cast<hsa_kernel_dispatch_packet_t*>(q.ring().base()) + i;
  aql::write_dispatch_body(slot, {Dim3{1}, Dim3{1}, 0, 0, 0, nullptr, done.s});
  aql::publish(slot, aql::encode({HSA_PACKET_TYPE_KERNEL_DISPATCH, true, Scope::system, Scope::system}), 1);
  q.ring().ring_doorbell(i);
  try {
    q.wait(done.s);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("names no known kernel"), std::string::npos) << e.what();
  }
}
