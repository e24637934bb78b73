// Kernels written for the interpreter's tests: each exercises what the project's own kernels do
// not (LDS with barriers, atomics, cross-lane operations, divergence, 2-D and 3-D grids, the
// dispatch's dimensions, spills to scratch, division), and three make it fail on purpose (an
// instruction it does not know, a trap, a store outside every allocation).
#include <hip/hip_runtime.h>

// A work-group sums its 256 values in LDS, halving the active items between barriers.
extern "C" __global__ void __launch_bounds__(256) isa_reduce(const unsigned* in, unsigned* sums, unsigned n) {
  __shared__ unsigned s[256];
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = s[0];
}

// 64 bins: LDS atomics within a work-group, then one global atomic per bin and group; the grid
// strides over the input.
extern "C" __global__ void __launch_bounds__(256) isa_histogram(const unsigned* in, unsigned* bins, unsigned n) {
  __shared__ unsigned local[64];
  if (threadIdx.x < 64) local[threadIdx.x] = 0;
  __syncthreads();
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&local[in[i] % 64], 1u);
  __syncthreads();
  if (threadIdx.x < 64) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

// 16 bins of doubles in LDS, added with atomicAdd (gfx90a: ds_add_f64, ds_add_rtn_f64; the other
// targets a compare-and-swap loop), the old value of one add kept per item; then written out.
// The values are multiples of 1/4 under 2^20: every order of the adds gives the same sums.
extern "C" __global__ void __launch_bounds__(256) isa_lds_double_sums(const unsigned* in, double* sums, double* olds,
                                                                       unsigned n) {
  __shared__ double bins[16];
  if (threadIdx.x < 16) bins[threadIdx.x] = 0.0;
  __syncthreads();
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const double v = double(in[i] % 4096) * 0.25;
    olds[i] = atomicAdd(&bins[in[i] % 16], v);  // returned: ds_add_rtn_f64
    atomicAdd(&bins[(in[i] >> 4) % 16], 1.0);   // unused: ds_add_f64
  }
  __syncthreads();
  if (threadIdx.x < 16) sums[blockIdx.x * 16 + threadIdx.x] = bins[threadIdx.x];
}

// Every wave of the work-group reads a word that the first item overwrites right after its own
// read, with no barrier between (rocSOLVER 6.4's potf2 does so with its pivot). On a GPU the
// work-group's waves run side by side and each reads the old value; run one wave at a time to the
// next barrier, the waves after the first would read the new one.
extern "C" __global__ void __launch_bounds__(256) isa_waves_side_by_side(unsigned* out) {
  __shared__ unsigned word;
  if (threadIdx.x == 0) word = blockIdx.x + 1;
  __syncthreads();
  const unsigned seen = word;
  if (threadIdx.x == 0) word = seen + 1000;
  out[blockIdx.x * blockDim.x + threadIdx.x] = seen;
}

// LDS past the work-group's 256 bytes: item `outside` of a 64-word array, written and read back.
// On AMD GPUs the write goes nowhere and the read gives 0; the words inside are untouched.
extern "C" __global__ void __launch_bounds__(64) isa_lds_outside(unsigned* out, unsigned outside) {
  __shared__ unsigned s[64];
  s[threadIdx.x] = threadIdx.x + 1;
  __syncthreads();
  if (threadIdx.x == 0) s[outside] = 0xdeadbeefu;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
  if (threadIdx.x == 0) out[64] = s[outside];
}

// Saturating arithmetic, which the compiler turns into VOP3 adds and subtracts with the clamp
// bit: a - b at least 0, a + b at most the maximum, 32 and 16 bits.
extern "C" __global__ void __launch_bounds__(256) isa_saturating(const unsigned* a, const unsigned* b, unsigned* out,
                                                                  unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned x = a[i], y = b[i];
  const unsigned sum = x + y;
  out[4 * i] = x > y ? x - y : 0u;
  out[4 * i + 1] = sum < x ? 0xffffffffu : sum;
  const unsigned short hx = (unsigned short)x, hy = (unsigned short)y;
  out[4 * i + 2] = hx > hy ? (unsigned short)(hx - hy) : 0u;
  const unsigned hs = unsigned(hx) + hy;
  out[4 * i + 3] = hs > 0xffffu ? 0xffffu : hs;
}

// Packed and dot-product integer instructions as AMD's libraries use them (rocSPARSE 3): the dot
// product of four signed bytes added to an accumulator (v_dot4c_i32_i8, gfx908 and gfx90a) and a
// packed 16-bit multiply (v_pk_mul_lo_u16, gfx9 and gfx10), by inline assembly where the target has
// them; the same arithmetic in C++ elsewhere.
extern "C" __global__ void __launch_bounds__(256) isa_packed_int(const unsigned* a, const unsigned* b, unsigned* out,
                                                                  unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned x = a[i], y = b[i];
  unsigned acc = x ^ y;
#if defined(__gfx908__) || defined(__gfx90a__)
  asm volatile("v_dot4c_i32_i8 %0, %1, %2" : "+v"(acc) : "v"(x), "v"(y));
#else
  for (int k = 0; k < 4; ++k) acc += unsigned(int((signed char)(x >> (8 * k))) * int((signed char)(y >> (8 * k))));
#endif
  unsigned p;
  asm volatile("v_pk_mul_lo_u16 %0, %1, %2" : "=v"(p) : "v"(x), "v"(y));
  out[2 * i] = acc;
  out[2 * i + 1] = p;
}

// 64-bit arithmetic as compilers lower it: carries and borrows between 32-bit halves
// (v_add_co/v_addc, v_sub_co/v_subb), 32x32+64 multiply-adds (v_mad_u64_u32, v_mad_i64_i32) and
// the carry out of a 128-bit sum; odd items take another branch, so EXEC is partial there.
extern "C" __global__ void __launch_bounds__(256) isa_wide_arith(const unsigned long long* a, const unsigned long long* b,
                                                                  unsigned long long* out, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned long long x = a[i], y = b[i];
  const unsigned p = unsigned(x >> 17), q = unsigned(y >> 9);
  unsigned long long* o = out + 5 * i;
  o[0] = x + y;
  o[1] = x - y;
  o[2] = (unsigned long long)p * q + y;
  o[3] = (unsigned long long)((long long)(int)p * (int)q) + x;  // a signed product, added wrapping
  const unsigned __int128 s = (unsigned __int128)x + y;
  o[4] = (i & 1) ? (unsigned long long)(s >> 64) + (y - x) : (unsigned long long)(s >> 64);
}

// Cross-lane: a butterfly sum over the wavefront (__shfl_xor), a lane read from a computed lane
// (__shfl), and a ballot of odd inputs; what each depends on the wavefront's size.
extern "C" __global__ void __launch_bounds__(256) isa_wave_ops(const int* in, int* sums, int* rotated,
                                                                unsigned long long* ballots, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const int x = i < n ? in[i] : 0;
  int v = x;
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_xor(v, offset);
  const int lane = threadIdx.x % warpSize;
  const int r = __shfl(x, (lane + 3) % warpSize);
  const unsigned long long b = __ballot(x & 1);
  if (i < n) {
    sums[i] = v;
    rotated[i] = r;
    ballots[i] = b;
  }
}

// Divergent loops: each item counts its own Collatz steps (capped), so lanes leave at different
// iterations.
extern "C" __global__ void __launch_bounds__(256) isa_collatz(const unsigned* start, unsigned* steps, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long x = start[i];
  unsigned s = 0;
  while (x != 1 && s < 1000) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    ++s;
  }
  steps[i] = s;
}

