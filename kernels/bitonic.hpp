// One step of a bitonic sort: work-item `i` compares and swaps one pair. The sort of n = 2^k keys
// is k(k+1)/2 steps (120 for 32768 keys), each a dispatch of n/2 work-items. Every kernel takes n,
// so that the items of a grid rounded up to whole work-groups past the sort's end do nothing.
#pragma once

#include <cstdint>

#include "portability.hpp"

namespace hsad::kernels {

struct BitonicArgs {
  std::uint32_t* keys;
  std::uint32_t stage;      // 0-based: blocks of 2^(stage+1) keys become sorted
  std::uint32_t pass;       // 0..stage: compare distance 2^(stage - pass)
  std::uint32_t ascending;  // direction of the whole sort
  std::uint32_t n;          // keys: items n/2 and beyond do nothing
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
// 0 to chunk_log2 - 1, then for each later stage its long passes, up to three per bitonic_long
// dispatch, and its short ones as one bitonic_local: 10 dispatches for 32768 keys in 2048-key
// chunks instead of 120.
constexpr std::uint32_t kBitonicLocalKeysLog2 = 12;  // the largest chunk: 4096 keys, 16 KiB of LDS
constexpr std::uint32_t kBitonicLocalItems = 1024;  // work-items per group (the kernel's launch bounds):
                                                    // two pairs each in a 4096-key chunk

struct BitonicLocalArgs {
  std::uint32_t* keys;
  std::uint32_t first_stage, last_stage;  // 0 and chunk_log2 - 1, or one later stage twice
  std::uint32_t ascending;
  std::uint32_t chunk_log2;  // keys per work-group: 2^chunk_log2, at most 2^kBitonicLocalKeysLog2
  std::uint32_t n;           // keys: work-groups n / 2^chunk_log2 and beyond do nothing
};

// The LDS algorithm's long passes: up to three consecutive passes of one stage in one dispatch.
// Item i holds the 2^PASSES keys that those passes compare among themselves (base + j * dmin, dmin
// the last pass's distance) in registers and runs the passes there: 8 keys for 3 passes, n / 8
// items. All of them lie in one block of 2^(stage+1) keys, so they share one direction.
struct BitonicLongArgs {
  std::uint32_t* keys;
  std::uint32_t stage, first_pass, passes;  // passes 1 to 3
  std::uint32_t ascending;
  std::uint32_t n;  // keys: items n / 2^passes and beyond do nothing
};
constexpr std::uint32_t kBitonicLongPassesMax = 3;

template <int PASSES>
HSAD_HD void bitonic_long_item(const BitonicLongArgs& a, std::uint32_t i) {
  constexpr std::uint32_t K = 1u << PASSES;
  const std::uint32_t last_shift = a.stage - (a.first_pass + PASSES - 1);  // log2 of the last distance
  const std::uint32_t low = i & ((1u << last_shift) - 1);
  const std::uint32_t base = ((i >> last_shift) << (last_shift + PASSES)) + low;
  const bool up = ((base >> (a.stage + 1)) & 1u) ? !a.ascending : a.ascending;
  std::uint32_t v[K];
  HSAD_UNROLL
  for (std::uint32_t j = 0; j < K; ++j) v[j] = a.keys[base + (j << last_shift)];
  HSAD_UNROLL
  for (std::uint32_t half = K / 2; half >= 1; half /= 2) {  // distance half << last_shift
    HSAD_UNROLL
    for (std::uint32_t j = 0; j < K; ++j) {
      if (j & half) continue;
      bitonic_order(v[j], v[j + half], up);
    }
  }
  HSAD_UNROLL
  for (std::uint32_t j = 0; j < K; ++j) a.keys[base + (j << last_shift)] = v[j];
}

// The first pass of `stage` whose distance 2^(stage - pass) is below a chunk of 2^chunk_log2 keys.
HSAD_HD std::uint32_t bitonic_local_first_pass(std::uint32_t stage, std::uint32_t chunk_log2) {
  return stage >= chunk_log2 ? stage + 1 - chunk_log2 : 0;
}

// The short passes of stages [first_stage, last_stage] over chunk `group`, held at `local` (LDS
// on a GPU), by item t of `items`; `barrier` separates the passes (__syncthreads). An item takes
// pairs t, t + items, ..., PER at a time, and loads all PER pairs' keys before it stores any: a
// pass's pairs are disjoint, so the loads need not wait for the stores before them (on the H100,
// one pair at a time made a pass of a 4096-key chunk cost 900 cycles). Pair numbers are the whole
// sort's, so the directions match bitonic_step's.
template <int PER, class Barrier>
HSAD_HD void bitonic_local_item(std::uint32_t* local, const BitonicLocalArgs& a, std::uint32_t group, std::uint32_t t,
                                std::uint32_t items, Barrier barrier) {
  const std::uint32_t pairs = 1u << (a.chunk_log2 - 1);
  const std::uint32_t first_pair = group << (a.chunk_log2 - 1), offset = group << a.chunk_log2;
  for (std::uint32_t stage = a.first_stage; stage <= a.last_stage; ++stage) {
    for (std::uint32_t pass = bitonic_local_first_pass(stage, a.chunk_log2); pass <= stage; ++pass) {
      for (std::uint32_t base = t; base < pairs; base += PER * items) {
        BitonicPair q[PER];
        std::uint32_t left[PER], right[PER];
        HSAD_UNROLL
        for (int k = 0; k < PER; ++k) {
          q[k] = bitonic_pair(stage, pass, a.ascending, first_pair + base + std::uint32_t(k) * items);
          left[k] = local[q[k].left - offset];
          right[k] = local[q[k].right - offset];
        }
        HSAD_UNROLL
        for (int k = 0; k < PER; ++k) {
          bitonic_order(left[k], right[k], q[k].up);
          local[q[k].left - offset] = left[k];
          local[q[k].right - offset] = right[k];
        }
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

// The LDS algorithm's chunk for n keys (n a power of two, at least 2): 2^want where want is given
// (capped at n). Unless told: the largest chunk, up to 4096 keys, that still gives 16 work-groups,
// and never less than 1024 keys (or all n where fewer). A pass costs a work-group time in
// proportion to its chunk while every compute unit without a chunk idles: on the H100 (132 SMs)
// 2048-key chunks were fastest at 32768 keys and 4096 at 2^20 (docs/results.md).
inline std::uint32_t bitonic_local_chunk_log2(std::uint64_t n, std::uint32_t want = 0) {
  std::uint32_t k = 0;
  while ((std::uint64_t(1) << k) < n) ++k;
  if (want) return k < want ? k : want;
  std::uint32_t c = k > 4 ? k - 4 : 0;   // 16 work-groups
  if (c < 10) c = k < 10 ? k : 10;      // but chunks of at least 1024 keys
  return c < kBitonicLocalKeysLog2 ? c : kBitonicLocalKeysLog2;
}

// Its dispatches: one local sort, then per later stage s its s - chunk_log2 + 1 long passes, three
// to a dispatch, and one local merge.
inline std::uint32_t bitonic_lds_dispatches(std::uint64_t n, std::uint32_t chunk_log2) {
  std::uint32_t k = 0;
  while ((std::uint64_t(1) << k) < n) ++k;
  std::uint32_t d = 1;
  for (std::uint32_t s = chunk_log2; s < k; ++s) {
    d += (s - chunk_log2 + 1 + kBitonicLongPassesMax - 1) / kBitonicLongPassesMax + 1;
  }
  return d;
}

}  // namespace hsad::kernels
