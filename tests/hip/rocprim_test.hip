// AMD's rocPRIM, as Debian ships it (librocprim-dev: headers, compiled here by hipcc for gfx90a,
// gfx908 and gfx1030), on the simulated GPU: its device-wide algorithms (radix sort of keys and of
// pairs, inclusive and exclusive scan, reduce, segmented reduce, even histogram, select by flags
// and by predicate, merge) at odd sizes, each checked exactly against the same on the host. Every
// algorithm asks for its temporary storage first, as an application calls it. No AMD number.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <rocprim/rocprim.hpp>
#include <string>
#include <vector>

#include "hip_checks.hpp"

using hip_checks::check;

namespace {
template <class T>
T* upload(const std::vector<T>& h) {
  T* d = nullptr;
  HIP(hipMalloc(&d, std::max<std::size_t>(h.size(), 1) * sizeof(T)));
  if (!h.empty()) HIP(hipMemcpy(d, h.data(), h.size() * sizeof(T), hipMemcpyHostToDevice));
  return d;
}
template <class T>
T* device_array(std::size_t n) {
  T* d = nullptr;
  HIP(hipMalloc(&d, std::max<std::size_t>(n, 1) * sizeof(T)));
  return d;
}
template <class T>
std::vector<T> download(const T* d, std::size_t n) {
  std::vector<T> h(n);
  if (n) HIP(hipMemcpy(h.data(), d, n * sizeof(T), hipMemcpyDeviceToHost));
  return h;
}

// rocPRIM's two-call pattern: the storage size first, then the algorithm with that storage.
template <class F>
bool with_storage(const char* what, F algorithm) {
  std::size_t bytes = 0;
  if (!HIP(algorithm(nullptr, bytes))) return false;
  void* storage = nullptr;
  if (!HIP(hipMalloc(&storage, std::max<std::size_t>(bytes, 4)))) return false;
  const bool ok = HIP(algorithm(storage, bytes)) && HIP(hipDeviceSynchronize());
  HIP(hipFree(storage));
  if (!ok) check(false, std::string(what) + ": failed");
  return ok;
}

std::vector<std::uint32_t> random_u32(std::size_t n, std::uint32_t below, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) x = below ? rng() % below : rng();
  return v;
}

struct IsOdd {
  __host__ __device__ bool operator()(std::uint32_t x) const { return (x & 1u) != 0; }
};

void sorts(std::size_t n) {
  const std::string at = " (" + std::to_string(n) + " items)";
  const auto keys = random_u32(n, 0, 11u + unsigned(n));
  std::vector<std::uint32_t> values(n);
  std::iota(values.begin(), values.end(), 0u);
  std::uint32_t *k_in = upload(keys), *k_out = device_array<std::uint32_t>(n);
  std::uint32_t *v_in = upload(values), *v_out = device_array<std::uint32_t>(n);
  if (with_storage("radix_sort_keys", [&](void* s, std::size_t& b) { return rocprim::radix_sort_keys(s, b, k_in, k_out, n); })) {
    std::vector<std::uint32_t> want = keys;
    std::sort(want.begin(), want.end());
    check(download(k_out, n) == want, "rocprim::radix_sort_keys" + at);
  }
  if (with_storage("radix_sort_pairs",
                   [&](void* s, std::size_t& b) { return rocprim::radix_sort_pairs(s, b, k_in, k_out, v_in, v_out, n); })) {
    // Radix sort is stable: equal keys keep their input order, so the values are exactly these.
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
    check(download(v_out, n) == order, "rocprim::radix_sort_pairs, stable" + at);
  }
  // Doubles, descending: the radix order of IEEE bits with negatives and zero among them.
  std::vector<double> d(n);
  std::mt19937 rng{unsigned(n)};
  std::uniform_real_distribution<double> u(-1e6, 1e6);
  for (auto& x : d) x = (rng() % 7 == 0) ? 0.0 : u(rng);
  double *d_in = upload(d), *d_out = device_array<double>(n);
  if (with_storage("radix_sort_keys_desc",
                   [&](void* s, std::size_t& b) { return rocprim::radix_sort_keys_desc(s, b, d_in, d_out, n); })) {
    std::vector<double> want = d;
    std::sort(want.begin(), want.end(), std::greater<double>());
    check(download(d_out, n) == want, "rocprim::radix_sort_keys_desc of doubles" + at);
  }
  for (void* p : {static_cast<void*>(k_in), static_cast<void*>(k_out), static_cast<void*>(v_in), static_cast<void*>(v_out),
                  static_cast<void*>(d_in), static_cast<void*>(d_out)}) {
    HIP(hipFree(p));
  }
}

