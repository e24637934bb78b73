// memory-bench's kernels for GPUs (kernels/memory.hpp); hipcc and nvcc both accept this file.
// Every kernel takes any work-group size up to kMemoryMaxGroup (memory-bench --sweep-block) and
// is launched as whole work-groups.
#include "memory.hpp"

namespace {
using namespace hsad::kernels;

// The work-group's sum of one value per item, in LDS; valid in item 0.
template <class T>
__device__ __forceinline__ T group_total(T* lds, T value) {
  lds[threadIdx.x] = value;
  for (std::uint32_t half = group_sum_first_half(blockDim.x); half > 0; half /= 2) {
    __syncthreads();
    group_sum_step(lds, threadIdx.x, blockDim.x, half);
  }
  __syncthreads();
  return lds[0];
}
}  // namespace

// An item per row: neighbouring items read addresses a row apart.
extern "C" __global__ void __launch_bounds__(kMemoryMaxGroup)
    row_sums_f32(const float* a, float* sums, std::uint32_t rows, std::uint32_t cols) {
  HSAD_BARRIER_WAIT();
  const std::uint32_t row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) sums[row] = row_sum_item(MatrixSumArgs{a, sums, rows, cols}, row);
}

// An item per column: neighbouring items read neighbouring addresses.
extern "C" __global__ void __launch_bounds__(kMemoryMaxGroup)
    column_sums_f32(const float* a, float* sums, std::uint32_t rows, std::uint32_t cols) {
  HSAD_BARRIER_WAIT();
  const std::uint32_t col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col < cols) sums[col] = column_sum_item(MatrixSumArgs{a, sums, rows, cols}, col);
}

// A work-group per row: the items read the row's neighbouring addresses and add in LDS.
extern "C" __global__ void __launch_bounds__(kMemoryMaxGroup)
    row_sums_lds_f32(const float* a, float* sums, std::uint32_t rows, std::uint32_t cols) {
  HSAD_BARRIER_WAIT();
  __shared__ float lds[kMemoryMaxGroup];
  const std::uint32_t row = blockIdx.x;
  const float s = strided_sum<false>(a + std::size_t(row) * cols, a, cols, threadIdx.x, blockDim.x);
  const float total = group_total(lds, s);
  if (threadIdx.x == 0) sums[row] = total;
}

// yAx, an item per row; the work-group adds its rows' y_i (A x)_i into one partial sum.
extern "C" __global__ void __launch_bounds__(kMemoryMaxGroup)
    yax_rows_f64(const double* y, const double* a, const double* x, double* partials, std::uint32_t rows,
                 std::uint32_t cols) {
  HSAD_BARRIER_WAIT();
  __shared__ double lds[kMemoryMaxGroup];
  const std::uint32_t row = blockIdx.x * blockDim.x + threadIdx.x;
  const double v = row < rows ? yax_row_item(YaxArgs{y, a, x, partials, rows, cols}, row) : 0.0;
  const double total = group_total(lds, v);
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

// yAx, a work-group per row (the notes' wavefront per row): y_i (A x)_i into partials[i].
extern "C" __global__ void __launch_bounds__(kMemoryMaxGroup)
    yax_groups_f64(const double* y, const double* a, const double* x, double* partials, std::uint32_t rows,
                   std::uint32_t cols) {
  HSAD_BARRIER_WAIT();
  __shared__ double lds[kMemoryMaxGroup];
  const std::uint32_t row = blockIdx.x;
  const double s = strided_sum<true>(a + std::size_t(row) * cols, x, cols, threadIdx.x, blockDim.x);
  const double total = group_total(lds, s);
  if (threadIdx.x == 0) partials[row] = y[row] * total;
}

extern "C" __global__ void __launch_bounds__(kMemoryMaxGroup)
    pack_f64(const double* src, double* dst, std::uint32_t sites, std::uint32_t base, std::uint32_t stride,
             std::uint32_t width) {
  HSAD_BARRIER_WAIT();
  pack_item(PackArgs{src, dst, sites, base, stride, width}, std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x);
}

extern "C" __global__ void __launch_bounds__(kMemoryMaxGroup)
    reduce_f64(const double* src, double* partials, std::uint32_t sites, std::uint32_t base, std::uint32_t stride,
               std::uint32_t width, std::uint32_t step) {
  HSAD_BARRIER_WAIT();
  __shared__ double lds[kMemoryMaxGroup];
  const ReduceArgs a{src, partials, sites, base, stride, width, step};
  const std::uint32_t first = blockIdx.x * blockDim.x;
  lds[threadIdx.x] = reduce_item(a, first + threadIdx.x);
  __syncthreads();
  for (std::uint32_t j = threadIdx.x; j < width; j += blockDim.x) {
    partials[std::size_t(blockIdx.x) * width + j] = reduce_group_word(lds, first, blockDim.x, width, j);
  }
}

// A work-group per column: the sums of `count` rows of `width` partial sums.
extern "C" __global__ void __launch_bounds__(kMemoryMaxGroup)
    sum_partials_f64(const double* partials, double* out, std::uint32_t count, std::uint32_t width) {
  HSAD_BARRIER_WAIT();
  __shared__ double lds[kMemoryMaxGroup];
  const double total =
      group_total(lds, sum_partials_item(SumPartialsArgs{partials, out, count, width}, blockIdx.x, threadIdx.x, blockDim.x));
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}
