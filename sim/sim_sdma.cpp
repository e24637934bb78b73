#include "sim_sdma.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "agent/packet_processor.hpp"
#include "l2_cache.hpp"
#include "sim_cache_report.hpp"
#include "sim_config.hpp"
#include "sim_events.hpp"
#include "sim_memory.hpp"

namespace hsad::sim {
namespace {

// ROCr's SDMA opcodes and the sizes of its packets (sdma_registers.h).
enum Op : std::uint32_t {
  kNop = 0, kCopy = 1, kFence = 5, kTrap = 6, kPollRegmem = 8, kAtomic = 10, kConstFill = 11, kTimestamp = 13, kGcr = 17,
};
constexpr std::uint32_t kSubopCopyLinear = 0, kSubopCopyLinearRect = 4;
constexpr std::uint32_t kAtomicAdd64 = 47;

std::atomic<std::uint64_t> engine_copies{0}, engine_bytes{0};

std::uint32_t bits(std::uint32_t word, int lo, int width) { return (word >> lo) & ((width == 32 ? 0 : 1u << width) - 1u); }
std::uint64_t address(const std::uint32_t* dw, int lo) { return dw[lo] | (std::uint64_t(dw[lo + 1]) << 32); }

struct SdmaQueue {
  std::uint64_t id = 0;
  std::uint32_t node = 0;
  const std::uint8_t* ring = nullptr;
  std::uint64_t bytes = 0;
  // What ROCr's BlitSdma reads and writes through the thunk's queue: byte indices.
  std::uint64_t* read_index = nullptr;
  const std::uint64_t* doorbell = nullptr;
  alignas(64) std::atomic<bool> stop{false};
  std::thread engine;
};

// Where a packet's GPU address is in this process; an address no GPU may reach stops the packet
// with a message (the engine would fault).
template <class T = void>
T* at(const SdmaQueue& q, std::uint64_t gpu_address, std::uint64_t bytes) {
  const std::uint64_t host = host_address(gpu_address, bytes);
  if (!host) {
    std::fprintf(stderr, "hsad-sim: SDMA queue %llu: an access of %llu bytes at 0x%llx, which no GPU may reach\n",
                 static_cast<unsigned long long>(q.id), static_cast<unsigned long long>(bytes),
                 static_cast<unsigned long long>(gpu_address));
  }
  return reinterpret_cast<T*>(host);
}

// A poll of memory: the engine waits, as the hardware retries, until the 32-bit word compares.
bool compares(std::uint32_t func, std::uint32_t value, std::uint32_t reference) {
  switch (func) {
    case 0: return true;
    case 1: return value < reference;
    case 2: return value <= reference;
    case 3: return value == reference;
    case 4: return value != reference;
    case 5: return value >= reference;
    case 6: return value > reference;
    default: return true;
  }
}

// Executes the packet at `p` (ROCr pads the ring's end, so a packet never wraps); returns its size
// in bytes, or 0 where it must wait (a poll not yet satisfied) and be looked at again.
std::uint32_t execute(SdmaQueue& q, const std::uint32_t* p) {
  const std::uint32_t op = bits(p[0], 0, 8), sub = bits(p[0], 8, 8);
  switch (op) {
    case kNop: return 4;  // ROCr pads to the ring's end with zeros
    case kCopy: {
      if (sub == kSubopCopyLinear) {
        // gfx9 and later: the count is bytes - 1, in as many bits as the target's engine reads.
        const std::uint64_t bytes = std::uint64_t(bits(p[1], 0, config().target.sdma_copy_count_bits)) + 1;
        const std::uint64_t src = address(p, 3), dst = address(p, 5);
        report_engine_copy(q.node, dst, src, bytes);
        void* to = at(q, dst, bytes);
        const void* from = at(q, src, bytes);
        if (to && from) std::memmove(to, from, bytes);
        engine_copies.fetch_add(1, std::memory_order_relaxed);
        engine_bytes.fetch_add(bytes, std::memory_order_relaxed);
        return 28;
      }
      if (sub == kSubopCopyLinearRect) {
        std::fprintf(stderr, "hsad-sim: SDMA queue %llu: a rectangular copy, which the simulated engine does not do\n",
                     static_cast<unsigned long long>(q.id & 0xffff));
        return 52;
      }
      break;
    }
    case kConstFill: {
      const std::uint64_t dst = address(p, 1);
      const std::uint32_t value = p[3];
      const std::uint64_t bytes = (std::uint64_t(bits(p[4], 0, 22)) + 4) & ~std::uint64_t(3);  // (dwords - 1) * 4
      report_engine_copy(q.node, dst, 0, bytes);  // a fill reads nothing
      if (auto* to = at<unsigned char>(q, dst, bytes)) {
        for (std::uint64_t b = 0; b + 4 <= bytes; b += 4) std::memcpy(to + b, &value, 4);
      }
      return 20;
    }
    case kFence: {
      if (auto* word = at<std::uint32_t>(q, address(p, 1), 4)) __atomic_store_n(word, p[3], __ATOMIC_RELEASE);
      return 16;
    }
    case kTrap:
      // ROCr wrote the event's id to its mailbox with the fence before: the interrupt wakes waiters.
      raise_interrupt();
      return 8;
    case kPollRegmem: {
      // An HDP flush (or any poll of a register rather than memory): nothing to wait for here.
      if (bits(p[0], 26, 1) || !bits(p[0], 31, 1)) return 24;
      const std::uint32_t func = bits(p[0], 28, 3);
      const std::uint32_t* word = at<const std::uint32_t>(q, address(p, 1), 4);
      if (!word) return 24;
      const std::uint32_t value = __atomic_load_n(word, __ATOMIC_ACQUIRE);
      return compares(func, value & p[4], p[3]) ? 24 : 0;
    }
    case kAtomic: {
      const std::uint32_t operation = bits(p[0], 25, 7);
      if (operation == kAtomicAdd64) {
        if (auto* word = at<std::uint64_t>(q, address(p, 1), 8)) __atomic_fetch_add(word, address(p, 3), __ATOMIC_ACQ_REL);
      } else {
        std::fprintf(stderr, "hsad-sim: SDMA queue %llu: atomic operation %u, which the simulated engine does not do\n",
                     static_cast<unsigned long long>(q.id & 0xffff), operation);
      }
      return 32;
    }
    case kTimestamp: {
      if (auto* word = at<std::uint64_t>(q, address(p, 1), 8)) __atomic_store_n(word, agent::now_ns(), __ATOMIC_RELEASE);
      return 12;
    }
    case kGcr: {
      // gfx10's cache control, which ROCr puts around each copy: the engine's GPU's L2 written back
      // (GL2_WB, bit 31 of the third dword) and invalidated (GL2_INV, bit 30).
      if (isa::L2Cache* l2 = l2_of(q.node)) {
        if (bits(p[2], 31, 1)) l2->write_back();
        if (bits(p[2], 30, 1)) l2->invalidate();
      }
      return 20;
    }
    default: break;
  }
  std::fprintf(stderr, "hsad-sim: SDMA queue %llu: packet 0x%08x (op %u, sub-op %u) unknown to the simulated engine: skipped\n",
               static_cast<unsigned long long>(q.id & 0xffff), p[0], op, sub);
  return 4;
}

void run(SdmaQueue& q) {
  auto idle_since = std::chrono::steady_clock::now();
  auto polling_since = idle_since;
  bool polling = false;  // the packet at the read index is a poll not yet satisfied
  alignas(8) std::uint32_t packet[16];
  while (!q.stop.load(std::memory_order_acquire)) {
    const std::uint64_t target = __atomic_load_n(q.doorbell, __ATOMIC_ACQUIRE);
    std::uint64_t read = __atomic_load_n(q.read_index, __ATOMIC_RELAXED);
    bool waiting = false;
    while (read < target && !q.stop.load(std::memory_order_relaxed)) {
      const std::uint64_t at = read & (q.bytes - 1);
      const std::uint64_t room = q.bytes - at;
      std::memcpy(packet, q.ring + at, std::min<std::uint64_t>(sizeof packet, room));
      const std::uint32_t size = execute(q, packet);
      if (size == 0) {  // a poll not yet satisfied: look again shortly
        if (!polling) polling_since = std::chrono::steady_clock::now();
        polling = waiting = true;
        break;
      }
      polling = false;
      read += size;
      __atomic_store_n(q.read_index, read, __ATOMIC_RELEASE);
      idle_since = std::chrono::steady_clock::now();
    }
    if (waiting) {
      // A copy waits for a kernel: briefly at full speed, then in 20 us sleeps, so that the engine
      // does not take a core from the simulated GPU's work-groups it waits for.
      if (std::chrono::steady_clock::now() - polling_since < std::chrono::microseconds(50)) std::this_thread::yield();
      else std::this_thread::sleep_for(std::chrono::microseconds(20));
      continue;
    }
    // Copies of one submission arrive microseconds apart: stay awake that long, then look every
    // 100 us, and after 2 ms without work every 500 us (ROCr stores the doorbell without waking
    // anyone, and an engine looking often takes time from the interpreter's threads).
    const auto idle = std::chrono::steady_clock::now() - idle_since;
    if (idle < std::chrono::microseconds(50)) std::this_thread::yield();
    else if (idle < std::chrono::milliseconds(2)) std::this_thread::sleep_for(std::chrono::microseconds(100));
    else std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}

std::mutex queues_mutex;
std::map<std::uint64_t, std::unique_ptr<SdmaQueue>>& queues() {
  static auto* m = new std::map<std::uint64_t, std::unique_ptr<SdmaQueue>>();  // lives to exit
  return *m;
}
std::uint64_t next_id = 1;

}  // namespace

std::uint64_t create_sdma_queue(std::uint32_t node, void* ring, std::uint64_t bytes, std::uint64_t* read_index,
                                const std::uint64_t* doorbell) {
  if (!ring || !read_index || !doorbell || bytes == 0 || (bytes & (bytes - 1)) != 0) return 0;
  auto q = std::make_unique<SdmaQueue>();
  q->node = node;
  q->ring = static_cast<const std::uint8_t*>(ring);
  q->bytes = bytes;
  q->read_index = read_index;
  q->doorbell = doorbell;
  SdmaQueue& queue = *q;
  {
    std::lock_guard<std::mutex> lock(queues_mutex);
    q->id = (std::uint64_t(1) << 62) | next_id++;
    queues()[q->id] = std::move(q);
  }
  queue.engine = std::thread([&queue] { run(queue); });
  return queue.id;
}

std::uint64_t sdma_copies() { return engine_copies.load(std::memory_order_relaxed); }
std::uint64_t sdma_bytes() { return engine_bytes.load(std::memory_order_relaxed); }

bool destroy_sdma_queue(std::uint64_t id) {
  std::unique_ptr<SdmaQueue> q;
  {
    std::lock_guard<std::mutex> lock(queues_mutex);
    auto it = queues().find(id);
    if (it == queues().end()) return false;
    q = std::move(it->second);
    queues().erase(it);
  }
  q->stop.store(true, std::memory_order_release);
  q->engine.join();
  return true;
}

}  // namespace hsad::sim