// A work-item's global id and the grid's size in work-items, as the device libraries compute them
// (group id times the packet's full group size, plus the local id): right in a partial group too,
// where blockIdx * blockDim is not, because blockDim there is the partial group's size.
extern "C" __device__ size_t __ockl_get_global_id(unsigned);
extern "C" __device__ size_t __ockl_get_global_size(unsigned);

// 2-D and 3-D grids whose sizes are not multiples of the work-group's: each item writes its own
// coordinates; the partial groups at the edges must write nothing outside.
extern "C" __global__ void __launch_bounds__(256) isa_grid3d(unsigned* out, unsigned nx, unsigned ny, unsigned nz) {
  const unsigned x = __ockl_get_global_id(0), y = __ockl_get_global_id(1), z = __ockl_get_global_id(2);
  if (x < nx && y < ny && z < nz) out[(z * ny + y) * nx + x] = x + 1000u * y + 1000000u * z;
}

// The dispatch's dimensions as HIP gives them (from the dispatch packet, or in code object v5
// from the hidden arguments): gridDim counts groups, a partial one included; blockDim is the
// size of this item's group, partial or not.
extern "C" __global__ void __launch_bounds__(1024) isa_dims(unsigned* out) {
  const size_t i = __ockl_get_global_id(0) +
                   __ockl_get_global_size(0) * (__ockl_get_global_id(1) + __ockl_get_global_size(1) * __ockl_get_global_id(2));
  out[6 * i + 0] = gridDim.x;
  out[6 * i + 1] = gridDim.y;
  out[6 * i + 2] = gridDim.z;
  out[6 * i + 3] = blockDim.x;
  out[6 * i + 4] = blockDim.y;
  out[6 * i + 5] = blockDim.z;
}

// A small private array indexed at run time lives in registers, read and written through
// register indexing (s_set_gpr_idx on gfx9, v_movrels/v_movreld on gfx10).
extern "C" __global__ void __launch_bounds__(256) isa_gpr_index(const unsigned* idx, unsigned* out, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  volatile unsigned a[48];
  for (unsigned k = 0; k < 48; ++k) a[k] = k * 7u + i;
  a[idx[i] % 48] += 1000u;
  out[i] = a[idx[i] % 48] + a[(idx[i] + 5) % 48];
}

// A private array too large for registers lives in scratch (the private segment).
extern "C" __global__ void __launch_bounds__(256) isa_scratch(const unsigned* idx, unsigned* out, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned a[300];
  for (unsigned k = 0; k < 300; ++k) a[k] = k * 7u + i;
  const unsigned j = idx[i] % 300;
  a[j] += 1000u;
  out[i] = a[j] + a[(j + 5) % 300] + a[(j * 13) % 300];
}

// fp32 and fp64: division and square root (the compiler's correctly rounded sequences), fma.
extern "C" __global__ void __launch_bounds__(256) isa_math(const float* a, const float* b, const double* c,
                                                            const double* d, float* fo, double* dout, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fo[3 * i + 0] = a[i] / b[i];
  fo[3 * i + 1] = sqrtf(fabsf(a[i]));
  fo[3 * i + 2] = fmaf(a[i], b[i], 1.0f);
  dout[3 * i + 0] = c[i] / d[i];
  dout[3 * i + 1] = sqrt(fabs(c[i]));
  dout[3 * i + 2] = fma(c[i], d[i], -1.0);
}

// Sine and cosine in double of arguments up to 1.7e308: past a few thousand the device library
// reduces them by 2/pi bit by bit (Payne-Hanek), 53 bits at a time from v_trig_preop_f64.
extern "C" __global__ void __launch_bounds__(256) isa_trig(const double* x, double* out, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[2 * i + 0] = sin(x[i]);
  out[2 * i + 1] = cos(x[i]);
}

// Packed f32 (gfx90a, gfx94x) with an inline float constant for both halves (op_sel_hi 0 on the
// constant's operand), as rocFFT's run-time compiled kernels write them: x * 2 + x, x * 0.5 and
// x * 0.5 - x on two floats at once (a double carries the pair).
extern "C" __global__ void __launch_bounds__(64) isa_pk_f32_constants(const double* in, double* out) {
#if defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx942__) || defined(__gfx950__)
  const unsigned i = threadIdx.x;
  const double x = in[i];
  double a, b, c;
  asm volatile("v_pk_fma_f32 %0, %1, 2.0, %1 op_sel_hi:[1,0,1]" : "=v"(a) : "v"(x));
  asm volatile("v_pk_mul_f32 %0, %1, 0.5 op_sel_hi:[1,0]" : "=v"(b) : "v"(x));
  asm volatile("v_pk_fma_f32 %0, %1, 0.5, %1 op_sel_hi:[1,0,1] neg_lo:[0,0,1] neg_hi:[0,0,1]" : "=v"(c) : "v"(x));
  out[3 * i + 0] = a;
  out[3 * i + 1] = b;
  out[3 * i + 2] = c;
#else
  (void)in, (void)out;
#endif
}

// The scalar unit's float instructions (RDNA3.5 and RDNA4), on uniform values: each result to
// out[0..19] from the first lane. Elsewhere the kernel writes nothing.
extern "C" __global__ void __launch_bounds__(64) isa_salu_float(float a, float b, float c, float* out) {
#if defined(__gfx1150__) || defined(__gfx1151__)
  float r[14];
  unsigned u[6];
  asm volatile("s_add_f32 %0, %1, %2" : "=s"(r[0]) : "s"(a), "s"(b));
  asm volatile("s_sub_f32 %0, %1, %2" : "=s"(r[1]) : "s"(a), "s"(b));
  asm volatile("s_mul_f32 %0, %1, %2" : "=s"(r[2]) : "s"(a), "s"(b));
  asm volatile("s_fmac_f32 %0, %1, %2" : "=s"(r[3]) : "s"(a), "s"(b), "0"(c));
  asm volatile("s_fmaak_f32 %0, %1, %2, 0x40400000" : "=s"(r[4]) : "s"(a), "s"(b));  // a * b + 3
  asm volatile("s_fmamk_f32 %0, %1, 0x40400000, %2" : "=s"(r[5]) : "s"(a), "s"(c));  // a * 3 + c
  asm volatile("s_min_f32 %0, %1, %2" : "=s"(r[6]) : "s"(a), "s"(b));
  asm volatile("s_max_f32 %0, %1, %2" : "=s"(r[7]) : "s"(a), "s"(b));
  asm volatile("s_trunc_f32 %0, %1" : "=s"(r[8]) : "s"(c));
  asm volatile("s_floor_f32 %0, %1" : "=s"(r[9]) : "s"(c));
  asm volatile("s_ceil_f32 %0, %1" : "=s"(r[10]) : "s"(c));
  asm volatile("s_rndne_f32 %0, %1" : "=s"(r[11]) : "s"(c));
  asm volatile("s_cvt_f32_u32 %0, %1" : "=s"(r[12]) : "s"(0xfffffff0u));
  asm volatile("s_cvt_f32_i32 %0, %1" : "=s"(r[13]) : "s"(-7));
  asm volatile("s_cvt_u32_f32 %0, %1" : "=s"(u[0]) : "s"(c));
  asm volatile("s_cvt_i32_f32 %0, %1" : "=s"(u[1]) : "s"(c));
  asm volatile("s_cvt_u32_f32 %0, %1" : "=s"(u[2]) : "s"(1e10f));  // saturates
  asm volatile("s_cmp_lt_f32 %1, %2\n\ts_cselect_b32 %0, 1, 0" : "=s"(u[3]) : "s"(a), "s"(b));
  asm volatile("s_cmp_u_f32 %1, %2\n\ts_cselect_b32 %0, 1, 0" : "=s"(u[4]) : "s"(a), "s"(__builtin_nanf("")));
  asm volatile("s_cmp_nge_f32 %1, %2\n\ts_cselect_b32 %0, 1, 0" : "=s"(u[5]) : "s"(a), "s"(__builtin_nanf("")));
  if (threadIdx.x == 0) {
    for (int i = 0; i < 14; ++i) out[i] = r[i];
    for (int i = 0; i < 6; ++i) out[14 + i] = __uint_as_float(u[i]);
  }
#else
  (void)a, (void)b, (void)c, (void)out;
#endif
}

