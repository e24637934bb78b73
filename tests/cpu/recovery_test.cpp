// The cpu agent's recovery from a host kernel that never returns, and from one that throws
// (tests/support/recovery_cases.hpp): each case in a child process with a time bound.
#include "recovery_cases.hpp"

HSAD_RECOVERY_TESTS(CpuRecovery, std::string("cpu"))
