#!/usr/bin/env bash
# The ISA interpreter's speed on the simulated GPU (issue: the simulated GPU executes the AMD
# machine code): wave instructions per second, one 32768-key bitonic sort (120 dispatches), one
# 64^3 Laplacian application per kernel. Run from the build folder (build/default) on the
# development machine (2 cores). None of this is an AMD number.
set -euo pipefail
sim=bin/hsad-sim
nproc
for target in gfx90a gfx1030; do
  echo "=== $target, isa: bitonic-bench, 32768 keys"
  $sim --target $target --stats -- apps/bitonic-bench/bitonic-bench --backend rocr --n 32768 --iters 20 --warmup 2
done
echo "=== gfx90a, host builds (for comparison): bitonic-bench, 32768 keys"
$sim --exec host -- apps/bitonic-bench/bitonic-bench --backend rocr --n 32768 --iters 20 --warmup 2
for target in gfx90a gfx1030; do
  echo "=== $target, isa: laplacian-bench 64^3, one application per batch, median of 5"
  for k in 5 6 7 8; do
    for m in 4 8 16; do
      $sim --target $target --stats -- apps/laplacian-bench/laplacian-bench --backend rocr --nx 64 --ny 64 --nz 64 \
        --kernel $k --m $m --iters 1 --reps 5 --verify --format csv 2>&1 | grep -v '^backend'
    done
  done
done
