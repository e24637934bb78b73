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

// Number of dispatches for n keys (n a power of two).
inline std::uint32_t bitonic_dispatches(std::uint64_t n) {
  std::uint32_t k = 0;
  while ((std::uint64_t(1) << k) < n) ++k;
  return k * (k + 1) / 2;
}

}  // namespace hsad::kernels
