// The control kernel of a device-run loop on an AQL queue (Batch::loop_begin, loop_while),
// written once for the GPU builds and the cpu agent's host build.
//
// The loop runs in a ring of its own (the queue's loop ring), which only this kernel writes
// while a loop runs: the queue's own ring holds a dispatch of it that writes the loop's first
// packets there, then a barrier-AND on the loop's done signal, so what the host submits behind
// the loop waits in the queue's ring and never lands between two iterations. Each iteration is
// the body's dispatch packets (encoded once by the host, kernarg blocks included) and one
// dispatch of this kernel; where the body is larger than the ring allows at once, it goes out
// in chunks, each followed by this kernel, which writes the next chunk. At the end of an
// iteration it reads the condition: non-zero and under the guard, it writes the next
// iteration; otherwise it writes the barrier-AND packet that decrements the done signal. With
// check_every k, a round of k iterations goes out before the condition is read.
//
// Back-pressure: this kernel is the last packet in the loop ring when it runs (every packet is
// written by it, and the barrier bit held it until the packets before it completed), so at
// least size - 1 slots are free; a chunk plus the next control packet takes at most size - 2.
// It still waits for the read index before writing, as any producer must.
#pragma once

#include <cstdint>

#include "portability.hpp"

namespace hsad::loop {

// What the control kernel reads and writes, in memory both the host and the device reach (the
// queue's kernarg pool): one per loop per submission. Where the queue has a working area in the
// device's own memory (`working`), the first launch copies the program there, and the body's,
// control and done packets where they fit, and every later launch reads and writes that copy:
// on an AMD GPU the kernarg pool is fine-grained host memory, so each iteration would otherwise
// read the program (a chain of dependent loads) and the body across PCIe. The result goes back
// to the host's program when the loop ends.
struct Program {
  // The loop ring.
  std::uint64_t ring_base = 0;    // its packets
  std::uint64_t ring_mask = 0;    // packets - 1
  std::uint64_t write_index = 0;  // address of its 64-bit write index
  std::uint64_t read_index = 0;   // address of its 64-bit read index
  std::uint64_t doorbell = 0;     // its doorbell signal (an hsa_signal_t handle)
  // The loop.
  std::uint64_t condition = 0;       // address of the 32-bit value the body writes
  std::uint64_t body = 0;            // body_packets packets of 64 bytes, each with its header word
  std::uint64_t control_packet = 0;  // this kernel's dispatch packet as the loop ring takes it
  std::uint64_t done_packet = 0;     // the barrier-AND packet that ends the loop
  std::uint32_t body_packets = 0;
  std::uint32_t chunk = 0;           // body packets written at once, at most the ring's size - 2
  std::uint32_t max_iterations = 0;
  // Written by the control kernel; the host reads them once the done signal fired.
  std::uint32_t iterations = 0;
  std::uint32_t next = 0;    // the packet of the round the next chunk starts at
  std::uint32_t status = 0;  // Status
  // Iterations per round (Batch::loop_while's check_every): a round is the body this many times
  // over, and the condition is read only at a round's end.
  std::uint32_t check_every = 1;
  // The working copy: its address (0: none, the kernels use this program), and how many packets
  // it holds after the program (0: only the program; else the body's, the control and the done
  // packet). In the copy, `host` is the program it was taken from.
  std::uint32_t working_packets = 0;
  std::uint64_t working = 0;
  std::uint64_t host = 0;
};

// Where a working copy's packets start: after the program, at a packet's alignment.
constexpr std::uint64_t kWorkingProgramBytes = (sizeof(Program) + 63) / 64 * 64;

enum Status : std::uint32_t { running = 0, ended = 1, guard_reached = 2 };

// The control kernel's kernarg segment.
struct ControlArgs {
  std::uint64_t program = 0;  // Program*
  std::uint32_t first = 0;    // 1: the launch from the queue's ring (reset, write the first chunk)
  std::uint32_t pad = 0;
};

constexpr std::uint32_t kPacketWords = 16;  // 64 bytes

// Ops is what differs between the builds: atomics on the ring's indices, the header's release
// store, and ringing the doorbell.
template <class Ops>
HSAD_HD void write_packets(Program& p, const std::uint32_t* const* packets, std::uint32_t count) {
  const std::uint64_t first = Ops::add_write_index(p.write_index, count);
  while (first + count - Ops::load_read_index(p.read_index) > p.ring_mask + 1) Ops::pause();
  for (std::uint32_t i = 0; i < count; ++i) {
    auto* slot = reinterpret_cast<std::uint32_t*>(p.ring_base + ((first + i) & p.ring_mask) * 64);
    for (std::uint32_t w = 1; w < kPacketWords; ++w) slot[w] = packets[i][w];
  }
  // Headers last, in order, each with release: the processor never sees a half-written packet.
  for (std::uint32_t i = 0; i < count; ++i) {
    auto* slot = reinterpret_cast<std::uint32_t*>(p.ring_base + ((first + i) & p.ring_mask) * 64);
    Ops::publish(slot, packets[i][0]);
  }
  Ops::ring_doorbell(p.doorbell, first + count - 1);
}

// Packets in a round: the body check_every times over.
HSAD_HD std::uint32_t round_packets(const Program& p) { return p.body_packets * p.check_every; }

// The first launch: the program (and the packets, where the working area holds them) copied to
// the working area, which every later launch of this loop reads; the host's program otherwise.
HSAD_HD Program& take_working_copy(Program& host) {
  if (!host.working) return host;
  auto& w = *reinterpret_cast<Program*>(host.working);
  w = host;
  w.host = reinterpret_cast<std::uint64_t>(&host);
  if (host.working_packets) {
    auto* to = reinterpret_cast<std::uint32_t*>(host.working + kWorkingProgramBytes);
    const auto copy = [&](std::uint64_t from, std::uint32_t packets) {
      const auto* src = reinterpret_cast<const std::uint32_t*>(from);
      for (std::uint32_t i = 0; i < packets * kPacketWords; ++i) *to++ = src[i];
    };
    w.body = host.working + kWorkingProgramBytes;
    copy(host.body, host.body_packets);
    w.control_packet = w.body + std::uint64_t(host.body_packets) * 64;
    copy(host.control_packet, 1);
    w.done_packet = w.control_packet + 64;
    copy(host.done_packet, 1);
  }
  return w;
}

// Writes the round's packets from p.next (at most a chunk) and the control packet after them.
// Every field of the program is updated before the first packet goes out: the packets may run,
// and the next control kernel read the program, before this kernel has returned.
template <class Ops>
HSAD_HD void write_chunk(Program& p) {
  const std::uint32_t total = round_packets(p);
  const std::uint32_t from = p.next;
  const std::uint32_t n = total - from < p.chunk ? total - from : p.chunk;
  p.next = from + n;
  // In pieces of 16 packets: a fixed array, no allocation on either build.
  constexpr std::uint32_t kPiece = 16;
  const std::uint32_t* list[kPiece + 1];
  std::uint32_t done = 0;
  while (done < n) {
    const std::uint32_t take = n - done < kPiece ? n - done : kPiece;
    for (std::uint32_t i = 0; i < take; ++i) {
      list[i] = reinterpret_cast<const std::uint32_t*>(p.body + std::uint64_t((from + done + i) % p.body_packets) * 64);
    }
    std::uint32_t count = take;
    if (done + take == n) list[count++] = reinterpret_cast<const std::uint32_t*>(p.control_packet);
    write_packets<Ops>(p, list, count);
    done += take;
  }
}

template <class Ops>
HSAD_HD void control(Program& program, bool first) {
  Program& p = first ? take_working_copy(program) : program;
  if (first) {
    p.iterations = 0;
    p.next = 0;
    p.status = running;
    write_chunk<Ops>(p);
    return;
  }
  if (p.next < round_packets(p)) {  // the rest of this round
    write_chunk<Ops>(p);
    return;
  }
  p.iterations += p.check_every;
  const std::uint32_t value = Ops::load_condition(p.condition);
  if (value != 0 && p.iterations < p.max_iterations) {
    p.next = 0;
    write_chunk<Ops>(p);
    return;
  }
  p.status = value == 0 ? ended : guard_reached;
  if (p.host) {  // a working copy: the result to the host's program, before the done packet goes out
    auto& h = *reinterpret_cast<Program*>(p.host);
    h.iterations = p.iterations;
    h.status = p.status;
  }
  const std::uint32_t* done[1] = {reinterpret_cast<const std::uint32_t*>(p.done_packet)};
  write_packets<Ops>(p, done, 1);
}

}  // namespace hsad::loop
