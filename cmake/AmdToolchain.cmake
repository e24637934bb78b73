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
#       development files), HSAD_AMD_CLANG_EXE (a newer clang for the targets hipcc does not know) and
#       HSAD_AMD_DEVICE_LIBS (hipcc's device libraries), HSAD_AMDGPU_BUILT_TARGETS (the targets of
#       HSAD_AMDGPU_TARGETS some compiler builds) and HSAD_AMDGPU_{HIPCC,CLANG}[_GENERIC]_TARGETS
#       (which builds which), HSAD_AMDGPU_OFFLOAD_ARCHS (hipcc's, for the HIP programs),
#       HSAD_HIP_PARTIAL_GROUPS_FLAG (for kernels that run in
#       partial work-groups; empty where the compiler makes no whole-group assumption), and
#       hsad_amdgpu_known_targets(OUT targets...).
include_guard(GLOBAL)

# hsad_clang_major(OUT compiler): the major version of the clang `compiler` runs, from the banner its
# --version ends with ("Debian clang version 21.1.8"); empty where it names none. Debian 12's hipcc
# also runs rocm_agent_enumerator, which fails on a machine without /dev/kfd: stderr only.
function(hsad_clang_major out compiler)
  execute_process(COMMAND ${compiler} --version OUTPUT_VARIABLE banner ERROR_QUIET TIMEOUT 60)
  set(major "")
  if(banner MATCHES "clang version ([0-9]+)")
    set(major ${CMAKE_MATCH_1})
  endif()
  set(${out} "${major}" PARENT_SCOPE)
endfunction()

find_program(HSAD_HIPCC hipcc)
set(HSAD_HIP_LLVM_VERSION "")
if(HSAD_HIPCC)
  hsad_clang_major(HSAD_HIP_LLVM_VERSION ${HSAD_HIPCC})
  if(NOT HSAD_HIP_LLVM_VERSION)
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

# The library's code objects: every target asked for that one of the machine's compilers knows.
# hipcc builds what its clang knows (Debian 12's hipcc 5.2: gfx90a, gfx908, gfx1030; sid's hipcc 7
# all of today's GPUs); a newer plain clang (Debian 12's clang-19: gfx942, gfx11xx, gfx12xx and the
# generic targets) builds the rest, with hipcc's HIP headers and device libraries. Generic targets
# exist only in code object v6, so they are compiled apart from the others. gfx940 is not asked for:
# a pre-production MI300 that ROCm 6.3 dropped and LLVM 21 removed (gfx942 is what MI300X reports).
set(HSAD_AMDGPU_TARGETS "gfx90a;gfx908;gfx942;gfx950;gfx1030;gfx1100;gfx1101;gfx1102;gfx1151;gfx1200;gfx1201;gfx9-4-generic;gfx10-3-generic;gfx11-generic;gfx12-generic"
    CACHE STRING "AMD GPU targets to build code objects for")

# The second compiler: the newest clang of a Debian-laid-out LLVM newer than hipcc's, with the
# linker and the bundler its HIP driver runs, looked for at every configure (a clang installed or a
# hipcc upgraded later is seen). HSAD_AMD_CLANG names one by hand (OFF: none).
set(HSAD_AMD_CLANG "" CACHE STRING "A clang newer than hipcc's that builds the AMD targets hipcc does not know (empty: looked for; OFF: none)")
set(HSAD_AMD_CLANG_EXE "${HSAD_AMD_CLANG}")
if(HSAD_AMD_CLANG_EXE STREQUAL "" AND HSAD_HIPCC)
  foreach(v ${hsad_llvm_candidates})
    if(HSAD_HIP_LLVM_VERSION AND v LESS_EQUAL HSAD_HIP_LLVM_VERSION)
      break()
    endif()
    set(bin /usr/lib/llvm-${v}/bin)
    if(EXISTS ${bin}/clang++ AND EXISTS ${bin}/ld.lld AND EXISTS ${bin}/clang-offload-bundler AND EXISTS ${bin}/llvm-as)
      set(HSAD_AMD_CLANG_EXE ${bin}/clang++)
      break()
    endif()
  endforeach()
endif()
if(NOT HSAD_AMD_CLANG_EXE)
  set(HSAD_AMD_CLANG_EXE "")
endif()
set(HSAD_AMD_CLANG_VERSION "")
if(HSAD_AMD_CLANG_EXE)
  hsad_clang_major(HSAD_AMD_CLANG_VERSION ${HSAD_AMD_CLANG_EXE})
  get_filename_component(HSAD_AMD_CLANG_BIN ${HSAD_AMD_CLANG_EXE} DIRECTORY)
