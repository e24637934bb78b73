// laplacian-bench's vendor-runtime peers in one translation unit, so that nvcc makes one object and
// hipcc one shared object of them: the plain Kernel 5 (vendor_plain.cu) and the slab
// decomposition over several GPUs (vendor_slabs.cu).
#include "vendor_plain.cu"
#include "vendor_slabs.cu"