// RDNA3's and RDNA4's matrix instructions on one 16x16x16 tile, inputs laid out as each ISA says:
// f16 into f32, f16 into f16, signed by unsigned bytes; on RDNA4 also fp8 by fp8 (a8's and b8's
// bytes as OCP E4M3) into f32. D goes out row-major whatever the registers' layout; d16 holds each
// result in an element's high half and -1 in its low half (RDNA3's op_sel keeps the low one).
// gfx11: A's row lane % 16, B's column lane % 16, both halves of the wave alike; D's row 2v + lane
// / 16 in element v. gfx12: lanes 16-31 hold the other K (16-bit: k 4-7 and 12-15; bytes: 8-15),
// D's row v + 8 (lane / 16), 16-bit results packed.
#if defined(__gfx1100__) || defined(__gfx1101__) || defined(__gfx1102__) || defined(__gfx1151__)
#define HSAD_ISA_WMMA 11
#elif defined(__gfx1200__) || defined(__gfx1201__)
#define HSAD_ISA_WMMA 12
#endif
#if defined(HSAD_ISA_WMMA)
typedef _Float16 isa_half16 __attribute__((ext_vector_type(16)));
typedef _Float16 isa_half8 __attribute__((ext_vector_type(8)));
typedef float isa_float8 __attribute__((ext_vector_type(8)));
typedef int isa_int2 __attribute__((ext_vector_type(2)));
typedef int isa_int4 __attribute__((ext_vector_type(4)));
typedef int isa_int8 __attribute__((ext_vector_type(8)));
#endif
extern "C" __global__ void __launch_bounds__(32) isa_wmma(const _Float16* a, const _Float16* b, const float* c,
                                                         const signed char* a8, const unsigned char* b8, float* d,
                                                         _Float16* d16, int* d32, float* dfp8) {
#if HSAD_ISA_WMMA == 11
  const unsigned lane = threadIdx.x, row = lane % 16;
  isa_half16 A, B, C16;
  isa_float8 C;
  isa_int4 A8, B8;
  isa_int8 C32;
  for (int k = 0; k < 16; ++k) A[k] = a[row * 16 + k], B[k] = b[k * 16 + row];
  for (int k = 0; k < 4; ++k) {
    unsigned x = 0, y = 0;
    for (int e = 0; e < 4; ++e) {
      x |= unsigned((unsigned char)a8[row * 16 + 4 * k + e]) << (8 * e);
      y |= unsigned(b8[(4 * k + e) * 16 + row]) << (8 * e);
    }
    A8[k] = int(x), B8[k] = int(y);
  }
  for (int v = 0; v < 8; ++v) {
    const unsigned at = (2 * v + lane / 16) * 16 + row;
    C[v] = c[at];
    C16[2 * v] = _Float16(-1.0f), C16[2 * v + 1] = _Float16(c[at]);  // the high halves hold C
    C32[v] = int(c[at]);
  }
  const isa_float8 D = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(A, B, C);
  const isa_half16 D16 = __builtin_amdgcn_wmma_f16_16x16x16_f16_w32(A, B, C16, true);
  const isa_int8 D32 = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32(true, A8, false, B8, C32, false);
  for (int v = 0; v < 8; ++v) {
    const unsigned at = (2 * v + lane / 16) * 16 + row;
    d[at] = D[v];
    d16[2 * at] = D16[2 * v], d16[2 * at + 1] = D16[2 * v + 1];  // low half kept, high half the result
    d32[at] = D32[v];
  }
  (void)dfp8;
#elif HSAD_ISA_WMMA == 12
  const unsigned lane = threadIdx.x, row = lane % 16, h = lane / 16;
  isa_half8 A, B, C16;
  isa_float8 C;
  isa_int2 A8, B8;
  isa_int8 C32;
  for (int e = 0; e < 8; ++e) {
    const unsigned k = 8 * (e / 4) + 4 * h + e % 4;
    A[e] = a[row * 16 + k], B[e] = b[k * 16 + row];
  }
  for (int r = 0; r < 2; ++r) {
    unsigned x = 0, y = 0;
    for (int e = 0; e < 4; ++e) {
      const unsigned k = 8 * h + 4 * r + e;
      x |= unsigned((unsigned char)a8[row * 16 + k]) << (8 * e);
      y |= unsigned(b8[k * 16 + row]) << (8 * e);
    }
    A8[r] = int(x), B8[r] = int(y);
  }
  for (int v = 0; v < 8; ++v) {
    const unsigned at = (v + 8 * h) * 16 + row;
    C[v] = c[at], C16[v] = _Float16(c[at]), C32[v] = int(c[at]);
  }
  const isa_float8 D = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(A, B, C);
  const isa_half8 D16 = __builtin_amdgcn_wmma_f16_16x16x16_f16_w32_gfx12(A, B, C16);
  const isa_int8 D32 = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32_gfx12(true, A8, false, B8, C32, false);
  const isa_float8 D8 = __builtin_amdgcn_wmma_f32_16x16x16_fp8_fp8_w32_gfx12(A8, B8, C);
  for (int v = 0; v < 8; ++v) {
    const unsigned at = (v + 8 * h) * 16 + row;
    d[at] = D[v];
    d16[2 * at] = _Float16(-1.0f), d16[2 * at + 1] = D16[v];
    d32[at] = D32[v];
    dfp8[at] = D8[v];
  }
#else
  (void)a, (void)b, (void)c, (void)a8, (void)b8, (void)d, (void)d16, (void)d32, (void)dfp8;
#endif
}

// Relaxed loads, stores and atomics at agent and at system scope, as an application writes them
// (check in run_kernels_test.cpp, SystemScopeAccessesGoPastTheL2): op 0 and 1 load p[lane] into
// p[64 + lane], op 2 and 3 store 10 * op into p[lane], op 4 and 5 add 1 to p[128] from every lane;
// the odd ones at system scope (gfx94x: sc0 sc1, atomics sc1; gfx12: scope:SCOPE_SYS).
extern "C" __global__ void __launch_bounds__(64) isa_scope(unsigned* p, unsigned op) {
  const unsigned lane = threadIdx.x;
  switch (op) {
    case 0: p[64 + lane] = __hip_atomic_load(p + lane, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); break;
    case 1: p[64 + lane] = __hip_atomic_load(p + lane, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM); break;
    case 2: __hip_atomic_store(p + lane, 10u * op, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); break;
    case 3: __hip_atomic_store(p + lane, 10u * op, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM); break;
    case 4: __hip_atomic_fetch_add(p + 128, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); break;
    case 5: __hip_atomic_fetch_add(p + 128, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM); break;
    default: break;
  }
}

