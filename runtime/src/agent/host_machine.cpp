// The host's last-level cache, asked of every source that may know it in turn: a VM without
// /sys/devices/system/cpu/cpu0/cache still answers through glibc or CPUID. Where nothing answers,
// the size is unknown, never 0.
#include "agent/host_machine.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "hsad/error.hpp"

namespace hsad::agent {

std::optional<std::uint64_t> parse_cache_size(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  unsigned shift = 0;
  switch (text.back()) {
    case 'K': case 'k': shift = 10; break;
    case 'M': case 'm': shift = 20; break;
    case 'G': case 'g': shift = 30; break;
    default: break;
  }
  if (shift) text.remove_suffix(1);
  if (text.empty() || text.size() > 12 || text.find_first_not_of("0123456789") != std::string_view::npos) {
    return std::nullopt;
  }
  const std::uint64_t value = std::strtoull(std::string(text).c_str(), nullptr, 10);
  if (value == 0 || value > (~std::uint64_t(0) >> shift)) return std::nullopt;
  return value << shift;
}

std::optional<std::uint64_t> cache_from_sysfs(const std::string& dir) {
  int best_level = 0;
  std::optional<std::uint64_t> best;
  for (int index = 0; index < 16; ++index) {
    const std::string base = dir + "/index" + std::to_string(index) + "/";
    std::ifstream level_file(base + "level"), type_file(base + "type"), size_file(base + "size");
    int level = 0;
    std::string type, size;
    if (!(level_file >> level) || !(size_file >> size)) continue;
    type_file >> type;
    if (type == "Instruction") continue;
    const auto bytes = parse_cache_size(size);
    if (!bytes) continue;
    if (level > best_level || (level == best_level && *bytes > best.value_or(0))) best_level = level, best = bytes;
  }
  return best;
}

std::optional<std::uint64_t> cache_from_sysconf() {
#if defined(_SC_LEVEL3_CACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
  for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
    const long v = sysconf(name);
    if (v > 0) return std::uint64_t(v);
  }
#endif
  return std::nullopt;
}

#if defined(__x86_64__) || defined(__i386__)
namespace {
// The deterministic cache parameters (the same layout in leaf 4 and 0x8000001D): the largest
// data or unified cache of the highest level.
std::optional<std::uint64_t> deterministic_caches(unsigned leaf) {
  int best_level = 0;
  std::optional<std::uint64_t> best;
  for (unsigned sub = 0; sub < 16; ++sub) {
    unsigned a, b, c, d;
    if (!__get_cpuid_count(leaf, sub, &a, &b, &c, &d)) return best;
    const unsigned type = a & 0x1f;
    if (type == 0) break;  // no more caches
    if (type == 2) continue;  // instruction cache
    const int level = int((a >> 5) & 0x7);
    const std::uint64_t bytes = std::uint64_t((b >> 22) + 1) * (((b >> 12) & 0x3ff) + 1) * ((b & 0xfff) + 1) * (std::uint64_t(c) + 1);
    if (level > best_level || (level == best_level && bytes > best.value_or(0))) best_level = level, best = bytes;
  }
  return best;
}
}  // namespace

std::optional<std::uint64_t> cache_from_cpuid() {
  unsigned a, b, c, d;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return std::nullopt;
  char vendor[13] = {};
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  const bool amd = std::strcmp(vendor, "AuthenticAMD") == 0 || std::strcmp(vendor, "HygonGenuine") == 0;
  if (!amd) return deterministic_caches(4);
  constexpr unsigned kTopologyExtensions = 1u << 22;  // CPUID 0x80000001 ECX
  if (__get_cpuid(0x80000001, &a, &b, &c, &d) && (c & kTopologyExtensions)) {
    if (auto bytes = deterministic_caches(0x8000001D)) return bytes;
  }
  if (!__get_cpuid(0x80000006, &a, &b, &c, &d)) return std::nullopt;
  if (const std::uint64_t l3 = std::uint64_t(d >> 18) * (512 << 10)) return l3;
  if (const std::uint64_t l2 = std::uint64_t(c >> 16) << 10) return l2;
  return std::nullopt;
}
#else
std::optional<std::uint64_t> cache_from_cpuid() { return std::nullopt; }
#endif

CacheSize host_last_level_cache() {
  if (const char* pinned = std::getenv(kCacheEnv); pinned && *pinned) {
    if (std::string_view(pinned) == "unknown") return {std::nullopt, kCacheEnv};
    const auto bytes = parse_cache_size(pinned);
    if (!bytes) {
      throw Error("cpu", kCacheEnv, std::string("cannot read ") + kCacheEnv + "='" + pinned + "'",
                  "give 'unknown', a byte count, or a size with K, M or G (32M)");
    }
    return {bytes, kCacheEnv};
  }
  if (auto bytes = cache_from_sysfs("/sys/devices/system/cpu/cpu0/cache")) return {bytes, "sysfs"};
  if (auto bytes = cache_from_sysconf()) return {bytes, "sysconf"};
  if (auto bytes = cache_from_cpuid()) return {bytes, "cpuid"};
  return {std::nullopt, "unknown"};
}

unsigned usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return unsigned(n);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace hsad::agent
