// --devices N|all, shared by the apps that run over several devices of one backend
// (laplacian-bench, jacobi-bench).
#pragma once

#include <string>
#include <vector>

#include "hsad/hsad.hpp"

namespace hsad::bench {

// "all" (0) or a whole number of at least 1; throws hsad::Error naming `program`'s option and the text.
int parse_device_count(const std::string& program, const std::string& text);
// The first `count` devices of the runtime (all of them for 0); throws hsad::Error naming the
// count asked for and the devices that exist when there are fewer.
std::vector<Device> pick_devices(const std::string& program, const Runtime& rt, int count);

}  // namespace hsad::bench
