// Bounds-checked reads from untrusted bytes: every offset and length of a code object or a
// bundle is checked here before it is used, so malformed input is an error, not a crash.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "hsad/error.hpp"

namespace hsad::codeobject {

[[noreturn]] inline void malformed(const std::string& what) {
  throw Error("code-object", "read", "malformed code object: " + what);
}

// True when [offset, offset + size) lies inside `total` bytes, without overflowing.
inline bool in_bounds(std::uint64_t offset, std::uint64_t size, std::uint64_t total) {
  return offset <= total && size <= total - offset;
}

inline std::string_view slice(std::string_view bytes, std::uint64_t offset, std::uint64_t size, const char* what) {
  if (!in_bounds(offset, size, bytes.size())) {
    malformed(std::string(what) + " [" + std::to_string(offset) + ", +" + std::to_string(size) +
              ") lies outside the " + std::to_string(bytes.size()) + " bytes");
  }
  return bytes.substr(offset, size);
}

// A trivially copyable struct read at `offset` (unaligned input is fine).
template <typename T>
T read_at(std::string_view bytes, std::uint64_t offset, const char* what) {
  T value;
  std::memcpy(&value, slice(bytes, offset, sizeof(T), what).data(), sizeof(T));
  return value;
}

}  // namespace hsad::codeobject
