// What libhsadispatch exports. It is built with hidden visibility: only the declarations the public
// headers mark HSAD_API are visible to programs that link the shared object (a test lists them).
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define HSAD_API __attribute__((visibility("default")))
#else
#define HSAD_API
#endif
