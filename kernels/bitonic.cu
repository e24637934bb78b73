// The bitonic step for GPUs; hipcc and nvcc both accept this file.
#include "bitonic.hpp"

extern "C" __global__ void __launch_bounds__(256)
    bitonic_step(std::uint32_t* keys, std::uint32_t stage, std::uint32_t pass, std::uint32_t ascending, std::uint32_t n) {
  HSAD_BARRIER_WAIT();
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 2) hsad::kernels::bitonic_step_item(keys, stage, pass, ascending, i);
}

// The LDS algorithm's short passes: the work-group's chunk is read into LDS once, every pass runs
// there with a barrier between, and the chunk is written back once.
extern "C" __global__ void __launch_bounds__(hsad::kernels::kBitonicLocalItems)
    bitonic_local(std::uint32_t* keys, std::uint32_t first_stage, std::uint32_t last_stage, std::uint32_t ascending,
                  std::uint32_t chunk_log2, std::uint32_t n) {
  HSAD_BARRIER_WAIT();
  __shared__ std::uint32_t local[1u << hsad::kernels::kBitonicLocalKeysLog2];
  const std::uint32_t chunk = 1u << chunk_log2, offset = blockIdx.x << chunk_log2;
  if (offset >= n) return;  // a whole work-group past the last chunk: no barrier is left waiting
  for (std::uint32_t x = threadIdx.x; x < chunk; x += blockDim.x) local[x] = keys[offset + x];
  __syncthreads();
  const hsad::kernels::BitonicLocalArgs a{keys, first_stage, last_stage, ascending, chunk_log2, n};
  auto barrier = [] { __syncthreads(); };
  // The workload's shape: two pairs per item in a whole chunk; otherwise any shape, a pair at a time.
  if (chunk == 4 * blockDim.x) hsad::kernels::bitonic_local_item<2>(local, a, blockIdx.x, threadIdx.x, blockDim.x, barrier);
  else hsad::kernels::bitonic_local_item<1>(local, a, blockIdx.x, threadIdx.x, blockDim.x, barrier);
  for (std::uint32_t x = threadIdx.x; x < chunk; x += blockDim.x) keys[offset + x] = local[x];
}

// The LDS algorithm's long passes, up to three in registers (kernels/bitonic.hpp).
extern "C" __global__ void __launch_bounds__(256)
    bitonic_long(std::uint32_t* keys, std::uint32_t stage, std::uint32_t first_pass, std::uint32_t passes,
                 std::uint32_t ascending, std::uint32_t n) {
  HSAD_BARRIER_WAIT();
  const hsad::kernels::BitonicLongArgs a{keys, stage, first_pass, passes, ascending, n};
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n >> passes) return;
  if (passes == 3) hsad::kernels::bitonic_long_item<3>(a, i);
  else if (passes == 2) hsad::kernels::bitonic_long_item<2>(a, i);
  else hsad::kernels::bitonic_long_item<1>(a, i);
}

// No work at all: what a dispatch costs by itself.
extern "C" __global__ void hsad_empty() { HSAD_BARRIER_WAIT(); }
