#!/usr/bin/env bash
# Issue 43: wave instructions per second per thread on the bitonic ladder under hsad-sim, each
# stand-in library copy in turn as build/default/sim/lib's libhsakmt (the glibc-hwcaps folder moved
# aside meanwhile, so the copy named is the one that runs). Simulated: no AMD number.
# Usage: alternate.sh ROUNDS "TARGETS" LIB...   (env OPTS: hsad-sim options, default "--cache off --sdma off")
set -euo pipefail
rounds=$1 targets=$2; shift 2
cd "$(dirname "$0")/../../.."
L=build/default/sim/lib
saved=$(mktemp -d)
cp "$L/libhsakmt.so.1.0.6" "$saved/base"
[ ! -d "$L/glibc-hwcaps" ] || mv "$L/glibc-hwcaps" "$saved/hwcaps"
restore() { cp "$saved/base" "$L/libhsakmt.so.1.0.6"; [ ! -d "$saved/hwcaps" ] || mv "$saved/hwcaps" "$L/glibc-hwcaps"; rm -rf "$saved"; }
trap restore EXIT
for r in $(seq "$rounds"); do
  for t in $targets; do
    for lib in "$@"; do
      cp "$lib" "$L/libhsakmt.so.1.0.6"
      # shellcheck disable=SC2086
      line=$(build/default/bin/hsad-sim --target "$t" ${OPTS:---cache off --sdma off} --stats -- \
               build/default/apps/bitonic-bench/bitonic-bench --backend rocr --opt all --n 32768 --iters 5 2>&1 >/dev/null |
             grep -o '([0-9.]* million per second per thread[^)]*')
      echo "round $r $t $(basename "$lib") $line)"
    done
  done
done