// A raw buffer load whose SGPR offset carries it past num_records: lane i reads dword i at
// `soffset` bytes on, through a buffer of `records` bytes over `in`. The lanes whose dword ends
// past the buffer, the SGPR offset counted, read 0 (Tensile's kernels bound their K tails so).
typedef unsigned isa_u32x4 __attribute__((ext_vector_type(4)));
extern "C" __global__ void __launch_bounds__(64) isa_buffer_bounds(const unsigned* in, unsigned* out, unsigned records,
                                                                    unsigned soffset) {
  const auto base = reinterpret_cast<unsigned long long>(in);
  const isa_u32x4 resource = {unsigned(base), unsigned(base >> 32) & 0xffffu, records, 0x00027000u};
  const unsigned voffset = threadIdx.x * 4;
  unsigned r;
  asm volatile("buffer_load_dword %0, %1, %2, %3 offen\n\ts_waitcnt vmcnt(0)" : "=v"(r) : "v"(voffset), "s"(resource), "s"(soffset));
  out[threadIdx.x] = r;
}

// A scalar buffer load of eight dwords at `soffset` bytes into a buffer of `records` bytes over
// `in`: the dwords that end past num_records read 0, the others what is there (the interpreter
// reads those in one access). Lane 0 writes what the eight SGPRs hold.
typedef unsigned isa_u32x8 __attribute__((ext_vector_type(8)));
extern "C" __global__ void __launch_bounds__(64) isa_scalar_buffer_bounds(const unsigned* in, unsigned* out,
                                                                           unsigned records, unsigned soffset) {
  const auto base = reinterpret_cast<unsigned long long>(in);
  const isa_u32x4 resource = {unsigned(base), unsigned(base >> 32) & 0xffffu, records, 0x00027000u};
  isa_u32x8 v;
#if defined(__gfx1200__) || defined(__gfx1201__)
  asm volatile("s_buffer_load_dwordx8 %0, %1, %2\n\ts_wait_kmcnt 0" : "=s"(v) : "s"(resource), "s"(soffset));
#else
  asm volatile("s_buffer_load_dwordx8 %0, %1, %2\n\ts_waitcnt lgkmcnt(0)" : "=s"(v) : "s"(resource), "s"(soffset));
#endif
  if (threadIdx.x == 0) {
    out[0] = v.s0, out[1] = v.s1, out[2] = v.s2, out[3] = v.s3;
    out[4] = v.s4, out[5] = v.s5, out[6] = v.s6, out[7] = v.s7;
  }
}

