// gfx1030 in wave64, which HIP's headers refuse ("HIP is not supported on GFX10 with wavefront
// size 64"): the same cross-lane and LDS work as isa_test_kernels.hip, written with the
// compiler's builtins and built without the headers.
#include <stdint.h>

#define KERNEL extern "C" __attribute__((global)) __attribute__((amdgpu_flat_work_group_size(1, 256)))

static __attribute__((device)) unsigned global_id() {
  const uint16_t group_size = reinterpret_cast<const uint16_t*>(__builtin_amdgcn_dispatch_ptr())[2];
  return __builtin_amdgcn_workgroup_id_x() * group_size + __builtin_amdgcn_workitem_id_x();
}

// As isa_wave_ops: a butterfly sum, a rotated read and a ballot, over 64 lanes.
KERNEL void w64_wave_ops(const int* in, int* sums, int* rotated, unsigned long long* ballots, unsigned n) {
  const unsigned i = global_id();
  const int x = i < n ? in[i] : 0;
  const int size = 64;  // this file is built for wave64 only
  const int lane = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
  int v = x;
  for (int offset = size / 2; offset > 0; offset /= 2) v += __builtin_amdgcn_ds_bpermute((lane ^ offset) << 2, v);
  const int r = __builtin_amdgcn_ds_bpermute(((lane + 3) % size) << 2, x);
  const unsigned long long b = __builtin_amdgcn_uicmp(unsigned(x & 1), 0u, 33);  // 33: ICMP_NE, a ballot
  if (i < n) {
    sums[i] = v;
    rotated[i] = r;
    ballots[i] = b;
  }
}

// As isa_reduce: a work-group sum in LDS with barriers.
KERNEL void w64_reduce(const unsigned* in, unsigned* sums, unsigned n) {
  static __attribute__((shared)) unsigned s[256];
  const unsigned t = __builtin_amdgcn_workitem_id_x();
  const unsigned i = global_id();
  s[t] = i < n ? in[i] : 0;
  __builtin_amdgcn_s_barrier();
  for (unsigned stride = 128; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  }
  if (t == 0) sums[__builtin_amdgcn_workgroup_id_x()] = s[0];
}
