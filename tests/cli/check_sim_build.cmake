# Checks which copy of the ISA interpreter hsad-sim runs, and that each sorts the bitonic ladder:
# the x86-64-v3 copy where it was built and glibc's loader says this CPU has that level (glibc-hwcaps),
# the baseline copy otherwise and whenever GLIBC_TUNABLES takes AVX2 away.
# Usage: cmake -DSIM=hsad-sim -DBENCH=bitonic-bench -DTARGET=gfx1030 -DV3_BUILT=ON|OFF -P check_sim_build.cmake
function(run_ladder tunables want)
  if(tunables)
    set(env ${CMAKE_COMMAND} -E env GLIBC_TUNABLES=${tunables})
  endif()
  execute_process(COMMAND ${env} ${SIM} --target ${TARGET} --stats -- ${BENCH} --backend rocr --n 4096 --iters 1
                          --warmup 0 --format json
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "bitonic-bench under hsad-sim (GLIBC_TUNABLES='${tunables}') exited ${rc}: ${err}")
  endif()
  if(NOT err MATCHES "per second per thread; interpreter built for ([a-z0-9-]+)\\)")
    message(FATAL_ERROR "hsad-sim --stats does not name the interpreter's build: ${err}")
  endif()
  if(NOT CMAKE_MATCH_1 STREQUAL want)
    message(FATAL_ERROR "GLIBC_TUNABLES='${tunables}': the interpreter built for ${CMAKE_MATCH_1} ran, expected ${want}")
  endif()
  string(JSON rows LENGTH "${out}" rows)
  math(EXPR last "${rows} - 1")
  foreach(i RANGE ${last})
    string(JSON sorted GET "${out}" rows ${i} sorted)
    if(NOT sorted STREQUAL "ON")
      message(FATAL_ERROR "the ${want} interpreter left row ${i} unsorted: ${out}")
    endif()
  endforeach()
  message(STATUS "${TARGET}, GLIBC_TUNABLES='${tunables}': the ${want} interpreter sorted ${rows} rows")
endfunction()

# The loader lists the levels this CPU supports: "x86-64-v3 (supported, searched)".
set(want x86-64)
if(V3_BUILT)
  execute_process(COMMAND /lib64/ld-linux-x86-64.so.2 --help OUTPUT_VARIABLE help ERROR_QUIET RESULT_VARIABLE rc)
  if(rc EQUAL 0 AND help MATCHES "x86-64-v3 \\(supported, searched\\)")
    set(want x86-64-v3)
  endif()
endif()
run_ladder("" ${want})
run_ladder("glibc.cpu.hwcaps=-AVX2" x86-64)
