# Builds an example the way a user would: installs this build into a scratch prefix, configures
# and builds the example's own CMake project against it, then runs the program (through
# LAUNCHER, e.g. hsad-sim, when given) with ARGS.
# Usage: cmake -DBUILD=dir -DEXAMPLE=src -DWORK=dir [-DLAUNCHER="a;b"] [-DARGS=...] [-DPROGRAM=name] -P run.cmake
# Install (incremental) and build from clean every time: the example follows the library's changes
# (hipcc's dependency files do not name the installed headers, so an incremental build kept a
# program compiled against an older Arg and read its padding as the new field).
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "install failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${EXAMPLE} -B ${WORK}/build -G Ninja -DCMAKE_PREFIX_PATH=${WORK}/prefix
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc)
  message(FATAL_ERROR "configure failed: ${out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build --clean-first RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc)
  message(FATAL_ERROR "build failed: ${out}")
endif()
execute_process(COMMAND ${LAUNCHER} ${WORK}/build/${PROGRAM} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "${out}${err}")
if(rc)
  message(FATAL_ERROR "${PROGRAM} ${ARGS} exited ${rc}: ${out}${err}")
endif()
