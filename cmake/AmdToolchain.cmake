# The AMD toolchain, found by version: hipcc, the LLVM it compiles with (its llc, lld, llvm-readelf
# and clang++, for the tests' code object v5 kernels and the ISA tests), the LLVM whose AMDGPU
# disassembler hsad-sim's interpreter links, and the GPU targets that compiler knows.
#
# Debian 12's hipcc 5.2 runs clang 15 (/usr/lib/llvm-15), sid's hipcc 7.0.2 clang 21
# (/usr/lib/llvm-21); neither is the plain `clang++` on PATH (Debian 12's is clang 14). A tool of
# another LLVM than hipcc's cannot read its bitcode, so all of them come from hipcc's.
#
# Sets: HSAD_HIPCC (empty without hipcc), HSAD_HIP_LLVM_VERSION, HSAD_HIP_LLVM_ROOT,
#       HSAD_HIP_CLANG, HSAD_HIP_LLC, HSAD_HIP_LLD, HSAD_HIP_READELF (empty where absent),
#       HSAD_LLVM_VERSION / HSAD_LLVM_ROOT (the interpreter's LLVM; empty where none has its
#       development files), HSAD_AMDGPU_BUILT_TARGETS and HSAD_AMDGPU_OFFLOAD_ARCHS (the targets
#       of HSAD_AMDGPU_TARGETS hipcc knows), HSAD_HIP_PARTIAL_GROUPS_FLAG (for kernels that run in
#       partial work-groups; empty where the compiler makes no whole-group assumption), and
#       hsad_amdgpu_known_targets(OUT targets...).
include_guard(GLOBAL)

find_program(HSAD_HIPCC hipcc)
set(HSAD_HIP_LLVM_VERSION "")
if(HSAD_HIPCC)
  # hipcc --version ends with its clang's banner ("Debian clang version 21.1.8"). Debian 12's
  # hipcc also runs rocm_agent_enumerator, which fails on a machine without /dev/kfd: stderr only.
  execute_process(COMMAND ${HSAD_HIPCC} --version OUTPUT_VARIABLE hipcc_version ERROR_QUIET TIMEOUT 60)
  if(hipcc_version MATCHES "clang version ([0-9]+)")
    set(HSAD_HIP_LLVM_VERSION ${CMAKE_MATCH_1})
  else()
    message(WARNING "hipcc --version names no clang version; the AMD tools are looked for on PATH")
  endif()
endif()

# The LLVM installations Debian lays out as /usr/lib/llvm-N, newest first.
set(hsad_llvm_candidates "")
foreach(v RANGE 30 15 -1)
  if(EXISTS /usr/lib/llvm-${v}/bin)
    list(APPEND hsad_llvm_candidates ${v})
  endif()
endforeach()

if(HSAD_HIP_LLVM_VERSION AND EXISTS /usr/lib/llvm-${HSAD_HIP_LLVM_VERSION}/bin)
  set(HSAD_HIP_LLVM_ROOT /usr/lib/llvm-${HSAD_HIP_LLVM_VERSION})
  set(hip_tool_paths PATHS ${HSAD_HIP_LLVM_ROOT}/bin NO_DEFAULT_PATH)
else()
  set(HSAD_HIP_LLVM_ROOT "")
  set(hip_tool_paths "")
endif()
find_program(HSAD_HIP_CLANG NAMES clang++ ${hip_tool_paths})
find_program(HSAD_HIP_LLC NAMES llc ${hip_tool_paths})
find_program(HSAD_HIP_LLD NAMES ld.lld ${hip_tool_paths})
find_program(HSAD_HIP_READELF NAMES llvm-readelf ${hip_tool_paths})
foreach(tool HSAD_HIP_CLANG HSAD_HIP_LLC HSAD_HIP_LLD HSAD_HIP_READELF)
  if(NOT ${tool})
    set(${tool} "")
  endif()
endforeach()

