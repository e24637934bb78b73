// rocPRIM select by flags, alone (issue 59, continued): built by hipcc 7.0.2 in the sid root with
// `hipcc -O2 --offload-arch=gfx1100 --offload-arch=gfx1030 rocprim-select.hip -o sel`, run as
// `hsad-sim --target gfx1100 -- ./sel 1000`: prints the count and the first wrong values.
#include <hip/hip_runtime.h>
#include <rocprim/rocprim.hpp>
#include <cstdio>
#include <vector>
int main(int argc, char** argv) {
  const size_t n = argc > 1 ? atoi(argv[1]) : 1000;
  std::vector<unsigned> in(n); std::vector<unsigned char> fl(n);
  for (size_t i = 0; i < n; ++i) { in[i] = unsigned(i * 2654435761u) % 1000; fl[i] = in[i] % 3 == 0; }
  unsigned *di, *dout, *dc; unsigned char* df;
  hipMalloc(&di, n * 4); hipMalloc(&dout, n * 4); hipMalloc(&dc, 4); hipMalloc(&df, n);
  hipMemcpy(di, in.data(), n * 4, hipMemcpyHostToDevice); hipMemcpy(df, fl.data(), n, hipMemcpyHostToDevice);
  size_t bytes = 0; rocprim::select(nullptr, bytes, di, df, dout, dc, n);
  void* tmp; hipMalloc(&tmp, bytes);
  rocprim::select(tmp, bytes, di, df, dout, dc, n);
  unsigned count; hipMemcpy(&count, dc, 4, hipMemcpyDeviceToHost);
  std::vector<unsigned> out(n); hipMemcpy(out.data(), dout, n * 4, hipMemcpyDeviceToHost);
  std::vector<unsigned> want; for (size_t i = 0; i < n; ++i) if (fl[i]) want.push_back(in[i]);
  printf("count %u want %zu\n", count, want.size());
  int shown = 0;
  for (size_t i = 0; i < want.size() && shown < 12; ++i) if (i >= count || out[i] != want[i]) { printf("at %zu got %u want %u\n", i, i < count ? out[i] : 0, want[i]); ++shown; }
  return 0;
}
