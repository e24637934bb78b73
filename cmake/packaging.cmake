# Debian packages from CPack (scripts/package.sh builds them):
#   libhsadispatch<major>  the shared object
#   libhsadispatch-dev     headers, the CMake package, hsadispatch.pc (and the .so link)
#   hsadispatch-tools      the apps and hsad-sim
# ROCr and libcuda are loaded at run time when present, never linked: they are Suggests.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hsadispatch)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "the hsadispatch developers")
set(CPACK_PACKAGE_CONTACT "hsadispatch developers <hsadispatch-dev@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Cheap sequences of GPU kernel dispatches over ROCr, CUDA and a software HSA agent")
set(CPACK_PACKAGE_DESCRIPTION "libhsadispatch prepares signals, kernarg memory, code objects and pinned buffers once and submits whole batches of AQL packets with one doorbell and one wait, on AMD GPUs (ROCr), NVIDIA GPUs (the CUDA driver) and a software HSA agent on the CPU.")
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_STRIP_FILES ON)  # a RelWithDebInfo build packages without its debug info
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL lib dev tools)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://example.invalid/hsadispatch")
# Dependencies on system libraries from the binaries themselves (dpkg-shlibdeps); the library this
# project builds is not installed yet, so the packages that use it name it below.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR}/runtime ${PROJECT_BINARY_DIR}/sim/lib)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)  # a shlibs file and the ldconfig trigger
set(hsad_lib_package libhsadispatch${PROJECT_VERSION_MAJOR})
set(CPACK_DEBIAN_LIB_PACKAGE_NAME ${hsad_lib_package})
set(CPACK_DEBIAN_LIB_PACKAGE_SUGGESTS "libhsa-runtime64-1, libcuda1")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libhsadispatch-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${hsad_lib_package} (= ${PROJECT_VERSION}), libdlpack-dev")
set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME hsadispatch-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "${hsad_lib_package} (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_TOOLS_PACKAGE_SUGGESTS "libhsa-runtime64-1, libcuda1, openmpi-bin")
set(CPACK_COMPONENT_LIB_DESCRIPTION "the shared object")
set(CPACK_COMPONENT_DEV_DESCRIPTION "headers, CMake package and pkg-config file")
set(CPACK_COMPONENT_TOOLS_DESCRIPTION "bitonic-bench, laplacian-bench, memory-bench, dispatch-bench, jacobi-bench, hsad-info, hsad-sim")
include(CPack)
