// A file's bytes, whole, or an hsad::Error that names the file and why not: it cannot be opened,
// it is a directory, a read failed (libstdc++'s stream throws std::ios_base::failure from a read
// that fails rather than set badbit: no caller sees that exception).
#pragma once

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <iterator>
#include <string>

#include "hsad/error.hpp"

namespace hsad::detail {

inline std::string read_whole_file(const std::string& path, const std::string& backend, const std::string& call) {
  // A directory opens as a stream on Linux; what reading it does is the C++ library's to choose.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw Error(Errc::invalid_argument, backend, call, "cannot read '" + path + "': it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(Errc::invalid_argument, backend, call, "cannot open '" + path + "': " + std::strerror(errno));
  std::string bytes;
  try {
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::ios_base::failure& e) {
    throw Error(Errc::invalid_argument, backend, call, "cannot read '" + path + "': " + e.what());
  }
  return bytes;
}

}  // namespace hsad::detail
