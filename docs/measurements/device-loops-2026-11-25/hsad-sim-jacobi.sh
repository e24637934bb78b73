#!/usr/bin/env bash
# Issue 44 under hsad-sim (gfx90a, machine code; host time only, no AMD number): jacobi-bench's
# device-run loop against its host loops and HIP's, three runs. Only the host CPU time per
# iteration (the calling thread's) is a real figure here. Run from the repository root after
# building build/default; CSV beside this script.
set -euo pipefail
b=build/default
here=$(dirname "$0")
for r in 1 2 3; do
  $b/bin/hsad-sim -- $b/apps/jacobi-bench/jacobi-bench --backend rocr --size 16,24 --reps 3 --peers --format csv \
    > "$here/hsad-sim-jacobi-run$r.csv"
done
