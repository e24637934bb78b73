// Every GPU kernel of the project in one translation unit: one fatbin (nvcc) or code object
// (hipcc) holds them all.
#include "bitonic.cu"
#include "laplacian.cu"
#include "memory.cu"
#include "cooperative.cu"
#include "loop_control.cu"
#include "jacobi.cu"
#include "completion.cu"