endif()

# hsad_clang_knows(OUT clang target): whether `clang` accepts `target` (cached per compiler).
function(hsad_clang_knows out clang target)
  string(MAKE_C_IDENTIFIER "HSAD_KNOWS_${clang}_${target}" key)
  if(NOT DEFINED ${key})
    set(ok OFF)
    if(clang)
      # A processor name with optional features: the driver checks the whole target ID.
      execute_process(COMMAND ${clang} --target=amdgcn-amd-amdhsa -mcpu=${target} -nogpulib -x c -c /dev/null -o /dev/null
                      RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET TIMEOUT 60)
      if(rc EQUAL 0)
        set(ok ON)
      endif()
    endif()
    set(${key} ${ok} CACHE INTERNAL "")
  endif()
  set(${out} ${${key}} PARENT_SCOPE)
endfunction()

# Where hipcc's device libraries are (ockl, ocml and the oclc_* control libraries): the second clang
# links them too. Its HIP headers are under the prefix hipcc is installed in.
set(HSAD_AMD_DEVICE_LIBS "")
set(HSAD_HIP_PREFIX "")
if(HSAD_HIPCC)
  get_filename_component(hipcc_bin ${HSAD_HIPCC} DIRECTORY)
  get_filename_component(HSAD_HIP_PREFIX ${hipcc_bin} DIRECTORY)
  # Debian sid: inside hipcc's LLVM; Debian 12: under the multiarch lib folder; ROCm: /opt/rocm.
  set(hsad_device_lib_dirs "")
  if(HSAD_HIP_LLVM_ROOT)
    file(GLOB hsad_device_lib_dirs ${HSAD_HIP_LLVM_ROOT}/lib/clang/*/amdgcn/bitcode)
  endif()
  file(GLOB more ${HSAD_HIP_PREFIX}/lib/*/amdgcn/bitcode ${HSAD_HIP_PREFIX}/amdgcn/bitcode /opt/rocm/amdgcn/bitcode)
  list(APPEND hsad_device_lib_dirs ${more})
  foreach(dir IN LISTS hsad_device_lib_dirs)
    if(EXISTS ${dir}/ockl.bc)
      set(HSAD_AMD_DEVICE_LIBS ${dir})
      break()
    endif()
  endforeach()
endif()
# Each target asked for goes to the first compiler that knows it, in one of four groups: hipcc's
# and the second clang's, each with its generic targets apart (code object v6).
set(HSAD_AMDGPU_HIPCC_TARGETS "")
set(HSAD_AMDGPU_HIPCC_GENERIC_TARGETS "")
set(HSAD_AMDGPU_CLANG_TARGETS "")
set(HSAD_AMDGPU_CLANG_GENERIC_TARGETS "")
set(HSAD_AMDGPU_SKIPPED_TARGETS "")
foreach(target IN LISTS HSAD_AMDGPU_TARGETS)
  if(target MATCHES "-generic")
    set(suffix _GENERIC)
  else()
    set(suffix "")
  endif()
  if(HSAD_HIPCC)
    hsad_clang_knows(by_hipcc "${HSAD_HIP_CLANG}" ${target})
    hsad_clang_knows(by_clang "${HSAD_AMD_CLANG_EXE}" ${target})
    # hipcc also needs its device libraries to know the processor (hipcc 5.2's clang accepts gfx1100,
    # but ROCm 5.2's libraries have nothing for it); where they were not found, hipcc is trusted.
    string(REGEX REPLACE ":.*" "" processor ${target})  # gfx90a:xnack+ is gfx90a's
    string(REGEX REPLACE "^gfx" "" isa_suffix ${processor})
    if(by_hipcc AND (NOT HSAD_AMD_DEVICE_LIBS OR EXISTS ${HSAD_AMD_DEVICE_LIBS}/oclc_isa_version_${isa_suffix}.bc))
      list(APPEND HSAD_AMDGPU_HIPCC${suffix}_TARGETS ${target})
    elseif(by_clang)
      list(APPEND HSAD_AMDGPU_CLANG${suffix}_TARGETS ${target})
    else()
      list(APPEND HSAD_AMDGPU_SKIPPED_TARGETS ${target})
    endif()
  endif()
endforeach()
set(HSAD_AMDGPU_BUILT_TARGETS ${HSAD_AMDGPU_HIPCC_TARGETS} ${HSAD_AMDGPU_HIPCC_GENERIC_TARGETS}
                              ${HSAD_AMDGPU_CLANG_TARGETS} ${HSAD_AMDGPU_CLANG_GENERIC_TARGETS})

