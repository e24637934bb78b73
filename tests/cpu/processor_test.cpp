// The packet processor through a raw cpu ring: barrier bit, barrier-AND/OR, completion
// signals, ignored packets, unknown kernels. Packets are written here by hand, as a GPU
// runtime would write them.
#include <gtest/gtest.h>

#include <chrono>
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

TEST(PacketProcessor, VendorPacketsAreCountedIgnoredAndCompleted) {
  RawQueue q;
  Signal done;
  q.raw(aql::encode({HSA_PACKET_TYPE_VENDOR_SPECIFIC, true, Scope::none, Scope::none}), done.s);
  EXPECT_TRUE(q.wait(done.s));
  EXPECT_EQ(q.ring().processor().ignored_packets(), 1u);
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