void scans_and_reductions(std::size_t n) {
  const std::string at = " (" + std::to_string(n) + " items)";
  const auto in = random_u32(n, 1000, 3u + unsigned(n));
  std::uint32_t* d_in = upload(in);
  std::uint64_t* d_out = device_array<std::uint64_t>(n);
  using Sum = rocprim::plus<std::uint64_t>;
  if (with_storage("inclusive_scan",
                   [&](void* s, std::size_t& b) { return rocprim::inclusive_scan(s, b, d_in, d_out, n, Sum()); })) {
    std::vector<std::uint64_t> want(n);
    std::uint64_t acc = 0;
    for (std::size_t i = 0; i < n; ++i) want[i] = acc += in[i];
    check(download(d_out, n) == want, "rocprim::inclusive_scan" + at);
  }
  if (with_storage("exclusive_scan",
                   [&](void* s, std::size_t& b) { return rocprim::exclusive_scan(s, b, d_in, d_out, std::uint64_t(7), n, Sum()); })) {
    std::vector<std::uint64_t> want(n);
    std::uint64_t acc = 7;
    for (std::size_t i = 0; i < n; ++i) {
      want[i] = acc;
      acc += in[i];
    }
    check(download(d_out, n) == want, "rocprim::exclusive_scan from 7" + at);
  }
  if (with_storage("reduce", [&](void* s, std::size_t& b) { return rocprim::reduce(s, b, d_in, d_out, std::uint64_t(0), n, Sum()); })) {
    const std::uint64_t want = std::accumulate(in.begin(), in.end(), std::uint64_t(0));
    check(download(d_out, 1)[0] == want, "rocprim::reduce, sum" + at);
  }
  std::uint32_t* d_max = device_array<std::uint32_t>(1);
  if (with_storage("reduce max", [&](void* s, std::size_t& b) {
        return rocprim::reduce(s, b, d_in, d_max, 0u, n, rocprim::maximum<std::uint32_t>());
      })) {
    check(download(d_max, 1)[0] == *std::max_element(in.begin(), in.end()), "rocprim::reduce, maximum" + at);
  }
  // Segments of 0 to 300 items, some empty: each one's sum, the empty ones the initial value.
  std::vector<unsigned> offsets = {0};
  std::mt19937 rng{unsigned(n) + 9};
  while (offsets.back() < n) offsets.push_back(std::min<unsigned>(unsigned(n), offsets.back() + rng() % 301));
  const unsigned segments = unsigned(offsets.size() - 1);
  unsigned* d_offsets = upload(offsets);
  std::uint64_t* d_seg = device_array<std::uint64_t>(segments);
  if (with_storage("segmented_reduce", [&](void* s, std::size_t& b) {
        return rocprim::segmented_reduce(s, b, d_in, d_seg, segments, d_offsets, d_offsets + 1, Sum(), std::uint64_t(5));
      })) {
    std::vector<std::uint64_t> want(segments);
    for (unsigned g = 0; g < segments; ++g) {
      want[g] = std::accumulate(in.begin() + offsets[g], in.begin() + offsets[g + 1], std::uint64_t(5));
    }
    check(download(d_seg, segments) == want, "rocprim::segmented_reduce over " + std::to_string(segments) + " segments" + at);
  }
  for (void* p : {static_cast<void*>(d_in), static_cast<void*>(d_out), static_cast<void*>(d_max), static_cast<void*>(d_offsets),
                  static_cast<void*>(d_seg)}) {
    HIP(hipFree(p));
  }
}

