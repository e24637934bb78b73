// How the library's hostcall service formats a device printf message (HostcallService::format_printf):
// the control word, the format string packed 8 bytes a qword, then one qword per argument (a
// string: its bytes, likewise packed), as ROCm 5's device library sends them.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backends/rocr/hostcall.hpp"

using hsad::rocr::HostcallService;

namespace {
void pack(std::vector<std::uint64_t>& m, const std::string& s) {
  const std::size_t qwords = (s.size() + 1 + 7) / 8;
  std::vector<char> bytes(qwords * 8, '\0');
  s.copy(bytes.data(), s.size());
  for (std::size_t q = 0; q < qwords; ++q) {
    std::uint64_t v;
    std::memcpy(&v, bytes.data() + 8 * q, 8);
    m.push_back(v);
  }
}
std::uint64_t bits(double d) {
  std::uint64_t v;
  std::memcpy(&v, &d, 8);
  return v;
}
}  // namespace

TEST(HostcallPrintf, EveryConversionTakesItsArgument) {
  std::vector<std::uint64_t> m = {0};
  pack(m, "%d %u %x %5.2f %s|%c|%-4d|%lld %%\n");
  m.push_back(0xffffffffu);  // -1 as the device sends an int: zero-extended
  m.push_back(7);
  m.push_back(255);
  m.push_back(bits(3.14159));
  pack(m, "a string longer than eight bytes");
  m.push_back('z');
  m.push_back(5);
  m.push_back(std::uint64_t(-9000000000LL));
  EXPECT_EQ(HostcallService::format_printf(m), "-1 7 ff  3.14 a string longer than eight bytes|z|5   |-9000000000 %\n");
}

TEST(HostcallPrintf, StarWidthsAndMissingArgumentsAreSafe) {
  std::vector<std::uint64_t> m = {0};
  pack(m, "[%*d] [%.*f] %d %s\n");
  m.push_back(6);
  m.push_back(42);
  m.push_back(1);
  m.push_back(bits(2.25));
  // the last two arguments are missing: 0 and an empty string, not a crash
  EXPECT_EQ(HostcallService::format_printf(m), "[    42] [2.2] 0 \n");
}
