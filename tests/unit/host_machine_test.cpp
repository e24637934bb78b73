// The host's last-level cache: each source read from a layout the test makes itself, the
// environment's pin, and "unknown" as an answer of its own, never 0.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "agent/host_machine.hpp"
#include "env_pin.hpp"
#include "hsad/error.hpp"

using namespace hsad::agent;
using hsad::test::EnvPin;
namespace fs = std::filesystem;

namespace {
// A sysfs cache folder: index<i>/{level,type,size}, as Linux writes it.
class FakeSysfs {
 public:
  FakeSysfs() : dir_(fs::temp_directory_path() / ("hsad_cache_" + std::to_string(getpid()) + "_" + std::to_string(counter_++))) {
    fs::create_directories(dir_);
  }
  ~FakeSysfs() { fs::remove_all(dir_); }
  void add(int index, const char* level, const char* type, const char* size) {
    const fs::path d = dir_ / ("index" + std::to_string(index));
    fs::create_directories(d);
    if (level) std::ofstream(d / "level") << level << "\n";
    if (type) std::ofstream(d / "type") << type << "\n";
    if (size) std::ofstream(d / "size") << size << "\n";
  }
  std::string path() const { return dir_.string(); }

 private:
  static inline int counter_ = 0;
  fs::path dir_;
};

}  // namespace

TEST(CacheSize, ParsesBytesAndSuffixes) {
  EXPECT_EQ(parse_cache_size("1048576"), 1048576u);
  EXPECT_EQ(parse_cache_size("32768K"), 32768u << 10);
  EXPECT_EQ(parse_cache_size("32M"), 32u << 20);
  EXPECT_EQ(parse_cache_size("1G"), 1ull << 30);
  EXPECT_EQ(parse_cache_size("512K\n"), 512u << 10);
}

TEST(CacheSize, RefusesZeroAndGarbage) {
  for (const char* bad : {"", "0", "0K", "K", "-1", "12Q", "1.5M", "lots", "99999999999999M", "999999999999G"}) {
    EXPECT_EQ(parse_cache_size(bad), std::nullopt) << bad;
  }
}

TEST(CacheSysfs, TakesTheHighestLevelAndSkipsInstructionCaches) {
  FakeSysfs s;
  s.add(0, "1", "Data", "48K");
  s.add(1, "1", "Instruction", "32K");
  s.add(2, "2", "Unified", "1024K");
  s.add(3, "3", "Unified", "32768K");
  EXPECT_EQ(cache_from_sysfs(s.path()), 32768u << 10);
}

TEST(CacheSysfs, IndicesNeedNotBeInLevelOrder) {
  FakeSysfs s;
  s.add(0, "3", "Unified", "16M");
  s.add(1, "2", "Unified", "2M");
  EXPECT_EQ(cache_from_sysfs(s.path()), 16u << 20);
}

TEST(CacheSysfs, AnInstructionOnlyHighLevelDoesNotCount) {
  FakeSysfs s;
  s.add(0, "2", "Unified", "512K");
  s.add(1, "3", "Instruction", "8M");
  EXPECT_EQ(cache_from_sysfs(s.path()), 512u << 10);
}

TEST(CacheSysfs, AMissingFolderOrUnreadableSizesGiveNothing) {
  EXPECT_EQ(cache_from_sysfs("/nonexistent/hsad/cache"), std::nullopt);
  FakeSysfs s;
  s.add(0, "2", "Unified", nullptr);
  s.add(1, "3", "Unified", "garbage");
  EXPECT_EQ(cache_from_sysfs(s.path()), std::nullopt);
}

TEST(CacheEnvironment, PinsASize) {
  EnvPin pin(kCacheEnv, "3M");
  const CacheSize c = host_last_level_cache();
  EXPECT_EQ(c.bytes, 3u << 20);
  EXPECT_EQ(c.source, kCacheEnv);
}

TEST(CacheEnvironment, PinsUnknown) {
  EnvPin pin(kCacheEnv, "unknown");
  const CacheSize c = host_last_level_cache();
  EXPECT_EQ(c.bytes, std::nullopt);
  EXPECT_EQ(c.source, kCacheEnv);
}

TEST(CacheEnvironment, AValueItCannotReadIsAnErrorNamingTheVariable) {
  EnvPin pin(kCacheEnv, "0");
  try {
    host_last_level_cache();
    FAIL() << "no error";
  } catch (const hsad::Error& e) {
    EXPECT_NE(std::string(e.what()).find("HSAD_CPU_LAST_LEVEL_CACHE='0'"), std::string::npos) << e.what();
  }
}

TEST(CacheDetection, NeverReportsZero) {
  // Whatever this machine has: a size from a named source, or unknown. Never a size of 0.
  const CacheSize c = [] {
    const EnvPin none(kCacheEnv, "");  // an empty value is no pin
    return host_last_level_cache();
  }();
  if (c.bytes) {
    EXPECT_GT(*c.bytes, 0u);
    EXPECT_TRUE(c.source == "sysfs" || c.source == "sysconf" || c.source == "cpuid") << c.source;
  } else {
    EXPECT_EQ(c.source, "unknown");
  }
}

TEST(UsableCpus, FollowsTheAffinityMask) {
  cpu_set_t saved;
  ASSERT_EQ(sched_getaffinity(0, sizeof saved, &saved), 0);
  const unsigned all = usable_cpus();
  EXPECT_EQ(all, unsigned(CPU_COUNT(&saved)));
  // Confined to one of the CPUs it may use, as `taskset -c N` would.
  int first = 0;
  while (!CPU_ISSET(first, &saved)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  EXPECT_EQ(usable_cpus(), 1u);
  ASSERT_EQ(sched_setaffinity(0, sizeof saved, &saved), 0);
}
