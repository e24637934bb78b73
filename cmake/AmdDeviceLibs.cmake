# hsad_amd_device_libs(OUT clang targets...): a directory of device libraries a newer clang can
# build `targets` with: hipcc's own (ockl, ocml, the oclc_* control libraries), plus each control
# library they lack, made here. Debian 12's device libraries are ROCm 5.2's: they have no
# oclc_isa_version_942.bc, none for gfx11, gfx12 or the generic targets, and no
# oclc_abi_version_600.bc (code object v6), and clang's HIP driver refuses a target without them.
# Each is one constant (the ISA version, or the code object ABI) that ockl and ocml read; the
# rest of the libraries is the same code for every target, read by the newer LLVM as bitcode of an
# older one. Where hipcc's libraries have a file, it is used as is.
include_guard(GLOBAL)

# The number AMD's device libraries give a processor: major * 1000 + minor * 100 + stepping
# (gfx90a: 9010, gfx942: 9402, gfx1151: 11501); a generic target has its family's first member's.
function(hsad_amd_isa_version out target)
  string(REGEX REPLACE ":.*" "" target ${target})  # gfx90a:xnack+ is gfx90a's
  if(target MATCHES "^gfx([0-9]+)-([0-9])-generic$")
    math(EXPR v "${CMAKE_MATCH_1} * 1000 + ${CMAKE_MATCH_2} * 100")
  elseif(target MATCHES "^gfx([0-9]+)-generic$")
    math(EXPR v "${CMAKE_MATCH_1} * 1000")
  elseif(target MATCHES "^gfx([0-9]+)([0-9a-f])([0-9a-f])$")
    math(EXPR v "${CMAKE_MATCH_1} * 1000 + 0x${CMAKE_MATCH_2} * 100 + 0x${CMAKE_MATCH_3}")
  else()
    message(FATAL_ERROR "hsad_amd_isa_version: '${target}' is not an AMD processor name")
  endif()
  set(${out} ${v} PARENT_SCOPE)
endfunction()

function(hsad_amd_device_libs out clang)
  get_filename_component(bin ${clang} DIRECTORY)
  set(dir ${CMAKE_BINARY_DIR}/amdgcn-bitcode)
  file(MAKE_DIRECTORY ${dir})
  # Links to hipcc's libraries, made again each time (they may have moved); what is made here stays.
  file(GLOB old_links LIST_DIRECTORIES false ${dir}/*.bc)
  foreach(link IN LISTS old_links)
    if(IS_SYMLINK ${link})
      file(REMOVE ${link})
    endif()
  endforeach()
  file(GLOB libs ${HSAD_AMD_DEVICE_LIBS}/*.bc)
  foreach(lib IN LISTS libs)
    get_filename_component(name ${lib} NAME)
    if(NOT EXISTS ${dir}/${name})
      file(CREATE_LINK ${lib} ${dir}/${name} SYMBOLIC)
    endif()
  endforeach()
  # The control constants must carry this clang's data layout, or its linker warns on every one.
  execute_process(COMMAND ${clang} -x c --target=amdgcn-amd-amdhsa -nogpulib -S -emit-llvm -o - /dev/null
                  OUTPUT_VARIABLE ir ERROR_QUIET TIMEOUT 60)
  string(REGEX MATCH "target datalayout = \"[^\"]*\"" layout "${ir}")
  set(wanted "")
  foreach(target IN LISTS ARGN)
    hsad_amd_isa_version(v ${target})
    string(REGEX REPLACE ":.*" "" processor ${target})
    string(REGEX REPLACE "^gfx" "" suffix ${processor})
    list(APPEND wanted "oclc_isa_version_${suffix}:__oclc_ISA_version:${v}")
  endforeach()
  list(APPEND wanted "oclc_abi_version_600:__oclc_ABI_version:600")
  foreach(item IN LISTS wanted)
    string(REPLACE ":" ";" parts ${item})
    list(GET parts 0 name)
    list(GET parts 1 symbol)
    list(GET parts 2 value)
    if(EXISTS ${HSAD_AMD_DEVICE_LIBS}/${name}.bc)
      continue()
    endif()
    # Assembled again only when its text changes (another clang, another data layout), so that a
    # configure does not rebuild the code objects that link it.
    string(CONCAT text "; made by cmake/AmdDeviceLibs.cmake for ${clang}\n${layout}\ntarget triple = \"amdgcn-amd-amdhsa\"\n"
           "@${symbol} = linkonce_odr protected local_unnamed_addr addrspace(4) constant i32 ${value}, align 4\n")
    set(old_text "")
    if(EXISTS ${dir}/${name}.ll)
      file(READ ${dir}/${name}.ll old_text)
    endif()
    if(old_text STREQUAL text AND EXISTS ${dir}/${name}.bc AND NOT IS_SYMLINK ${dir}/${name}.bc)
      continue()
    endif()
    file(REMOVE ${dir}/${name}.bc)
    file(WRITE ${dir}/${name}.ll "${text}")
    execute_process(COMMAND ${bin}/llvm-as ${dir}/${name}.ll -o ${dir}/${name}.bc RESULT_VARIABLE rc TIMEOUT 60)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "llvm-as could not make ${dir}/${name}.bc")
    endif()
  endforeach()
  set(${out} ${dir} PARENT_SCOPE)
endfunction()
