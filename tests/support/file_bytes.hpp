// A file's bytes ("" where it cannot be read), and the tests' modules by name.
#pragma once

#include <fstream>
#include <iterator>
#include <string>

namespace hsad::test {

inline std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

#ifdef HSAD_MODULES_DIR
inline std::string test_module(const char* name) { return file_bytes(std::string(HSAD_MODULES_DIR) + "/" + name); }
#endif

}  // namespace hsad::test
