#include "hsad/version.hpp"

namespace hsad {

const char* version() { return HSAD_VERSION_STRING; }

}  // namespace hsad
