// Kernels whose parameter lists the parameter-count tests know: none, scalars of every size with
// their padding, and a struct passed by value. Built by nvcc only.
struct Pair {
  double a;
  int b;
};

extern "C" __global__ void params_none() {}

extern "C" __global__ void params_scalars(float* out, int n, double d) {
  if (int(threadIdx.x) < n) out[threadIdx.x] = float(d);
}

extern "C" __global__ void params_struct(Pair p, char c, float* out, unsigned long long n) {
  if (threadIdx.x < n) out[threadIdx.x] = float(p.a + p.b + c);
}
