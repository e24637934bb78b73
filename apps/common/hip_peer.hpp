// The apps' HIP peers live in shared objects of their own beside each app (hsad_peer in
// apps/CMakeLists.txt), loaded only when --peers runs on rocr, so that every app starts where HIP
// is not installed. Each exports one extern "C" entry that reports failure in words.
#pragma once

#include <string>

namespace hsad::bench {

// The entry `symbol` of the shared object `file` beside the running program; throws
// std::runtime_error naming the file and why it could not be loaded.
void* hip_peer_entry(const std::string& file, const char* symbol);

}  // namespace hsad::bench
