// The bitonic step for GPUs; hipcc and nvcc both accept this file.
#include "bitonic.hpp"

extern "C" __global__ void __launch_bounds__(256)
    bitonic_step(std::uint32_t* keys, std::uint32_t stage, std::uint32_t pass, std::uint32_t ascending) {
  HSAD_BARRIER_WAIT();
  hsad::kernels::bitonic_step_item(keys, stage, pass, ascending, blockIdx.x * blockDim.x + threadIdx.x);
}

// No work at all: what a dispatch costs by itself.
extern "C" __global__ void hsad_empty() { HSAD_BARRIER_WAIT(); }
