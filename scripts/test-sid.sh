#!/usr/bin/env bash
# The current-ROCm stage: the project built and tested inside a Debian sid root, with sid's own
# toolchain (gcc 16, CMake 4, Boost 1.92, GoogleTest 1.18, hipcc 7.0.2 on clang 21) against ROCr
# 6.4.3 (its thunk linked in), HIP 6.4.3, rocminfo 7.2.4 and AMD's 6.4 libraries, all run on
# hsad-sim through the same front door as ROCr 5.2 on Debian 12 (the kernel's interface).
#
#   bash scripts/test-sid.sh            # make or reuse the root, build, run the labels below
#
# The root is made once with debootstrap and reused while it is complete (its stamp lists the
# packages it holds); HSAD_SID_ROOT puts it elsewhere. Needs root (chroot, mounts) and the network.
# The build lives in build/sid of this tree, which is bind-mounted into the root at /src.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)
root=${HSAD_SID_ROOT:-/var/cache/hsadispatch/sid-root}
mirror=${HSAD_SID_MIRROR:-http://deb.debian.org/debian}
labels=${HSAD_SID_LABELS:-'^(unit|rocr|hsad-sim|hip|amd-libs)$'}

packages=(
  cmake ninja-build g++ pkg-config file
  libboost-program-options-dev libgtest-dev libdlpack-dev libmsgpack-cxx-dev
  libhsa-runtime-dev             # ROCr 6.4.3, the thunk inside it
  hipcc libamdhip64-dev          # hipcc 7.0.2 (clang 21) and HIP 6.4.3
  llvm-21 llvm-21-dev lld-21     # hipcc's LLVM: llc, lld, llvm-readelf, and the disassembler hsad-sim links
  libdrm-dev                     # the libdrm calls hsad-sim answers
  rocminfo                       # 7.2.4, run under hsad-sim
  librocrand-dev libhiprand-dev librocsparse-dev libhipsparse-dev librocprim-dev  # label amd-libs
  librocblas-dev libhipblas-dev  # label amd-libs: rocBLAS 6.4 (281 MB; its Tensile kernels use the matrix cores)
  librocsolver-dev               # label amd-libs: rocSOLVER 6.4 (530 MB)
  librocfft-dev libhipfft-dev    # label amd-libs: rocFFT 6.4, whose kernels are compiled at run time (hipRTC)
)

if [ "$(id -u)" -ne 0 ]; then
  echo "test-sid: needs root (debootstrap, chroot, mounts)" >&2
  exit 1
fi
command -v debootstrap >/dev/null || { echo "test-sid: debootstrap is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }

stamp="$root/etc/hsadispatch-root"
want="${packages[*]}"
t0=$(date +%s)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "=== sid: reusing the root at $root"
else
  if [ ! -f "$root/etc/hsadispatch-debootstrap" ]; then
    echo "=== sid: debootstrap into $root"
    rm -rf "$root"
    mkdir -p "$root"
    debootstrap --variant=minbase sid "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
      { tail -20 "$root.debootstrap.log" >&2; echo "test-sid: debootstrap failed (log: $root.debootstrap.log)" >&2; exit 1; }
    # The mirror's sid is a dated snapshot: its Release files are past their Valid-Until.
    echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99hsadispatch-snapshot"
    touch "$root/etc/hsadispatch-debootstrap"
  fi
  echo "=== sid: installing ${#packages[@]} packages"
  chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
  chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${packages[@]}" \
    >"$root.apt.log" 2>&1 || { tail -20 "$root.apt.log" >&2; echo "test-sid: apt-get failed (log: $root.apt.log)" >&2; exit 1; }
  chroot "$root" apt-get clean
  echo "$want" >"$stamp"
fi
echo "=== sid: root ready in $(( $(date +%s) - t0 )) s: $(chroot "$root" dpkg-query -W -f='ROCr ${Version}' libhsa-runtime64-1), $(chroot "$root" dpkg-query -W -f='hipcc ${Version}' hipcc)"

# In a mount namespace of its own: /proc, /dev and /sys as on a machine, and this tree at
# /src; all of it goes away with the namespace. hsad-sim's topology is written under the root's /tmp.
mkdir -p "$root/src"
unshare --mount --propagation private bash -euo pipefail -c '
  root=$1 src=$2 labels=$3 jobs=$4
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  mount --rbind /sys "$root/sys"
  mount --bind "$src" "$root/src"
  chroot "$root" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 TMPDIR=/tmp LABELS="$labels" JOBS="$jobs" \
    bash -euo pipefail -c "
    cd /src
    echo \"=== sid: configure, build (\$(g++ --version | head -1), \$(cmake --version | head -1))\"
    cmake --preset sid >/dev/null
    cmake --build --preset sid
    echo \"=== sid: tests, labels \$LABELS\"
    ctest --preset sid -L \"\$LABELS\" -j \$JOBS
  "
' test-sid "$root" "$src" "$labels" "$(nproc)"
echo "=== sid: passed in $(( $(date +%s) - t0 )) s"
