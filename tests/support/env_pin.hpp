// EnvPin: sets an environment variable for one scope and restores what was there before, so a
// test that pins a machine property (HSAD_CPU_LAST_LEVEL_CACHE, ...) leaves the process as it was.
#pragma once

#include <stdlib.h>

#include <string>

namespace hsad::test {

class EnvPin {
 public:
  EnvPin(const char* name, const char* value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old, had_ = true;
    setenv(name, value, 1);
  }
  ~EnvPin() {
    if (had_) setenv(name_, old_.c_str(), 1);
    else unsetenv(name_);
  }
  EnvPin(const EnvPin&) = delete;
  EnvPin& operator=(const EnvPin&) = delete;

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

}  // namespace hsad::test
