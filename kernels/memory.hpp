// The memory lessons of the reference notes as kernels (memory-bench): how the way work-items
// walk memory decides a kernel's speed.
//  - Row and column sums of a row-major float matrix: an item per row reads with a row's stride
//    between neighbouring items (nothing to coalesce), an item per column reads neighbouring
//    addresses, and a work-group per row reads a row's neighbouring addresses and adds them in LDS.
//  - yAx, y^T A x in double: an item per row against a work-group per row (the notes' "wavefront
//    per row"), each followed by one work-group that adds the partial sums.
//  - A reduction of `width` words per site out of a larger record: staged (pack the words into a
//    buffer, then reduce the buffer: the data crosses memory three times) against fused (reduce
//    straight from the records: once). The reduce kernel is the same; only its input differs.
// Every reduction is deterministic: partial sums go to memory and one work-group adds them, in an
// order fixed by the launch shape (no atomics, so no run-to-run difference).
#pragma once

#include <cstddef>
#include <cstdint>

#include "portability.hpp"

namespace hsad::kernels {

// The largest work-group the LDS kernels (and memory-bench's --sweep-block) take.
constexpr std::uint32_t kMemoryMaxGroup = 1024;

struct MatrixSumArgs {
  const float* a;  // rows x cols, row-major
  float* sums;     // rows (row sums) or cols (column sums)
  std::uint32_t rows, cols;
};

struct YaxArgs {
  const double* y;   // rows
  const double* a;   // rows x cols, row-major
  const double* x;   // cols
  double* partials;  // yax_rows: one per work-group; yax_groups: one per row
  std::uint32_t rows, cols;
};

// A record of `stride` doubles per site; the words [base, base + width) of every site.
struct PackArgs {
  const double* src;
  double* dst;  // sites x width
  std::uint32_t sites, base, stride, width;
};

struct ReduceArgs {
  const double* src;
  double* partials;  // one row of `width` sums per work-group
  std::uint32_t sites, base, stride, width;
  // Sites one pass of the whole grid covers: grid items / width. The grid is a whole number of
  // `width`s, so every item adds the same word of the sites it visits.
  std::uint32_t step;
};

struct SumPartialsArgs {
  const double* partials;  // count rows of width
  double* out;             // width
  std::uint32_t count, width;
};

// --- Row and column sums (float) ---

// The notes' naive kernels, kept as they are: one running sum per item.
HSAD_HD float row_sum_item(const MatrixSumArgs& a, std::uint32_t row) {
  const float* r = a.a + std::size_t(row) * a.cols;
  float sum = 0.0f;
  for (std::uint32_t j = 0; j < a.cols; ++j) sum += r[j];
  return sum;
}

HSAD_HD float column_sum_item(const MatrixSumArgs& a, std::uint32_t col) {
  float sum = 0.0f;
  for (std::uint32_t i = 0; i < a.rows; ++i) sum += a.a[std::size_t(i) * a.cols + col];
  return sum;
}

// One item's share of a strided sum (DOT: of products with q): elements t, t + n, t + 2n, ... below
// count, element j being p[j * stride] (and q[j]). Four running sums, so that four loads are in
// flight per item rather than one after another; each is indexed by a constant once unrolled (a
// runtime index would put them in local memory). Inlined, a stride of 1 costs nothing.
template <bool DOT, class T>
HSAD_HD T strided_sum(const T* HSAD_RESTRICT p, const T* HSAD_RESTRICT q, std::uint32_t count, std::uint32_t t,
                      std::uint32_t n, std::uint32_t stride = 1) {
  T s[4] = {T(0), T(0), T(0), T(0)};
  std::uint32_t j = t;
  for (; j + 3 * n < count; j += 4 * n) {
    HSAD_UNROLL
    for (int u = 0; u < 4; ++u) {
      const std::uint32_t e = j + u * n;
      s[u] += DOT ? p[std::size_t(e) * stride] * q[e] : p[std::size_t(e) * stride];
    }
  }
  for (; j < count; j += n) s[0] += DOT ? p[std::size_t(j) * stride] * q[j] : p[std::size_t(j) * stride];
  return (s[0] + s[1]) + (s[2] + s[3]);
}

// A work-group's tree over LDS: values[0] ends up holding the sum of values[0, n), for any n
// (the first step folds the part above the largest power of two below n). The host build runs
// the same steps item after item, so both add in the same order.
HSAD_HD std::uint32_t group_sum_first_half(std::uint32_t n) {
  std::uint32_t half = 1;
  while (half * 2 < n) half *= 2;
  return n > 1 ? half : 0;
}

template <class T>
HSAD_HD void group_sum_step(T* values, std::uint32_t t, std::uint32_t n, std::uint32_t half) {
  if (t < half && t + half < n) values[t] += values[t + half];
}

// --- yAx (double) ---

HSAD_HD double yax_row_item(const YaxArgs& a, std::uint32_t row) {
  const double* r = a.a + std::size_t(row) * a.cols;
  double sum = 0.0;
  for (std::uint32_t j = 0; j < a.cols; ++j) sum += r[j] * a.x[j];
  return a.y[row] * sum;
}

// --- Staged and fused reductions (double) ---

// 32-bit division (sites x width < 2^32): 64-bit division is a long instruction sequence on GPUs.
HSAD_HD void pack_item(const PackArgs& a, std::uint64_t i) {
  if (i >= std::uint64_t(a.sites) * a.width) return;
  const std::uint32_t site = std::uint32_t(i) / a.width, word = std::uint32_t(i) % a.width;
  a.dst[i] = a.src[std::size_t(site) * a.stride + a.base + word];
}

// Item g of the grid: word g % width of the sites g / width, g / width + step, ...
HSAD_HD double reduce_item(const ReduceArgs& a, std::uint32_t g) {
  const std::uint32_t word = g % a.width;
  const double* p = a.src + a.base + word;
  double s[4] = {0, 0, 0, 0};
  std::uint64_t site = g / a.width;  // a grid is below 2^32 items
  const std::uint64_t step = a.step;
  for (; site + 3 * step < a.sites; site += 4 * step) {
    HSAD_UNROLL
    for (int u = 0; u < 4; ++u) s[u] += p[(site + u * step) * a.stride];
  }
  for (; site < a.sites; site += step) s[0] += p[site * a.stride];
  return (s[0] + s[1]) + (s[2] + s[3]);
}

// After the tree-less LDS step of reduce: the work-group's sum of word j, from the items'
// values in LDS (item t of the group holds word (first + t) % width).
HSAD_HD double reduce_group_word(const double* values, std::uint64_t first, std::uint32_t group,
                                 std::uint32_t width, std::uint32_t j) {
  std::uint32_t t = std::uint32_t((j + width - first % width) % width);
  double sum = 0;
  for (; t < group; t += width) sum += values[t];
  return sum;
}

// Work-group j adds column j of `count` rows of `width` partial sums: item t its share (rows t,
// t + items, ...), then the work-group's tree. A work-group per column keeps the last step of a
// reduction short: one work-group for all columns spent more time here than reading the data
// (memory-bench's reduce-fused on the H100, docs/results.md).
HSAD_HD double sum_partials_item(const SumPartialsArgs& a, std::uint32_t column, std::uint32_t t, std::uint32_t items) {
  return strided_sum<false>(a.partials + column, a.partials, a.count, t, items, a.width);
}

}  // namespace hsad::kernels
