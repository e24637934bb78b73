// error_text: what an hsad::Error thrown by `f` says ("no error" where none is thrown), for tests
// that check a refusal names its cause.
#pragma once

#include <functional>
#include <string>

#include "hsad/error.hpp"

namespace hsad::test {

inline std::string error_text(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace hsad::test