void histogram_select_merge(std::size_t n) {
  const std::string at = " (" + std::to_string(n) + " items)";
  const auto in = random_u32(n, 1000, 5u + unsigned(n));
  std::uint32_t* d_in = upload(in);
  // 37 even bins over [0, 999): samples at 999 or above fall outside every bin.
  constexpr unsigned kBins = 37;
  unsigned* d_hist = device_array<unsigned>(kBins);
  if (with_storage("histogram_even", [&](void* s, std::size_t& b) {
        return rocprim::histogram_even(s, b, d_in, unsigned(n), d_hist, kBins + 1, 0u, 999u);
      })) {
    std::vector<unsigned> want(kBins, 0);
    for (std::uint32_t x : in) {
      if (x < 999) ++want[std::size_t(x) * kBins / 999];
    }
    check(download(d_hist, kBins) == want, "rocprim::histogram_even, 37 bins" + at);
  }
  std::vector<unsigned char> flags(n);
  for (std::size_t i = 0; i < n; ++i) flags[i] = in[i] % 3 == 0;
  unsigned char* d_flags = upload(flags);
  std::uint32_t* d_out = device_array<std::uint32_t>(n);
  unsigned* d_count = device_array<unsigned>(1);
  if (with_storage("select flagged",
                   [&](void* s, std::size_t& b) { return rocprim::select(s, b, d_in, d_flags, d_out, d_count, n); })) {
    std::vector<std::uint32_t> want;
    for (std::size_t i = 0; i < n; ++i) {
      if (flags[i]) want.push_back(in[i]);
    }
    const unsigned count = download(d_count, 1)[0];
    check(count == want.size() && download(d_out, count) == want, "rocprim::select by flags, in order" + at);
  }
  if (with_storage("select predicate",
                   [&](void* s, std::size_t& b) { return rocprim::select(s, b, d_in, d_out, d_count, n, IsOdd()); })) {
    std::vector<std::uint32_t> want;
    for (std::uint32_t x : in) {
      if (x & 1u) want.push_back(x);
    }
    const unsigned count = download(d_count, 1)[0];
    check(count == want.size() && download(d_out, count) == want, "rocprim::select by predicate, in order" + at);
  }
  // Two sorted halves of different lengths merged.
  std::vector<std::uint32_t> a(in.begin(), in.begin() + n / 3), b(in.begin() + n / 3, in.end());
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::uint32_t *d_a = upload(a), *d_b = upload(b);
  if (with_storage("merge", [&](void* s, std::size_t& bytes) {
        return rocprim::merge(s, bytes, d_a, d_b, d_out, a.size(), b.size(), rocprim::less<std::uint32_t>());
      })) {
    std::vector<std::uint32_t> want(n);
    std::merge(a.begin(), a.end(), b.begin(), b.end(), want.begin());
    check(download(d_out, n) == want, "rocprim::merge of " + std::to_string(a.size()) + " and " + std::to_string(b.size()) + at);
  }
  for (void* p : {static_cast<void*>(d_in), static_cast<void*>(d_hist), static_cast<void*>(d_flags), static_cast<void*>(d_out),
                  static_cast<void*>(d_count), static_cast<void*>(d_a), static_cast<void*>(d_b)}) {
    HIP(hipFree(p));
  }
}
}  // namespace

int main() {
  // One item, one under a work-group's tile, and sizes past several tiles that are no power of 2.
  for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(65537)}) {
    sorts(n);
    scans_and_reductions(n);
    histogram_select_merge(n);
  }
  return hip_checks::finish("rocprim_test");
}