// Two work-groups on two threads, each lane on its own word: work-group 0 stores rounds of words
// whose dwords are all equal ({r, r} or {r, r, r, r}) while work-group 1 loads them and counts the
// words whose dwords differ, which only a load or a store done in pieces can give. 64-bit words
// through atomics; 128-bit ones through volatile vectors (global_load_dwordx4, as rocPRIM's
// 128-bit atomic_load is). Each work-group waits for the other to start (a flag, then the first
// round), so their rounds overlap wherever two threads run at once; a wait gives up after 2^22
// looks (a partner that faulted or never ran), counted in `gave_up`, rather than spin on.
typedef unsigned u32x4 __attribute__((ext_vector_type(4)));
extern "C" __global__ void __launch_bounds__(64) isa_whole_words(unsigned long long* words, unsigned* started,
                                                                 unsigned* torn, unsigned rounds, unsigned quads,
                                                                 unsigned* gave_up) {
  constexpr unsigned kLooks = 1u << 22;
  unsigned long long* word = words + threadIdx.x;
  volatile u32x4* quad = reinterpret_cast<volatile u32x4*>(words) + threadIdx.x;
  if (blockIdx.x == 0) {
    unsigned looks = 0;
    while (__hip_atomic_load(started, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT) == 0 && ++looks < kLooks) {
    }
    if (looks == kLooks) atomicAdd(gave_up, 1u);
    for (unsigned r = 1; r <= rounds; ++r) {
      if (quads) {
        *quad = u32x4{r, r, r, r};
      } else {
        __hip_atomic_store(word, (static_cast<unsigned long long>(r) << 32) | r, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
      }
    }
    return;
  }
  if (threadIdx.x == 0) __hip_atomic_store(started, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  unsigned looks = 0;
  while (__hip_atomic_load(reinterpret_cast<unsigned*>(quads ? (unsigned long long*)(quad) : word), __ATOMIC_RELAXED,
                           __HIP_MEMORY_SCOPE_AGENT) == 0 && ++looks < kLooks) {
  }
  if (looks == kLooks) atomicAdd(gave_up, 1u);
  unsigned count = 0;
  for (unsigned r = 0; r < rounds; ++r) {
    if (quads) {
      const u32x4 v = *quad;
      count += v.x != v.y || v.x != v.z || v.x != v.w;
    } else {
      const unsigned long long v = __hip_atomic_load(word, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
      count += static_cast<unsigned>(v) != static_cast<unsigned>(v >> 32);
    }
  }
  atomicAdd(torn, count);
}

// Never ends: every item spins on a word no one sets (a load each turn), four waves to a group.
extern "C" __global__ void __launch_bounds__(256) isa_spin_forever(const unsigned* flag, unsigned* out) {
  while (__atomic_load_n(flag, __ATOMIC_RELAXED) == 0) {
  }
  out[threadIdx.x] = 1;
}

// Fails on purpose: an instruction the interpreter does not implement.
extern "C" __global__ void isa_unknown(unsigned* out) {
  unsigned r;
  asm volatile("v_mqsad_pk_u16_u8 v[2:3], v[0:1], v4, v[6:7]" ::: "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7");
  r = threadIdx.x;
  out[threadIdx.x] = r;
}

// Fails on purpose: a trap.
extern "C" __global__ void isa_trap(unsigned* out) {
  if (threadIdx.x == 0) __builtin_trap();
  out[threadIdx.x] = 1;
}

// gfx10 and later: the illegal-instruction opcode, reached (compilers put it where control never goes).
extern "C" __global__ void isa_illegal(unsigned* out) {
#if defined(__gfx1030__)
  if (out[0] == 0) asm volatile(".long 0");  // v_illegal: LLVM 15's assembler has no name for it
#endif
  out[threadIdx.x] = 1;
}

// Fails on purpose when given an address outside every allocation.
extern "C" __global__ void isa_store(unsigned* out) { out[threadIdx.x] = threadIdx.x; }

// ---- cooperative launches (run as one, with the queue's global wave sync resources)

// What CLR runs on its cooperative queue before each launch: GWS resource 0 set to the number
// of waves its grid barrier waits for, minus one.
// RDNA4 has no GWS (its compiler cannot select ds_gws_init): there the kernel does nothing, and the
// cooperative checks, which need it, run on gfx90a, gfx908 and gfx1030 (cooperative_test.cpp).
extern "C" __global__ void isa_gws_init(unsigned value) {
#if !defined(__GFX12__)
  __ockl_gws_init(value, 0);
#else
  (void)value;
#endif
}

// Rounds that each read what another work-group wrote the round before (its neighbour's
// block): right only where the grid barrier (ockl's grid sync: ds_gws_barrier) holds every
// work-group back until all arrived. The index is the global id: in a partial last work-group
// blockDim.x is that group's own size, and blockIdx.x * blockDim.x would land in another's.
extern "C" __global__ void __launch_bounds__(256) isa_grid_rounds(unsigned* a, unsigned* b, unsigned n, unsigned rounds) {
  const unsigned i = unsigned(__ockl_get_global_id(0));
  for (unsigned r = 0; r < rounds; ++r) {
    if (i < n) b[i] = a[i] + a[(i + blockDim.x) % n];
    __ockl_grid_sync();
    if (i < n) a[i] = b[i];
    __ockl_grid_sync();
  }
}

// Work-group 0 leaves without passing the grid barrier: the others would wait for it forever.
extern "C" __global__ void isa_grid_sync_skipped(unsigned* out) {
  if (blockIdx.x != 0) __ockl_grid_sync();
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

// A barrier made by hand: each work-group counts itself in, then spins until `expected` have
// (the grid's work-groups, or those of grids on several GPUs). Right only where the work-groups
// are resident together and a spinning one lets the others run.
extern "C" __global__ void isa_grid_spin(unsigned* counter, unsigned expected, unsigned* out) {
  if (threadIdx.x == 0) {
    atomicAdd(counter, 1u);
    while (__hip_atomic_load(counter, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM) < expected) {
    }
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = __hip_atomic_load(counter, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}

// The matrix instructions of gfx908, gfx90a, CDNA3 and CDNA4 (v_mfma_*), one wave: each lane reads
// its A and B registers from in[8 * lane ...] and in[512 + 8 * lane ...] and its C registers from
// in[1024 + 32 * lane ...], runs form `form` (the list in matrix_checks.cpp's check_mfma, which
// says what each computes) and writes its D registers to out[32 * lane ...]. Elsewhere it writes
// nothing. CDNA3 (gfx94x, gfx950) dropped a few forms (the builtins' cases are guarded) and added
// the integer ones of twice the K, the 8-bit float ones (gfx942 and gfx950: LLVM 17 and later) and
// the xf32 ones (gfx942 here; gfx950 dropped them);
// CDNA4 (gfx950) the 16-bit float and integer ones of twice CDNA3's K, and the f8f6f4 ones (through
// the scaled builtin with no scale, which LLVM emits as the unscaled instruction).
#if defined(__gfx908__) || defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__) || \
    defined(__gfx950__)
#define HSAD_ISA_MFMA 1
#if defined(__gfx908__) || defined(__gfx90a__)
#define HSAD_ISA_MFMA_CDNA12 1
#else
#define HSAD_ISA_MFMA_CDNA3 1
#endif
namespace mfma {
typedef float f32x4 __attribute__((ext_vector_type(4)));
typedef float f32x16 __attribute__((ext_vector_type(16)));
typedef float f32x32 __attribute__((ext_vector_type(32)));
typedef int i32x4 __attribute__((ext_vector_type(4)));
typedef int i32x16 __attribute__((ext_vector_type(16)));
typedef int i32x32 __attribute__((ext_vector_type(32)));
typedef _Float16 f16x4 __attribute__((ext_vector_type(4)));
typedef short i16x2 __attribute__((ext_vector_type(2)));
typedef short i16x4 __attribute__((ext_vector_type(4)));
typedef double f64x4 __attribute__((ext_vector_type(4)));
typedef float f32x2 __attribute__((ext_vector_type(2)));
#if defined(__gfx950__)
typedef _Float16 f16x8 __attribute__((ext_vector_type(8)));
typedef __bf16 bf16x8 __attribute__((ext_vector_type(8)));
typedef int i32x8 __attribute__((ext_vector_type(8)));
#endif

template <class T>
__device__ T load(const unsigned* p) {
  T v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
}  // namespace mfma

#define HSAD_MFMA(ID, BUILTIN, TA, TC, CBSZ, ABID, BLGP)                                                        \
  case ID: {                                                                                                   \
    const TA a = mfma::load<TA>(in + 8 * lane), b = mfma::load<TA>(in + 512 + 8 * lane);                       \
    const TC c = mfma::load<TC>(in + 1024 + 32 * lane);                                                        \
    const auto d = BUILTIN(a, b, c, CBSZ, ABID, BLGP); /* the builtin's own vector type */                      \
    __builtin_memcpy(out + 32 * lane, &d, sizeof d);                                                           \
    break;                                                                                                     \
  }
// CDNA4's f8f6f4: A's and B's formats (0 fp8, 1 bf8, 2 fp6, 3 bf6, 4 fp4), no scales.
#define HSAD_MFMA_F8F6F4(ID, BUILTIN, TC, FORMAT_A, FORMAT_B)                                                 \
  case ID: {                                                                                                   \
    const mfma::i32x8 a = mfma::load<mfma::i32x8>(in + 8 * lane), b = mfma::load<mfma::i32x8>(in + 512 + 8 * lane); \
    const TC c = mfma::load<TC>(in + 1024 + 32 * lane);                                                        \
    const auto d = BUILTIN(a, b, c, FORMAT_A, FORMAT_B, 0, 0, 0, 0);                                           \
    __builtin_memcpy(out + 32 * lane, &d, sizeof d);                                                           \
    break;                                                                                                     \
  }
// The same scaled: each lane's E8M0 scale words at in[3072 + lane] (A) and in[3136 + lane] (B), of
// which BYTE_A and BYTE_B are used.
#define HSAD_MFMA_SCALED(ID, BUILTIN, TC, FORMAT_A, FORMAT_B, BYTE_A, BYTE_B)                                  \
  case ID: {                                                                                                   \
    const mfma::i32x8 a = mfma::load<mfma::i32x8>(in + 8 * lane), b = mfma::load<mfma::i32x8>(in + 512 + 8 * lane); \
    const TC c = mfma::load<TC>(in + 1024 + 32 * lane);                                                        \
    const int scale_a = int(in[3072 + lane]), scale_b = int(in[3136 + lane]);                                  \
    const auto d = BUILTIN(a, b, c, FORMAT_A, FORMAT_B, BYTE_A, scale_a, BYTE_B, scale_b);                     \
    __builtin_memcpy(out + 32 * lane, &d, sizeof d);                                                           \
    break;                                                                                                     \
  }
#endif

extern "C" __global__ void __launch_bounds__(64) isa_mfma(const unsigned* in, unsigned* out, unsigned form) {
#if defined(HSAD_ISA_MFMA)
  using namespace mfma;
  const unsigned lane = threadIdx.x;
  switch (form) {
    HSAD_MFMA(0, __builtin_amdgcn_mfma_f32_32x32x1f32, float, f32x32, 0, 0, 0)
    HSAD_MFMA(1, __builtin_amdgcn_mfma_f32_16x16x1f32, float, f32x16, 0, 0, 0)
    HSAD_MFMA(2, __builtin_amdgcn_mfma_f32_4x4x1f32, float, f32x4, 0, 0, 0)
    HSAD_MFMA(3, __builtin_amdgcn_mfma_f32_32x32x2f32, float, f32x16, 0, 0, 0)
    HSAD_MFMA(4, __builtin_amdgcn_mfma_f32_16x16x4f32, float, f32x4, 0, 0, 0)
    HSAD_MFMA(5, __builtin_amdgcn_mfma_f32_32x32x4f16, f16x4, f32x32, 0, 0, 0)
    HSAD_MFMA(6, __builtin_amdgcn_mfma_f32_16x16x4f16, f16x4, f32x16, 0, 0, 0)
    HSAD_MFMA(7, __builtin_amdgcn_mfma_f32_4x4x4f16, f16x4, f32x4, 0, 0, 0)
    HSAD_MFMA(8, __builtin_amdgcn_mfma_f32_32x32x8f16, f16x4, f32x16, 0, 0, 0)
    HSAD_MFMA(9, __builtin_amdgcn_mfma_f32_16x16x16f16, f16x4, f32x4, 0, 0, 0)
    HSAD_MFMA(10, __builtin_amdgcn_mfma_i32_32x32x4i8, int, i32x32, 0, 0, 0)
    HSAD_MFMA(11, __builtin_amdgcn_mfma_i32_16x16x4i8, int, i32x16, 0, 0, 0)
    HSAD_MFMA(12, __builtin_amdgcn_mfma_i32_4x4x4i8, int, i32x4, 0, 0, 0)
#if defined(HSAD_ISA_MFMA_CDNA12)
    HSAD_MFMA(13, __builtin_amdgcn_mfma_i32_32x32x8i8, int, i32x16, 0, 0, 0)
    HSAD_MFMA(14, __builtin_amdgcn_mfma_i32_16x16x16i8, int, i32x4, 0, 0, 0)
    HSAD_MFMA(15, __builtin_amdgcn_mfma_f32_32x32x2bf16, i16x2, f32x32, 0, 0, 0)
    HSAD_MFMA(16, __builtin_amdgcn_mfma_f32_16x16x2bf16, i16x2, f32x16, 0, 0, 0)
    HSAD_MFMA(17, __builtin_amdgcn_mfma_f32_4x4x2bf16, i16x2, f32x4, 0, 0, 0)
    HSAD_MFMA(18, __builtin_amdgcn_mfma_f32_32x32x4bf16, i16x2, f32x16, 0, 0, 0)
    HSAD_MFMA(19, __builtin_amdgcn_mfma_f32_16x16x8bf16, i16x2, f32x4, 0, 0, 0)
#endif
    // With A broadcast from another block and B from another lane group.
    HSAD_MFMA(20, __builtin_amdgcn_mfma_f32_4x4x1f32, float, f32x4, 2, 3, 3)
    HSAD_MFMA(21, __builtin_amdgcn_mfma_f32_16x16x4f16, f16x4, f32x16, 1, 1, 5)
    HSAD_MFMA(22, __builtin_amdgcn_mfma_f32_32x32x8f16, f16x4, f32x16, 0, 0, 2)
    HSAD_MFMA(23, __builtin_amdgcn_mfma_i32_32x32x4i8, int, i32x32, 1, 0, 7)
#if !defined(__gfx908__)
    HSAD_MFMA(24, __builtin_amdgcn_mfma_f32_32x32x4bf16_1k, i16x4, f32x32, 0, 0, 0)
    HSAD_MFMA(25, __builtin_amdgcn_mfma_f32_16x16x4bf16_1k, i16x4, f32x16, 0, 0, 0)
    HSAD_MFMA(26, __builtin_amdgcn_mfma_f32_4x4x4bf16_1k, i16x4, f32x4, 0, 0, 0)
    HSAD_MFMA(27, __builtin_amdgcn_mfma_f32_32x32x8bf16_1k, i16x4, f32x16, 0, 0, 0)
    HSAD_MFMA(28, __builtin_amdgcn_mfma_f32_16x16x16bf16_1k, i16x4, f32x4, 0, 0, 0)
    HSAD_MFMA(29, __builtin_amdgcn_mfma_f64_16x16x4f64, double, f64x4, 0, 0, 0)
    HSAD_MFMA(30, __builtin_amdgcn_mfma_f64_4x4x4f64, double, double, 0, 0, 0)
#endif
#if defined(HSAD_ISA_MFMA_CDNA3)
    HSAD_MFMA(31, __builtin_amdgcn_mfma_i32_32x32x16_i8, long, i32x16, 0, 0, 0)
    HSAD_MFMA(32, __builtin_amdgcn_mfma_i32_16x16x32_i8, long, i32x4, 0, 0, 0)
#endif
#if defined(__gfx942__) || defined(__gfx950__)
    HSAD_MFMA(33, __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8, long, f32x4, 0, 0, 0)
    HSAD_MFMA(34, __builtin_amdgcn_mfma_f32_16x16x32_fp8_bf8, long, f32x4, 0, 0, 0)
    HSAD_MFMA(35, __builtin_amdgcn_mfma_f32_16x16x32_bf8_fp8, long, f32x4, 0, 0, 0)
    HSAD_MFMA(36, __builtin_amdgcn_mfma_f32_16x16x32_bf8_bf8, long, f32x4, 0, 0, 0)
    HSAD_MFMA(37, __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8, long, f32x16, 0, 0, 0)
    HSAD_MFMA(38, __builtin_amdgcn_mfma_f32_32x32x16_fp8_bf8, long, f32x16, 0, 0, 0)
    HSAD_MFMA(39, __builtin_amdgcn_mfma_f32_32x32x16_bf8_fp8, long, f32x16, 0, 0, 0)
    HSAD_MFMA(40, __builtin_amdgcn_mfma_f32_32x32x16_bf8_bf8, long, f32x16, 0, 0, 0)
    HSAD_MFMA(41, __builtin_amdgcn_mfma_f32_16x16x32_bf8_fp8, long, f32x4, 0, 0, 6)
#endif
#if defined(__gfx942__)
    HSAD_MFMA(53, __builtin_amdgcn_mfma_f32_16x16x8_xf32, f32x2, f32x4, 0, 0, 0)
    HSAD_MFMA(54, __builtin_amdgcn_mfma_f32_32x32x4_xf32, f32x2, f32x16, 0, 0, 0)
#endif
#if defined(__gfx950__)
    HSAD_MFMA(42, __builtin_amdgcn_mfma_f32_16x16x32_f16, f16x8, f32x4, 0, 0, 0)
    HSAD_MFMA(43, __builtin_amdgcn_mfma_f32_32x32x16_f16, f16x8, f32x16, 0, 0, 0)
    HSAD_MFMA(44, __builtin_amdgcn_mfma_f32_16x16x32_bf16, bf16x8, f32x4, 0, 0, 0)
    HSAD_MFMA(45, __builtin_amdgcn_mfma_f32_32x32x16_bf16, bf16x8, f32x16, 0, 0, 0)
    HSAD_MFMA(46, __builtin_amdgcn_mfma_i32_16x16x64_i8, i32x4, i32x4, 0, 0, 0)
    HSAD_MFMA(47, __builtin_amdgcn_mfma_i32_32x32x32_i8, i32x4, i32x16, 0, 0, 0)
    HSAD_MFMA_F8F6F4(48, __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4, f32x4, 0, 0)
    HSAD_MFMA_F8F6F4(49, __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4, f32x4, 2, 3)
    HSAD_MFMA_F8F6F4(50, __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4, f32x4, 4, 1)
    HSAD_MFMA_F8F6F4(51, __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4, f32x16, 1, 4)
    HSAD_MFMA_F8F6F4(52, __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4, f32x16, 3, 0)
    HSAD_MFMA_SCALED(55, __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4, f32x4, 0, 4, 1, 2)
    HSAD_MFMA_SCALED(56, __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4, f32x16, 3, 1, 3, 0)
    HSAD_MFMA_SCALED(57, __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4, f32x4, 4, 4, 0, 3)
#endif
    default: break;
  }
#else
  (void)in, (void)out, (void)form;
#endif
}

// The sparse matrix instructions of CDNA3 and CDNA4 (v_smfmac_*), one wave: each lane reads its
// compressed A from in[8 * lane ...], its B from in[512 + 8 * lane ...], its C (which is D) from
// in[1024 + 32 * lane ...] and its index word from in[3072 + lane], runs case `form` (the list in
// matrix_checks.cpp's check_smfmac) and writes D to out[32 * lane ...]. Written as inline assembly:
// the builtins' vector types changed between LLVM versions, the instruction's operands did not (the
// interpreter runs it; nothing here waits out the hardware's hazards).
#if defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__) || defined(__gfx950__)
namespace smfmac {
typedef unsigned u32x2 __attribute__((ext_vector_type(2)));
typedef unsigned u32x4 __attribute__((ext_vector_type(4)));
typedef unsigned u32x8 __attribute__((ext_vector_type(8)));
typedef unsigned u32x16 __attribute__((ext_vector_type(16)));
}  // namespace smfmac
#define HSAD_SMFMAC(ID, INSTRUCTION, MODIFIERS, TA, TB, TD)                                                     \
  case ID: {                                                                                                   \
    const smfmac::TA a = mfma::load<smfmac::TA>(in + 8 * lane);                                                \
    const smfmac::TB b = mfma::load<smfmac::TB>(in + 512 + 8 * lane);                                          \
    smfmac::TD d = mfma::load<smfmac::TD>(in + 1024 + 32 * lane);                                              \
    const unsigned index = in[3072 + lane];                                                                    \
    asm volatile(INSTRUCTION " %0, %1, %2, %3 " MODIFIERS : "+v"(d) : "v"(a), "v"(b), "v"(index));             \
    __builtin_memcpy(out + 32 * lane, &d, sizeof d);                                                           \
    break;                                                                                                     \
  }
// The same with A and D (C) in AGPRs (ACC_CD and ACC[0] of the encoding).
#define HSAD_SMFMAC_AGPRS(ID, INSTRUCTION, MODIFIERS, TA, TB, TD)                                               \
  case ID: {                                                                                                   \
    const smfmac::TA a = mfma::load<smfmac::TA>(in + 8 * lane);                                                \
    const smfmac::TB b = mfma::load<smfmac::TB>(in + 512 + 8 * lane);                                          \
    smfmac::TD d = mfma::load<smfmac::TD>(in + 1024 + 32 * lane);                                              \
    const unsigned index = in[3072 + lane];                                                                    \
    asm volatile(INSTRUCTION " %0, %1, %2, %3 " MODIFIERS : "+a"(d) : "a"(a), "v"(b), "v"(index));             \
    __builtin_memcpy(out + 32 * lane, &d, sizeof d);                                                           \
    break;                                                                                                     \
  }
#endif
extern "C" __global__ void __launch_bounds__(64) isa_smfmac(const unsigned* in, unsigned* out, unsigned form) {
#if defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__) || defined(__gfx950__)
  const unsigned lane = threadIdx.x;
  switch (form) {
    HSAD_SMFMAC(0, "v_smfmac_f32_16x16x32_f16", "", u32x2, u32x4, u32x4)
    HSAD_SMFMAC(1, "v_smfmac_f32_32x32x16_f16", "abid:3", u32x2, u32x4, u32x16)
    HSAD_SMFMAC(2, "v_smfmac_f32_16x16x32_bf16", "abid:2", u32x2, u32x4, u32x4)
    HSAD_SMFMAC(3, "v_smfmac_f32_32x32x16_bf16", "", u32x2, u32x4, u32x16)
    HSAD_SMFMAC(4, "v_smfmac_i32_16x16x64_i8", "abid:1", u32x2, u32x4, u32x4)
    HSAD_SMFMAC(5, "v_smfmac_i32_32x32x32_i8", "", u32x2, u32x4, u32x16)
    HSAD_SMFMAC(6, "v_smfmac_f32_16x16x64_bf8_bf8", "", u32x2, u32x4, u32x4)
    HSAD_SMFMAC(7, "v_smfmac_f32_16x16x64_bf8_fp8", "abid:1", u32x2, u32x4, u32x4)
    HSAD_SMFMAC(8, "v_smfmac_f32_16x16x64_fp8_bf8", "", u32x2, u32x4, u32x4)
    HSAD_SMFMAC(9, "v_smfmac_f32_16x16x64_fp8_fp8", "", u32x2, u32x4, u32x4)
    HSAD_SMFMAC(10, "v_smfmac_f32_32x32x32_bf8_bf8", "", u32x2, u32x4, u32x16)
    HSAD_SMFMAC(11, "v_smfmac_f32_32x32x32_bf8_fp8", "", u32x2, u32x4, u32x16)
    HSAD_SMFMAC(12, "v_smfmac_f32_32x32x32_fp8_bf8", "abid:1", u32x2, u32x4, u32x16)
    HSAD_SMFMAC(13, "v_smfmac_f32_32x32x32_fp8_fp8", "", u32x2, u32x4, u32x16)
    HSAD_SMFMAC(14, "v_smfmac_f32_16x16x32_f16", "cbsz:1 abid:2", u32x2, u32x4, u32x4)  // abid unused
    HSAD_SMFMAC(15, "v_smfmac_i32_16x16x64_i8", "abid:2", u32x2, u32x4, u32x4)  // no such set: a fault
    HSAD_SMFMAC_AGPRS(16, "v_smfmac_f32_32x32x16_bf16", "abid:1", u32x2, u32x4, u32x16)
#if defined(__gfx950__)
    HSAD_SMFMAC(17, "v_smfmac_f32_16x16x64_f16", "", u32x4, u32x8, u32x4)
    HSAD_SMFMAC(18, "v_smfmac_f32_32x32x32_f16", "abid:1", u32x4, u32x8, u32x16)
    HSAD_SMFMAC(19, "v_smfmac_f32_16x16x64_bf16", "abid:1", u32x4, u32x8, u32x4)
    HSAD_SMFMAC(20, "v_smfmac_f32_32x32x32_bf16", "", u32x4, u32x8, u32x16)
    HSAD_SMFMAC(21, "v_smfmac_i32_16x16x128_i8", "", u32x4, u32x8, u32x4)
    HSAD_SMFMAC(22, "v_smfmac_i32_32x32x64_i8", "", u32x4, u32x8, u32x16)
    HSAD_SMFMAC(23, "v_smfmac_f32_16x16x128_bf8_bf8", "", u32x4, u32x8, u32x4)
    HSAD_SMFMAC(24, "v_smfmac_f32_16x16x128_bf8_fp8", "", u32x4, u32x8, u32x4)
    HSAD_SMFMAC(25, "v_smfmac_f32_16x16x128_fp8_bf8", "", u32x4, u32x8, u32x4)
    HSAD_SMFMAC(26, "v_smfmac_f32_16x16x128_fp8_fp8", "", u32x4, u32x8, u32x4)
    HSAD_SMFMAC(27, "v_smfmac_f32_32x32x64_bf8_bf8", "", u32x4, u32x8, u32x16)
    HSAD_SMFMAC(28, "v_smfmac_f32_32x32x64_bf8_fp8", "", u32x4, u32x8, u32x16)
    HSAD_SMFMAC(29, "v_smfmac_f32_32x32x64_fp8_bf8", "", u32x4, u32x8, u32x16)
    HSAD_SMFMAC(30, "v_smfmac_f32_32x32x64_fp8_fp8", "", u32x4, u32x8, u32x16)
    HSAD_SMFMAC(31, "v_smfmac_f32_16x16x64_f16", "cbsz:1 abid:1", u32x4, u32x8, u32x4)  // abid unused
    HSAD_SMFMAC(32, "v_smfmac_i32_16x16x128_i8", "abid:1", u32x4, u32x8, u32x4)  // the whole word: abid unused
#endif
    default: break;
  }
#else
  (void)in, (void)out, (void)form;
#endif
}

// RDNA4's sparse WMMA (v_swmmac_*), one wave32: each lane reads its compressed A from in[8 * lane
// ...], its B from in[256 + 8 * lane ...], its C (which is D) from in[512 + 8 * lane ...] and its
// index word from in[768 + lane], runs case `form` (matrix_checks.cpp's check_swmmac) and writes D
// to out[8 * lane ...]. Inline assembly, as isa_smfmac.
#if defined(__gfx1200__) || defined(__gfx1201__)
namespace swmmac {
typedef unsigned u32x2 __attribute__((ext_vector_type(2)));
typedef unsigned u32x4 __attribute__((ext_vector_type(4)));
typedef unsigned u32x8 __attribute__((ext_vector_type(8)));
template <class T>
__device__ T load(const unsigned* p) {
  T v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
}  // namespace swmmac
#define HSAD_SWMMAC(ID, INSTRUCTION, MODIFIERS, TA, TB, TD)                                                     \
  case ID: {                                                                                                   \
    const TA a = swmmac::load<TA>(in + 8 * lane);                                                              \
    const TB b = swmmac::load<TB>(in + 256 + 8 * lane);                                                        \
    TD d = swmmac::load<TD>(in + 512 + 8 * lane);                                                              \
    const unsigned index = in[768 + lane];                                                                     \
    asm volatile(INSTRUCTION " %0, %1, %2, %3 " MODIFIERS : "+v"(d) : "v"(a), "v"(b), "v"(index));             \
    __builtin_memcpy(out + 8 * lane, &d, sizeof d);                                                            \
    break;                                                                                                     \
  }
#endif
extern "C" __global__ void __launch_bounds__(32) isa_swmmac(const unsigned* in, unsigned* out, unsigned form) {
#if defined(__gfx1200__) || defined(__gfx1201__)
  using swmmac::u32x2, swmmac::u32x4, swmmac::u32x8;
  const unsigned lane = threadIdx.x;
  switch (form) {
    HSAD_SWMMAC(0, "v_swmmac_f32_16x16x32_f16", "", u32x4, u32x8, u32x8)
    HSAD_SWMMAC(1, "v_swmmac_f32_16x16x32_bf16", "index_key:1", u32x4, u32x8, u32x8)
    HSAD_SWMMAC(2, "v_swmmac_f16_16x16x32_f16", "index_key:1", u32x4, u32x8, u32x4)
    HSAD_SWMMAC(3, "v_swmmac_bf16_16x16x32_bf16", "", u32x4, u32x8, u32x4)
    HSAD_SWMMAC(4, "v_swmmac_i32_16x16x32_iu8", "index_key:1 neg_lo:[1,0,0]", u32x2, u32x4, u32x8)
    HSAD_SWMMAC(5, "v_swmmac_i32_16x16x32_iu4", "neg_lo:[1,1,0]", unsigned, u32x2, u32x8)
    HSAD_SWMMAC(6, "v_swmmac_i32_16x16x64_iu4", "neg_lo:[0,1,0]", u32x2, u32x4, u32x8)
    HSAD_SWMMAC(7, "v_swmmac_f32_16x16x32_fp8_fp8", "", u32x2, u32x4, u32x8)
    HSAD_SWMMAC(8, "v_swmmac_f32_16x16x32_fp8_bf8", "index_key:1", u32x2, u32x4, u32x8)
    HSAD_SWMMAC(9, "v_swmmac_f32_16x16x32_bf8_fp8", "", u32x2, u32x4, u32x8)
    HSAD_SWMMAC(10, "v_swmmac_f32_16x16x32_bf8_bf8", "", u32x2, u32x4, u32x8)
    HSAD_SWMMAC(11, "v_swmmac_f32_16x16x32_f16", "neg_lo:[1,0,0] neg_hi:[0,1,0]", u32x4, u32x8, u32x8)
    HSAD_SWMMAC(12, "v_swmmac_i32_16x16x32_iu8", "neg_lo:[1,1,0] clamp", u32x2, u32x4, u32x8)
    default: break;
  }
#else
  (void)in, (void)out, (void)form;
#endif
}

// v_smfmac_f32_16x16x32_f16 (gfx94x, gfx950) where only lanes below `active` run it, inputs as
// isa_smfmac's: every lane's A, B and index take part, the other lanes keep C.
extern "C" __global__ void __launch_bounds__(64) isa_smfmac_partial(const unsigned* in, unsigned* out, unsigned active) {
#if defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__) || defined(__gfx950__)
  const unsigned lane = threadIdx.x;
  smfmac::u32x2 a = mfma::load<smfmac::u32x2>(in + 8 * lane);
  smfmac::u32x4 b = mfma::load<smfmac::u32x4>(in + 512 + 8 * lane), d = mfma::load<smfmac::u32x4>(in + 1024 + 32 * lane);
  unsigned index = in[3072 + lane];
  asm volatile("" : "+v"(a), "+v"(b), "+v"(index));  // loaded in every lane, not only in the branch
  if (lane < active) asm volatile("v_smfmac_f32_16x16x32_f16 %0, %1, %2, %3" : "+v"(d) : "v"(a), "v"(b), "v"(index));
  __builtin_memcpy(out + 32 * lane, &d, sizeof d);
#else
  (void)in, (void)out, (void)active;
#endif
}

// v_swmmac_f32_16x16x32_f16 (gfx12) likewise, inputs as isa_swmmac's.
extern "C" __global__ void __launch_bounds__(32) isa_swmmac_partial(const unsigned* in, unsigned* out, unsigned active) {
#if defined(__gfx1200__) || defined(__gfx1201__)
  const unsigned lane = threadIdx.x;
  swmmac::u32x4 a = swmmac::load<swmmac::u32x4>(in + 8 * lane);
  swmmac::u32x8 b = swmmac::load<swmmac::u32x8>(in + 256 + 8 * lane), d = swmmac::load<swmmac::u32x8>(in + 512 + 8 * lane);
  unsigned index = in[768 + lane];
  asm volatile("" : "+v"(a), "+v"(b), "+v"(index));
  if (lane < active) asm volatile("v_swmmac_f32_16x16x32_f16 %0, %1, %2, %3" : "+v"(d) : "v"(a), "v"(b), "v"(index));
  __builtin_memcpy(out + 8 * lane, &d, sizeof d);
#else
  (void)in, (void)out, (void)active;
#endif
}

// v_mfma_f32_16x16x16f16 where only lanes below `active` run it (a divergent branch): every
// lane's A and B still take part (the interpreter's model: inputs read whatever EXEC says, results
// written to the lanes it enables); the others keep C.
extern "C" __global__ void __launch_bounds__(64) isa_mfma_partial(const unsigned* in, unsigned* out, unsigned active) {
#if defined(__gfx908__) || defined(__gfx90a__)
  using namespace mfma;
  const unsigned lane = threadIdx.x;
  f16x4 a = load<f16x4>(in + 8 * lane), b = load<f16x4>(in + 512 + 8 * lane);
  asm volatile("" : "+v"(a), "+v"(b));  // loaded in every lane, not only in the branch that uses them
  f32x4 d = load<f32x4>(in + 1024 + 32 * lane);
  if (lane < active) d = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, d, 0, 0, 0);
  __builtin_memcpy(out + 32 * lane, &d, sizeof d);
#else
  (void)in, (void)out, (void)active;
#endif
}