# hsad_amdgpu_known_targets(OUT t...): the targets of t... that hipcc's clang accepts, in order;
# each one it refuses is named once (hipcc 7 no longer knows gfx940, for one). For programs only
# hipcc builds (the apps' HIP peers, the tests' kernels, the examples).
function(hsad_amdgpu_known_targets out)
  set(known "")
  foreach(target IN LISTS ARGN)
    hsad_clang_knows(ok "${HSAD_HIP_CLANG}" ${target})
    if(ok)
      list(APPEND known ${target})
    elseif(NOT HSAD_REFUSAL_NAMED_${target})
      set(HSAD_REFUSAL_NAMED_${target} ON CACHE INTERNAL "")
      message(STATUS "AMD target ${target}: hipcc's clang (${HSAD_HIP_CLANG}) does not know it, so hipcc's programs leave it out")
    endif()
  endforeach()
  set(${out} ${known} PARENT_SCOPE)
endfunction()

# The apps' HIP peers and the examples run on HIP's runtime, built by hipcc: its specific targets.
set(HSAD_AMDGPU_OFFLOAD_ARCHS "")
foreach(target IN LISTS HSAD_AMDGPU_HIPCC_TARGETS)
  list(APPEND HSAD_AMDGPU_OFFLOAD_ARCHS --offload-arch=${target})
endforeach()

if((HSAD_AMDGPU_CLANG_TARGETS OR HSAD_AMDGPU_CLANG_GENERIC_TARGETS) AND NOT HSAD_AMD_DEVICE_LIBS)
  message(STATUS "AMD targets ${HSAD_AMDGPU_CLANG_TARGETS} ${HSAD_AMDGPU_CLANG_GENERIC_TARGETS}: no device libraries "
                 "(ockl.bc) beside hipcc, so clang ${HSAD_AMD_CLANG_VERSION} cannot build them; they are left out")
  list(APPEND HSAD_AMDGPU_SKIPPED_TARGETS ${HSAD_AMDGPU_CLANG_TARGETS} ${HSAD_AMDGPU_CLANG_GENERIC_TARGETS})
  set(HSAD_AMDGPU_CLANG_TARGETS "")
  set(HSAD_AMDGPU_CLANG_GENERIC_TARGETS "")
  set(HSAD_AMDGPU_BUILT_TARGETS ${HSAD_AMDGPU_HIPCC_TARGETS} ${HSAD_AMDGPU_HIPCC_GENERIC_TARGETS})
endif()

if(HSAD_HIPCC)
  message(STATUS "AMD toolchain: hipcc ${HSAD_HIPCC} (clang ${HSAD_HIP_LLVM_VERSION}, ${HSAD_HIP_LLVM_ROOT}); "
                 "hsad-sim's disassembler: LLVM ${HSAD_LLVM_PICKED}")
  string(REPLACE ";" " " by_hipcc "${HSAD_AMDGPU_HIPCC_TARGETS};${HSAD_AMDGPU_HIPCC_GENERIC_TARGETS}")
  string(REPLACE ";" " " by_clang "${HSAD_AMDGPU_CLANG_TARGETS};${HSAD_AMDGPU_CLANG_GENERIC_TARGETS}")
  string(REPLACE ";" " " skipped "${HSAD_AMDGPU_SKIPPED_TARGETS}")
  message(STATUS "AMD code objects: hipcc (clang ${HSAD_HIP_LLVM_VERSION}, device libraries ${HSAD_AMD_DEVICE_LIBS}) builds ${by_hipcc}")
  if(HSAD_AMD_CLANG_EXE)
    message(STATUS "AMD code objects: ${HSAD_AMD_CLANG_EXE} (clang ${HSAD_AMD_CLANG_VERSION}) builds ${by_clang}")
  endif()
  if(HSAD_AMDGPU_SKIPPED_TARGETS)
    set(compilers "hipcc's clang ${HSAD_HIP_LLVM_VERSION}")
    if(HSAD_AMD_CLANG_EXE)
      string(APPEND compilers " and clang ${HSAD_AMD_CLANG_VERSION}")
    else()
      string(APPEND compilers " (and no newer clang: install clang-N, lld-N, llvm-N and clang-tools-N)")
    endif()
    message(STATUS "AMD code objects: left out ${skipped}: ${compilers} do not know them")
  endif()
endif()
