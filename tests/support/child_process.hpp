// Runs a program in a child process with a time bound, so that a test of something that could
// hang (a kernel that never ends, a process that does not exit) fails instead of stalling CI.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace hsad::test {

struct ChildResult {
  bool timed_out = false;   // killed at the bound
  bool exited = false;      // exited (else killed by a signal)
  int exit_code = -1;
  int signal = 0;
  std::string output;       // stdout and stderr together
  std::uint64_t ended_ns = 0;  // CLOCK_MONOTONIC when the parent saw it end
};

inline std::uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::uint64_t(ts.tv_sec) * 1'000'000'000ull + std::uint64_t(ts.tv_nsec);
}

// argv[0] is the program's path; `env` adds NAME=VALUE pairs to this process's environment.
inline ChildResult run_child(const std::vector<std::string>& argv, std::chrono::seconds bound,
                             const std::vector<std::pair<std::string, std::string>>& env = {}) {
  ChildResult r;
  int out[2];
  if (pipe(out) != 0) return r;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    dup2(out[1], 2);
    close(out[0]);
    close(out[1]);
    for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(out[1]);
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  const auto deadline = std::chrono::steady_clock::now() + bound;
  int status = 0;
  bool done = false;
  char buffer[4096];
  while (!done) {
    pollfd p{out[0], POLLIN, 0};
    poll(&p, 1, 5);
    for (ssize_t n; (n = read(out[0], buffer, sizeof buffer)) > 0;) r.output.append(buffer, std::size_t(n));
    if (waitpid(pid, &status, WNOHANG) == pid) {
      r.ended_ns = monotonic_ns();
      done = true;
    } else if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      r.ended_ns = monotonic_ns();
      r.timed_out = true;
      done = true;
    }
  }
  for (ssize_t n; (n = read(out[0], buffer, sizeof buffer)) > 0;) r.output.append(buffer, std::size_t(n));
  close(out[0]);
  r.exited = WIFEXITED(status);
  r.exit_code = r.exited ? WEXITSTATUS(status) : -1;
  r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return r;
}

// The value of a "key: value" line of the output, or "" where there is none.
inline std::string line_value(const std::string& output, const std::string& key) {
  const std::string prefix = key + ": ";
  for (std::size_t at = 0; at < output.size();) {
    const std::size_t end = output.find('\n', at);
    const std::string line = output.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (line.rfind(prefix, 0) == 0) return line.substr(prefix.size());
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return {};
}

}  // namespace hsad::test
