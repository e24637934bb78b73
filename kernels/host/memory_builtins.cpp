// Host builds of memory-bench's kernels (kernels/memory.hpp) for the cpu agent. Each runs one
// work-group: the items one after another through the per-item functions the GPU build calls,
// then the work-group's LDS step over their values, in the GPU build's order.
#include <array>
#include <vector>

#include "hsad/host_kernel.hpp"
#include "memory.hpp"

namespace hsad::host_kernels {
namespace {
using namespace kernels;

void row_sums(const WorkGroup& wg) {
  const MatrixSumArgs& a = wg.args<MatrixSumArgs>();
  for (std::uint32_t row = wg.first_x(); row < wg.end_x() && row < a.rows; ++row) a.sums[row] = row_sum_item(a, row);
}

void column_sums(const WorkGroup& wg) {
  const MatrixSumArgs& a = wg.args<MatrixSumArgs>();
  for (std::uint32_t col = wg.first_x(); col < wg.end_x() && col < a.cols; ++col) a.sums[col] = column_sum_item(a, col);
}

// kernels::group_sum_step's tree over a work-group's values, a step for all items at a time.
template <class T>
T group_total(std::array<T, kMemoryMaxGroup>& values, std::uint32_t n) {
  for (std::uint32_t half = group_sum_first_half(n); half > 0; half /= 2) {
    for (std::uint32_t t = 0; t < half; ++t) group_sum_step(values.data(), t, n, half);
  }
  return values[0];
}

void row_sums_lds(const WorkGroup& wg) {
  const MatrixSumArgs& a = wg.args<MatrixSumArgs>();
  std::array<float, kMemoryMaxGroup> values;
  const float* row = a.a + std::size_t(wg.id.x) * a.cols;
  for (std::uint32_t t = 0; t < wg.size.x; ++t) values[t] = strided_sum<false>(row, row, a.cols, t, wg.size.x);
  a.sums[wg.id.x] = group_total(values, wg.size.x);
}

void yax_rows(const WorkGroup& wg) {
  const YaxArgs& a = wg.args<YaxArgs>();
  std::array<double, kMemoryMaxGroup> values;
  for (std::uint32_t t = 0; t < wg.size.x; ++t) {
    const std::uint32_t row = wg.first_x() + t;
    values[t] = row < a.rows ? yax_row_item(a, row) : 0.0;
  }
  a.partials[wg.id.x] = group_total(values, wg.size.x);
}

void yax_groups(const WorkGroup& wg) {
  const YaxArgs& a = wg.args<YaxArgs>();
  std::array<double, kMemoryMaxGroup> values;
  const double* row = a.a + std::size_t(wg.id.x) * a.cols;
  for (std::uint32_t t = 0; t < wg.size.x; ++t) values[t] = strided_sum<true>(row, a.x, a.cols, t, wg.size.x);
  a.partials[wg.id.x] = a.y[wg.id.x] * group_total(values, wg.size.x);
}

void pack(const WorkGroup& wg) {
  const PackArgs& a = wg.args<PackArgs>();
  for (std::uint32_t i = wg.first_x(); i < wg.end_x(); ++i) pack_item(a, i);
}

void reduce(const WorkGroup& wg) {
  const ReduceArgs& a = wg.args<ReduceArgs>();
  std::array<double, kMemoryMaxGroup> values;
  const std::uint32_t first = wg.first_x();
  for (std::uint32_t t = 0; t < wg.size.x; ++t) values[t] = reduce_item(a, first + t);
  for (std::uint32_t j = 0; j < a.width; ++j) {
    a.partials[std::size_t(wg.id.x) * a.width + j] = reduce_group_word(values.data(), first, wg.size.x, a.width, j);
  }
}

void sum_partials(const WorkGroup& wg) {
  const SumPartialsArgs& a = wg.args<SumPartialsArgs>();
  std::array<double, kMemoryMaxGroup> values;
  for (std::uint32_t t = 0; t < wg.size.x; ++t) values[t] = sum_partials_item(a, wg.id.x, t, wg.size.x);
  a.out[wg.id.x] = group_total(values, wg.size.x);
}

std::vector<ArgInfo> matrix_args() {
  return {host_arg("a", &MatrixSumArgs::a), host_arg("sums", &MatrixSumArgs::sums),
          host_arg("rows", &MatrixSumArgs::rows), host_arg("cols", &MatrixSumArgs::cols)};
}

std::vector<ArgInfo> yax_args() {
  return {host_arg("y", &YaxArgs::y),       host_arg("a", &YaxArgs::a),       host_arg("x", &YaxArgs::x),
          host_arg("partials", &YaxArgs::partials), host_arg("rows", &YaxArgs::rows), host_arg("cols", &YaxArgs::cols)};
}
}  // namespace

void register_memory_builtins() {
  register_host_kernel(make_host_kernel<MatrixSumArgs>("row_sums_f32", &row_sums, matrix_args()));
  register_host_kernel(make_host_kernel<MatrixSumArgs>("column_sums_f32", &column_sums, matrix_args()));
  register_host_kernel(make_host_kernel<MatrixSumArgs>("row_sums_lds_f32", &row_sums_lds, matrix_args()));
  register_host_kernel(make_host_kernel<YaxArgs>("yax_rows_f64", &yax_rows, yax_args()));
  register_host_kernel(make_host_kernel<YaxArgs>("yax_groups_f64", &yax_groups, yax_args()));
  register_host_kernel(make_host_kernel<PackArgs>(
      "pack_f64", &pack,
      {host_arg("src", &PackArgs::src), host_arg("dst", &PackArgs::dst), host_arg("sites", &PackArgs::sites),
       host_arg("base", &PackArgs::base), host_arg("stride", &PackArgs::stride), host_arg("width", &PackArgs::width)}));
  register_host_kernel(make_host_kernel<ReduceArgs>(
      "reduce_f64", &reduce,
      {host_arg("src", &ReduceArgs::src), host_arg("partials", &ReduceArgs::partials),
       host_arg("sites", &ReduceArgs::sites), host_arg("base", &ReduceArgs::base),
       host_arg("stride", &ReduceArgs::stride), host_arg("width", &ReduceArgs::width),
       host_arg("step", &ReduceArgs::step)}));
  register_host_kernel(make_host_kernel<SumPartialsArgs>(
      "sum_partials_f64", &sum_partials,
      {host_arg("partials", &SumPartialsArgs::partials), host_arg("out", &SumPartialsArgs::out),
       host_arg("count", &SumPartialsArgs::count), host_arg("width", &SumPartialsArgs::width)}));
}

}  // namespace hsad::host_kernels
