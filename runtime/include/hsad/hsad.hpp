// The whole public API of libhsadispatch.
#pragma once

#include "hsad/batch.hpp"
#include "hsad/code_object.hpp"
#include "hsad/buffer.hpp"
#include "hsad/device.hpp"
#include "hsad/error.hpp"
#include "hsad/host_kernel.hpp"
#include "hsad/kernel.hpp"
#include "hsad/module.hpp"
#include "hsad/options.hpp"
#include "hsad/queue.hpp"
#include "hsad/runtime.hpp"
#include "hsad/stats.hpp"
#include "hsad/trace.hpp"
#include "hsad/version.hpp"
