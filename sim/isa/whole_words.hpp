// One lane's dwords of a wide access (dwordx2 .. x4, b64 .. b128), copied as the hardware copies
// them: each naturally aligned 8 or 16 bytes in one access. AMD GPUs load and store an aligned
// 64-bit word as one (LLVM's AMDGPUUsage, "Memory Model": single-copy atomic), and code relies on
// it across work-groups, on 128-bit words too: rocPRIM's look-back packs a block's prefix and its
// flag into one word (64-bit for a 32-bit sum, 128-bit for a 64-bit one: `global_load_dwordx4`,
// its ROCPRIM_MAX_ATOMIC_SIZE is 16) that one work-group stores while others load it. Copied
// dword by dword, a load on one thread could read the old prefix with the new flag from a store
// on another: a wrong scan, sometimes (more often on a loaded machine).
//
// The host's side of the guarantee: an aligned 8-byte access is atomic on x86-64; an aligned
// 16-byte SSE move (movdqa) is atomic on every CPU with AVX (Intel SDM vol. 3A, 9.1.1; AMD's
// APM vol. 2, 7.3.2), the CPUs this interpreter's fast copy is built for. Elsewhere a 16-byte
// piece goes as two 8-byte ones.
#pragma once

#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace hsad::isa {

// Whether this build copies an aligned 16-byte piece in one access (else as two 8-byte ones).
#if defined(__SSE2__)
inline constexpr bool kWhole128 = true;
#else
inline constexpr bool kWhole128 = false;
#endif

inline bool aligned_at(const void* p, std::uintptr_t bytes) { return (reinterpret_cast<std::uintptr_t>(p) & (bytes - 1)) == 0; }

// `count` dwords at `from` into `to`, each aligned 16, 8 or 4 bytes in one load.
inline void read_whole_words(std::uint32_t* to, const std::uint8_t* from, std::uint32_t count) {
#if defined(__SSE2__)
  if ((count & 3) == 0 && aligned_at(from, 16)) {  // the usual case (a dwordx4, an L2 line): a tight loop
    for (std::uint32_t k = 0; k < count; k += 4) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(to + k), _mm_load_si128(reinterpret_cast<const __m128i*>(from + 4 * k)));
    }
    return;
  }
#endif
  for (std::uint32_t k = 0; k < count;) {
    const std::uint8_t* p = from + 4 * k;
#if defined(__SSE2__)
    if (k + 4 <= count && aligned_at(p, 16)) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(to + k), _mm_load_si128(reinterpret_cast<const __m128i*>(p)));
      k += 4;
      continue;
    }
#endif
    if (k + 2 <= count && aligned_at(p, 8)) {
      const std::uint64_t v = __atomic_load_n(reinterpret_cast<const std::uint64_t*>(p), __ATOMIC_RELAXED);
      std::memcpy(to + k, &v, 8);
      k += 2;
    } else if (aligned_at(p, 4)) {
      const std::uint32_t v = __atomic_load_n(reinterpret_cast<const std::uint32_t*>(p), __ATOMIC_RELAXED);
      std::memcpy(to + k, &v, 4);
      k += 1;
    } else {
      std::memcpy(to + k, p, 4);
      k += 1;
    }
  }
}

// `bytes` at `from` into `to`, each aligned 16, 8 or 4 bytes in one store, the rest as they come.
inline void write_whole_words(std::uint8_t* to, const void* from, std::uint32_t bytes) {
  const auto* src = static_cast<const std::uint8_t*>(from);
#if defined(__SSE2__)
  if ((bytes & 15) == 0 && aligned_at(to, 16)) {  // the usual case (a dwordx4, an L2 line): a tight loop
    for (std::uint32_t k = 0; k < bytes; k += 16) {
      _mm_store_si128(reinterpret_cast<__m128i*>(to + k), _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + k)));
    }
    return;
  }
#endif
  for (std::uint32_t k = 0; k < bytes;) {
#if defined(__SSE2__)
    if (k + 16 <= bytes && aligned_at(to + k, 16)) {
      _mm_store_si128(reinterpret_cast<__m128i*>(to + k), _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + k)));
      k += 16;
      continue;
    }
#endif
    if (k + 8 <= bytes && aligned_at(to + k, 8)) {
      std::uint64_t v;
      std::memcpy(&v, src + k, 8);
      __atomic_store_n(reinterpret_cast<std::uint64_t*>(to + k), v, __ATOMIC_RELAXED);
      k += 8;
    } else if (k + 4 <= bytes && aligned_at(to + k, 4)) {
      std::uint32_t v;
      std::memcpy(&v, src + k, 4);
      __atomic_store_n(reinterpret_cast<std::uint32_t*>(to + k), v, __ATOMIC_RELAXED);
      k += 4;
    } else {
      const std::uint32_t n = bytes - k < 4 ? bytes - k : 4;
      std::memcpy(to + k, src + k, n);
      k += n;
    }
  }
}

}  // namespace hsad::isa
