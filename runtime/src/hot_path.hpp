// HSAD_HOT: marks the functions of the submit path a replay takes, so that the compiler places
// them together (.text.hot, which the linker gathers at the start of .text): a replayed submit
// then runs code from a page or two of the library instead of one page per source file. After a
// large graph launch each cold page costs 0.1 to 0.5 us on the H100 machine (docs/results.md,
// issue 60). Functions on that path that only refuse or fail are [[gnu::cold]] instead.
#pragma once

#define HSAD_HOT [[gnu::hot]]
