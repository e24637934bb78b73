// Replays the fuzz target over its seeds (the real code objects), over every finding kept in
// tests/fuzz/regressions/, and over systematic truncations and byte flips of a real code
// object, so what libFuzzer once found stays fixed in every build, sanitizers included.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "hsad/code_object.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {
std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
int run(const std::string& bytes) {
  return LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}
}  // namespace

TEST(FuzzReplay, SeedsAndRegressions) {
  std::size_t inputs = 0;
  for (const char* seed : {HSAD_AMD_BUNDLE, HSAD_V5_FIXTURE}) {
    EXPECT_EQ(run(slurp(seed)), 0);
    ++inputs;
  }
  for (const auto& entry : std::filesystem::directory_iterator(HSAD_FUZZ_REGRESSIONS)) {
    if (!entry.is_regular_file() || entry.path().filename() == "README.md") continue;
    EXPECT_EQ(run(slurp(entry.path())), 0) << entry.path();
    ++inputs;
  }
  EXPECT_GE(inputs, 2u);
}

TEST(FuzzReplay, TruncationsAndFlipsOfARealCodeObject) {
  const std::string elf(hsad::select_code_object(slurp(HSAD_AMD_BUNDLE), "gfx1030"));
  ASSERT_FALSE(elf.empty());
  for (std::size_t n = 0; n < elf.size(); n += 97) EXPECT_EQ(run(elf.substr(0, n)), 0);
  for (std::size_t i = 0; i < elf.size(); i += 31) {
    std::string flipped = elf;
    flipped[i] = static_cast<char>(~flipped[i]);
    EXPECT_EQ(run(flipped), 0);
  }
}
