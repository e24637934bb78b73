#!/usr/bin/env bash
# Builds the Debian packages (cmake/packaging.cmake) into build/package/:
#   libhsadispatch<major>_<version>_<arch>.deb, libhsadispatch-dev_..., hsadispatch-tools_...
# A Release build under /usr (the `package` preset), or an existing preset's build (the test
# stage reuses `default`, also under /usr); only what the packages hold is built.
#   bash scripts/package.sh [PRESET]   # then: sudo apt-get install ./build/PRESET/*.deb
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-package}
cmake --preset "$preset" >/dev/null
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "build/$preset/CMakeCache.txt")
[ "$prefix" = /usr ] || { echo "package.sh: build/$preset installs under '$prefix', not /usr" >&2; exit 1; }
targets=(hsadispatch bitonic-bench laplacian-bench memory-bench dispatch-bench jacobi-bench hsad-info)
# hsad-sim's library, where the build has it (ROCm, LLVM and libdrm-dev present).
# (The list is read whole first: `| grep -q` under pipefail fails when grep leaves before the last write.)
if grep -q '^hsad_sim:' <<<"$(cmake --build --preset "$preset" --target help)"; then targets+=(hsad_sim); fi
cmake --build --preset "$preset" --target "${targets[@]}"
(cd "build/$preset" && rm -f ./*.deb && cpack -G DEB >/dev/null)
ls -1 "build/$preset"/*.deb