# The interpreter's LLVM: hipcc's where its development files are installed (it must decode what
# that compiler emits), else the newest that has them. HSAD_LLVM_VERSION picks one by hand.
set(HSAD_LLVM_VERSION "" CACHE STRING "LLVM major version whose AMDGPU disassembler hsad-sim links (empty: hipcc's, else the newest with llvm-N-dev)")
set(hsad_llvm_pick "${HSAD_LLVM_VERSION}")
if(NOT hsad_llvm_pick)
  foreach(v ${HSAD_HIP_LLVM_VERSION} ${hsad_llvm_candidates})
    if(EXISTS /usr/lib/llvm-${v}/include/llvm-c/Disassembler.h)
      set(hsad_llvm_pick ${v})
      break()
    endif()
  endforeach()
endif()
if(hsad_llvm_pick AND EXISTS /usr/lib/llvm-${hsad_llvm_pick}/include/llvm-c/Disassembler.h)
  set(HSAD_LLVM_ROOT /usr/lib/llvm-${hsad_llvm_pick})
  set(HSAD_LLVM_PICKED ${hsad_llvm_pick})
else()
  set(HSAD_LLVM_ROOT "")
  set(HSAD_LLVM_PICKED "")
endif()

# hsad_amdgpu_known_targets(OUT t...): the targets of t... that hipcc's clang accepts, in order;
# each one it refuses is named once (hipcc 7 no longer knows gfx940, for one).
function(hsad_amdgpu_known_targets out)
  set(known "")
  foreach(target IN LISTS ARGN)
    string(MAKE_C_IDENTIFIER "HSAD_CLANG_KNOWS_${target}" key)
    if(NOT DEFINED ${key})
      set(ok OFF)
      if(HSAD_HIP_CLANG)
        # A processor name with optional features: the driver checks the whole target ID.
        execute_process(COMMAND ${HSAD_HIP_CLANG} --target=amdgcn-amd-amdhsa -mcpu=${target} -nogpulib -x c -c
                                /dev/null -o /dev/null
                        RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET TIMEOUT 60)
        if(rc EQUAL 0)
          set(ok ON)
        endif()
      endif()
      set(${key} ${ok} CACHE INTERNAL "")
      if(NOT ok)
        message(STATUS "AMD target ${target}: hipcc's clang (${HSAD_HIP_CLANG}) does not know it, so it is left out")
      endif()
    endif()
    if(${key})
      list(APPEND known ${target})
    endif()
  endforeach()
  set(${out} ${known} PARENT_SCOPE)
endfunction()

# HIP kernels meant for partial work-groups (Batch::exec_partial_groups): clang 17 and later assume
# whole work-groups unless told otherwise (-fno-offload-uniform-block), and then read blockDim and
# gridDim as if every group were whole (the code object says `.uniform_work_group_size: 1`).
# clang 15 (hipcc 5.2) has no such assumption and no such flag.
set(HSAD_HIP_PARTIAL_GROUPS_FLAG "")
if(HSAD_HIP_CLANG)
  execute_process(COMMAND ${HSAD_HIP_CLANG} -x hip --cuda-device-only --offload-arch=gfx90a -nogpuinc -nogpulib
                          -fno-offload-uniform-block -fsyntax-only /dev/null
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET TIMEOUT 60)
  if(rc EQUAL 0)
    set(HSAD_HIP_PARTIAL_GROUPS_FLAG -fno-offload-uniform-block)
  endif()
endif()

# The library's code objects, the apps' HIP peers and the examples: every target asked for that
# hipcc's compiler knows.
set(HSAD_AMDGPU_TARGETS "gfx90a;gfx908;gfx940;gfx1030" CACHE STRING "AMD GPU targets to build code objects for")
hsad_amdgpu_known_targets(HSAD_AMDGPU_BUILT_TARGETS ${HSAD_AMDGPU_TARGETS})
set(HSAD_AMDGPU_OFFLOAD_ARCHS "")
foreach(target IN LISTS HSAD_AMDGPU_BUILT_TARGETS)
  list(APPEND HSAD_AMDGPU_OFFLOAD_ARCHS --offload-arch=${target})
endforeach()

if(HSAD_HIPCC)
  message(STATUS "AMD toolchain: hipcc ${HSAD_HIPCC} (clang ${HSAD_HIP_LLVM_VERSION}, ${HSAD_HIP_LLVM_ROOT}); "
                 "hsad-sim's disassembler: LLVM ${HSAD_LLVM_PICKED}; targets ${HSAD_AMDGPU_BUILT_TARGETS}")
endif()
