#!/usr/bin/env bash
# MIOpen 6.4 on the simulated GPU, by hand (not in CI): Debian sid's MIOpen compiles its kernels at
# run time with `/usr/bin/clang++-21 ... -isystem /usr/include`, which breaks libstdc++'s
# `#include_next <math.h>` ("'math.h' file not found"), and names a clang from its build tree for
# its OpenCL kernels. Inside a mount namespace of its own, this puts a clang++-21 in front that
# drops that -isystem, installs libmiopen-dev in the sid root if missing, builds
# tests/hip/miopen_test.hip and runs it under hsad-sim. Needs the sid root (scripts/test-sid.sh) and
# its build (build/sid).
#   bash scripts/miopen-by-hand.sh [gfx90a|gfx908|gfx1030]
set -euo pipefail
cd "$(dirname "$0")/.."
root=${HSAD_SID_ROOT:-/var/cache/hsadispatch/sid-root}
target=${1:-gfx90a}
[ -x build/sid/bin/hsad-sim ] || { echo "miopen-by-hand: build the sid stage first (bash scripts/test-sid.sh)" >&2; exit 1; }
chroot "$root" dpkg-query -W libmiopen-dev >/dev/null 2>&1 ||
  chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends libmiopen-dev >/dev/null
mkdir -p build/sid/miopen "$root/src"
cat >build/sid/miopen/clang++-21 <<'WRAP'
#!/bin/bash
# clang++-21 without "-isystem /usr/include" (the real clang's copy keeps its resource directory)
args=() skip=0
for a in "$@"; do
  if [ $skip = 1 ]; then skip=0; [ "$a" = /usr/include ] || args+=(-isystem "$a"); continue; fi
  if [ "$a" = -isystem ]; then skip=1; continue; fi
  args+=("$a")
done
exec /usr/lib/llvm-21/bin/clang-miopen-by-hand --driver-mode=g++ "${args[@]}"
WRAP
chmod +x build/sid/miopen/clang++-21
cp "$root/usr/lib/llvm-21/bin/clang" "$root/usr/lib/llvm-21/bin/clang-miopen-by-hand"
trap 'rm -f "$root/usr/lib/llvm-21/bin/clang-miopen-by-hand"' EXIT
unshare --mount --propagation private bash -euo pipefail -c '
  root=$1 src=$2 target=$3
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  mount --rbind /sys "$root/sys"
  mount --bind "$src" "$root/src"
  mount --bind "$src/build/sid/miopen/clang++-21" "$root/usr/lib/llvm-21/bin/clang++"
  chroot "$root" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 TMPDIR=/tmp bash -euo pipefail -c "
    cd /src
    hipcc -std=c++17 -O2 --offload-arch=gfx90a --offload-arch=gfx908 --offload-arch=gfx1030 -Itests/support \
      tests/hip/miopen_test.hip -lMIOpen -o build/sid/miopen/miopen_test
    # A fresh find-db and kernel cache each run: a failed compile is remembered otherwise.
    rm -rf /tmp/miopen-by-hand && mkdir -p /tmp/miopen-by-hand/db /tmp/miopen-by-hand/cache
    MIOPEN_USER_DB_PATH=/tmp/miopen-by-hand/db MIOPEN_CUSTOM_CACHE_DIR=/tmp/miopen-by-hand/cache \\
      build/sid/bin/hsad-sim --target $target -- build/sid/miopen/miopen_test 2>&1 | grep -vE \"^In file|^ +[0-9]+ [|]|^ +[|]\" | cut -c1-400
  "
' miopen-by-hand "$root" "$(pwd)" "$target"
