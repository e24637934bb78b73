// The loop control kernel's program (kernels/loop_control.hpp) on its own, with a ring in plain
// memory and no processor: the tests play the command processor, running each packet the kernel
// wrote (a body packet counts; the control packet calls the kernel again). What they pin: rounds
// of check_every bodies between two reads of the condition, and the working copy: after the first
// launch the kernel reads and writes only the copy, and the result goes back to the host's program.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "loop_control.hpp"

namespace {
using hsad::loop::Program;

struct Fake {
  static inline std::uint64_t rings = 0;
  static std::uint64_t add_write_index(std::uint64_t address, std::uint64_t n) {
    auto* p = reinterpret_cast<std::uint64_t*>(address);
    const std::uint64_t old = *p;
    *p += n;
    return old;
  }
  static std::uint64_t load_read_index(std::uint64_t address) { return *reinterpret_cast<std::uint64_t*>(address); }
  static void pause() {}
  static void publish(std::uint32_t* slot, std::uint32_t word) { *slot = word; }
  static void ring_doorbell(std::uint64_t, std::uint64_t) { ++rings; }
  static std::uint32_t load_condition(std::uint64_t address) { return *reinterpret_cast<std::uint32_t*>(address); }
};

// A loop whose body is `body` packets, tagged in word 1 with their index; the condition clears
// after `needed` bodies have run (the test's processor counts them).
struct Loop {
  std::uint32_t body;
  std::vector<std::uint32_t> packets;  // body, control, done: 16 words each
  std::vector<std::uint32_t> ring;
  std::uint64_t write = 0, read = 0;
  std::uint32_t condition = 1;
  alignas(64) unsigned char working[hsad::loop::kWorkingProgramBytes + 64 * 64] = {};
  Program host;

  Loop(std::uint32_t body_packets, std::uint32_t ring_packets, std::uint32_t check_every, std::uint32_t max, bool copy)
      : body(body_packets), packets((body_packets + 2) * 16, 0), ring(ring_packets * 16, 0) {
    for (std::uint32_t i = 0; i < body + 2; ++i) {
      packets[i * 16] = 0x1000 + i;  // the header: which packet
      packets[i * 16 + 1] = i;
    }
    host.ring_base = reinterpret_cast<std::uint64_t>(ring.data());
    host.ring_mask = ring_packets - 1;
    host.write_index = reinterpret_cast<std::uint64_t>(&write);
    host.read_index = reinterpret_cast<std::uint64_t>(&read);
    host.condition = reinterpret_cast<std::uint64_t>(&condition);
    host.body = reinterpret_cast<std::uint64_t>(packets.data());
    host.control_packet = host.body + std::uint64_t(body) * 64;
    host.done_packet = host.control_packet + 64;
    host.body_packets = body;
    host.chunk = ring_packets - 2;
    host.max_iterations = max;
    host.check_every = check_every;
    if (copy) {
      host.working = reinterpret_cast<std::uint64_t>(working);
      host.working_packets = body + 2;
    }
  }
  Program& loop_program() { return host.working ? *reinterpret_cast<Program*>(working) : host; }

  // Runs the loop to its done packet: returns the bodies run. After the first launch, the host's
  // program is scribbled over where `poison` (a working copy must not read it again).
  std::uint32_t run(std::uint32_t needed, bool poison) {
    hsad::loop::control<Fake>(host, true);
    if (poison) {
      host.body = host.control_packet = host.done_packet = host.condition = 0;
      std::memset(packets.data(), 0, packets.size() * 4);
    }
    std::uint32_t bodies = 0;
    for (;;) {
      EXPECT_LT(read, write) << "the kernel left the ring empty";
      if (read >= write) return bodies;
      const std::uint32_t* p = &ring[(read & host.ring_mask) * 16];
      const std::uint32_t which = p[1];
      const bool done = p[0] == 0x1000 + body + 1;
      ++read;
      if (done) return bodies;
      if (which == body) {
        hsad::loop::control<Fake>(loop_program(), false);
      } else if (which == body - 1) {  // the body's last packet: an iteration ended
        ++bodies;
        if (bodies >= needed) condition = 0;
      }
    }
  }
};
}  // namespace

TEST(LoopControl, ChecksTheConditionOncePerRoundOfCheckEveryBodies) {
  for (std::uint32_t k : {1u, 3u, 8u}) {
    SCOPED_TRACE("k = " + std::to_string(k));
    Loop l(3, 64, k, 96, false);
    const std::uint32_t bodies = l.run(10, false);
    const std::uint32_t rounds = (10 + k - 1) / k;
    EXPECT_EQ(bodies, rounds * k);
    EXPECT_EQ(l.host.iterations, rounds * k);
    EXPECT_EQ(l.host.status, hsad::loop::ended);
  }
}

TEST(LoopControl, ARoundLargerThanTheRingGoesOutInChunksAcrossBodies) {
  Loop l(5, 8, 7, 70, false);  // 35 packets a round, 6 at a time
  EXPECT_EQ(l.run(9, false), 14u);
  EXPECT_EQ(l.host.iterations, 14u);
}

TEST(LoopControl, TheGuardIsReadWithTheConditionAfterWholeRounds) {
  Loop l(2, 16, 4, 12, false);
  EXPECT_EQ(l.run(1000, false), 12u);
  EXPECT_EQ(l.host.iterations, 12u);
  EXPECT_EQ(l.host.status, hsad::loop::guard_reached);
}

TEST(LoopControl, AfterTheFirstLaunchOnlyTheWorkingCopyIsReadAndTheResultComesBack) {
  for (std::uint32_t k : {1u, 4u}) {
    SCOPED_TRACE("k = " + std::to_string(k));
    Loop l(3, 16, k, 400, true);
    // The host's program and packets scribbled over after the first launch: the loop still runs
    // from the copy, and its count lands in the host's program.
    const std::uint32_t bodies = l.run(10, true);
    EXPECT_EQ(bodies, (10 + k - 1) / k * k);
    EXPECT_EQ(l.host.iterations, bodies);
    EXPECT_EQ(l.host.status, hsad::loop::ended);
    const Program& w = l.loop_program();
    EXPECT_EQ(w.host, reinterpret_cast<std::uint64_t>(&l.host));
    EXPECT_EQ(w.body, reinterpret_cast<std::uint64_t>(l.working) + hsad::loop::kWorkingProgramBytes);
  }
  // Without room for the packets (working_packets 0) only the program moves.
  Loop l(3, 16, 2, 400, true);
  l.host.working_packets = 0;
  hsad::loop::control<Fake>(l.host, true);
  EXPECT_EQ(l.loop_program().body, l.host.body);
}
