// What the cpu agent knows of the host it runs on: its last-level cache (from whichever of the
// environment, sysfs, glibc or CPUID tells) and how many CPUs this process may run on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hsad::agent {

// Pins the cpu agent's last-level cache size: "unknown", a byte count, or one with a K, M or G
// suffix ("32M"). For tests, and for machines whose OS and processor report nothing useful.
inline constexpr const char* kCacheEnv = "HSAD_CPU_LAST_LEVEL_CACHE";

struct CacheSize {
  std::optional<std::uint64_t> bytes;  // nullopt: nobody told
  std::string source;                  // "sysfs", "sysconf", "cpuid", the variable's name, or "unknown"
};

// "32768K", "32M", "1G", "1048576" -> bytes; nullopt for anything else (0 included).
std::optional<std::uint64_t> parse_cache_size(std::string_view text);

// The largest cache of the highest level among <dir>/index*/ (Data and Unified caches only), as
// Linux lays it out under /sys/devices/system/cpu/cpu0/cache.
std::optional<std::uint64_t> cache_from_sysfs(const std::string& dir);
// glibc's sysconf(_SC_LEVEL3_CACHE_SIZE), else _SC_LEVEL2_CACHE_SIZE.
std::optional<std::uint64_t> cache_from_sysconf();
// CPUID's deterministic cache parameters: leaf 4 (Intel), 0x8000001D (AMD with TOPOEXT), else
// AMD's 0x80000006; nullopt off x86.
std::optional<std::uint64_t> cache_from_cpuid();

// The environment first (throws hsad::Error on a value it cannot read), then sysfs, sysconf,
// CPUID; "unknown" where none tells.
CacheSize host_last_level_cache();

// CPUs this process may run on (its affinity mask: `taskset -c 0` gives 1), at least 1.
unsigned usable_cpus();

}  // namespace hsad::agent
