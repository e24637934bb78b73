// One step of a bitonic sort: work-item `i` compares and swaps one pair. The sort of n = 2^k keys
// is k(k+1)/2 steps (120 for 32768 keys), each a dispatch of n/2 work-items.
#pragma once

#include <cstdint>

#include "portability.hpp"

namespace hsad::kernels {

struct BitonicArgs {
  std::uint32_t* keys;
  std::uint32_t stage;      // 0-based: blocks of 2^(stage+1) keys become sorted
  std::uint32_t pass;       // 0..stage: compare distance 2^(stage - pass)
  std::uint32_t ascending;  // direction of the whole sort
};

// The pair that work-item i of one step compares, and the direction it sorts in.
struct BitonicPair {
  std::uint32_t left, right;
  bool up;
};

HSAD_HD BitonicPair bitonic_pair(std::uint32_t stage, std::uint32_t pass, std::uint32_t ascending, std::uint32_t i) {
  // The distance is a power of two: shifts and masks instead of division.
  const std::uint32_t shift = stage - pass;
  const std::uint32_t distance = 1u << shift;
  const std::uint32_t left = (i & (distance - 1)) + ((i >> shift) << (shift + 1));
  // Blocks of 2^(stage+1) keys alternate direction so that the next stage merges bitonic runs.
  const bool up = ((i >> stage) & 1u) ? !ascending : ascending;
  return {left, left + distance, up};
}

// Branch-free compare-and-swap: random keys make a branch a coin toss on a CPU, and a
// divergence on a GPU.
HSAD_HD void bitonic_order(std::uint32_t& left, std::uint32_t& right, bool up) {
  const std::uint32_t a = left, b = right;
  const std::uint32_t lo = a < b ? a : b;
  const std::uint32_t hi = a < b ? b : a;
  left = up ? lo : hi;
  right = up ? hi : lo;
}

HSAD_HD void bitonic_step_item(std::uint32_t* keys, std::uint32_t stage, std::uint32_t pass,
                               std::uint32_t ascending, std::uint32_t i) {
  const BitonicPair p = bitonic_pair(stage, pass, ascending, i);
  bitonic_order(keys[p.left], keys[p.right], p.up);
}

// The LDS algorithm (bitonic-bench --algo lds): the same network, but every pass whose distance is
// below a chunk of 2^chunk_log2 keys runs inside one dispatch, a work-group per chunk, with the
// chunk in LDS (shared memory) and a barrier between passes. A sort is one bitonic_local of stages
// 0 to chunk_log2 - 1, then for each later stage its long passes as bitonic_step dispatches and
// its short ones as one bitonic_local: 10 dispatches for 32768 keys instead of 120.
constexpr std::uint32_t kBitonicLocalKeysLog2 = 12;  // 4096 keys: 16 KiB of LDS per work-group
constexpr std::uint32_t kBitonicLocalItems = 512;    // work-items per group (the kernels' launch bounds)

struct BitonicLocalArgs {
  std::uint32_t* keys;
  std::uint32_t first_stage, last_stage;  // 0 and chunk_log2 - 1, or one later stage twice
  std::uint32_t ascending;
  std::uint32_t chunk_log2;  // keys per work-group: 2^chunk_log2, at most 2^kBitonicLocalKeysLog2
};

// The first pass of `stage` whose distance 2^(stage - pass) is below a chunk of 2^chunk_log2 keys.
HSAD_HD std::uint32_t bitonic_local_first_pass(std::uint32_t stage, std::uint32_t chunk_log2) {
  return stage >= chunk_log2 ? stage + 1 - chunk_log2 : 0;
}

// The short passes of stages [first_stage, last_stage] over chunk `group`, held at `local` (LDS
// on a GPU, the keys themselves on the host), by item t of `items`; `barrier` separates the
// passes (__syncthreads on a GPU, nothing where one item does all). Pair numbers are the whole
// sort's, so the directions match bitonic_step's.
template <class Barrier>
HSAD_HD void bitonic_local_item(std::uint32_t* local, const BitonicLocalArgs& a, std::uint32_t group, std::uint32_t t,
                                std::uint32_t items, Barrier barrier) {
  const std::uint32_t pairs = 1u << (a.chunk_log2 - 1);
  const std::uint32_t first_pair = group << (a.chunk_log2 - 1), offset = group << a.chunk_log2;
  for (std::uint32_t stage = a.first_stage; stage <= a.last_stage; ++stage) {
    for (std::uint32_t pass = bitonic_local_first_pass(stage, a.chunk_log2); pass <= stage; ++pass) {
      for (std::uint32_t p = t; p < pairs; p += items) {
        const BitonicPair q = bitonic_pair(stage, pass, a.ascending, first_pair + p);
        bitonic_order(local[q.left - offset], local[q.right - offset], q.up);
      }
      barrier();
    }
  }
}

// Number of dispatches for n keys (n a power of two).
inline std::uint32_t bitonic_dispatches(std::uint64_t n) {
  std::uint32_t k = 0;
  while ((std::uint64_t(1) << k) < n) ++k;
  return k * (k + 1) / 2;
}

// The LDS algorithm's chunk for n keys (n a power of two, at least 2): 2^12, or n where smaller.
inline std::uint32_t bitonic_local_chunk_log2(std::uint64_t n) {
  std::uint32_t k = 0;
  while ((std::uint64_t(1) << k) < n) ++k;
  return k < kBitonicLocalKeysLog2 ? k : kBitonicLocalKeysLog2;
}

// Its dispatches: one local sort, then per later stage s its long passes and one local merge.
inline std::uint32_t bitonic_lds_dispatches(std::uint64_t n, std::uint32_t chunk_log2) {
  std::uint32_t k = 0;
  while ((std::uint64_t(1) << k) < n) ++k;
  std::uint32_t d = 1;
  for (std::uint32_t s = chunk_log2; s < k; ++s) d += s - chunk_log2 + 2;
  return d;
}

}  // namespace hsad::kernels
