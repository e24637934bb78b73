// A file's bytes, whole, or an hsad::Error that names the file and why not: it cannot be opened,
// it is a directory, a read failed. libstdc++'s stream throws std::ios_base::failure from a read
// that fails (EISDIR) instead of setting badbit; no caller sees that exception.
#pragma once

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "hsad/error.hpp"

namespace hsad::detail {

inline std::string read_whole_file(const std::string& path, const std::string& backend, const std::string& call) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(Errc::invalid_argument, backend, call, "cannot open '" + path + "': " + std::strerror(errno));
  std::string bytes;
  try {
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::ios_base::failure& e) {
    throw Error(Errc::invalid_argument, backend, call, "cannot read '" + path + "': " + e.what());
  }
  if (in.bad()) throw Error(Errc::invalid_argument, backend, call, "cannot read '" + path + "'");
  return bytes;
}

}  // namespace hsad::detail
