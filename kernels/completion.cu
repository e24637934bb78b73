// A replayed batch's completion on cuda (ReplayCompletion::counter): the last node of its graph
// counts the launch, so the submit makes no driver call for its completion (cuEventRecord,
// cuStreamWriteValue32) besides the graph's launch. The count lives in device memory, read and
// written only here; the host sees each new value in its pinned page, written and never read
// (a read across PCIe would cost the launch about a microsecond).
#include "portability.hpp"

#if defined(__CUDACC__) && !defined(__HIPCC__)
extern "C" __global__ void hsad_count_completion(unsigned* count, unsigned* host) {
  HSAD_BARRIER_WAIT();  // every node before it has ended and its memory is visible
  unsigned n = *count + 1;
  if (n == 0) n = 1;  // 0 means "none yet" to the host
  *count = n;
  __threadfence_system();  // what the batch wrote, before the count that says it is done
  *static_cast<volatile unsigned*>(host) = n;
}
#endif
