#!/usr/bin/env bash
# Installs the Debian 12 packages the build and the tests need. Idempotent: does nothing when
# every package is already there. Needs root (or sudo) the first time.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  libboost-program-options-dev   # the apps' command lines
  libgtest-dev                   # the test suite
  libdlpack-dev                  # DLPack's header: hsad/dlpack.hpp (tensors in and out)
  libmsgpack-cxx-dev             # msgpack-c's C++ API: AMD code-object metadata
  libhsa-runtime-dev             # ROCr: headers for the AQL types, and the runtime the rocr backend dlopens
  hipcc rocm-device-libs         # the AMD code objects hipcc 5.2 knows (gfx90a, gfx908, gfx1030)
  clang-19 lld-19 llvm-19 clang-tools-19  # ... and those it does not: gfx942, gfx11xx, gfx12xx, the generic targets
  llvm-15 lld-15                 # llvm-readelf (independent check of the reader), the v5 test code object
  llvm-15-dev                    # the AMDGPU disassembler the simulated GPU's ISA interpreter decodes with (tests)
  libdrm-dev                     # libdrm's amdgpu.h: the types of the libdrm calls the simulated GPU answers (tests)
  rocminfo                       # AMD's own tool, run under hsad-sim by the tests
  librocrand-dev libhiprand-dev  # AMD's own libraries, run under hsad-sim by the tests (label amd-libs)
  librocsparse-dev libhipsparse-dev librocprim-dev  # ... and rocSPARSE, hipSPARSE, rocPRIM (headers)
  libopenmpi-dev openmpi-bin     # laplacian-bench --mpi and its tests (optional: without MPI it is left out)
  dpkg-dev file                  # CPack's Debian packages: dpkg-shlibdeps for their dependencies
  debootstrap                    # scripts/test-sid.sh: the Debian sid root of the current-ROCm stage
  python3-matplotlib             # scripts/plot.py: the benches' JSON as SVG
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
