#!/usr/bin/env bash
# Issue 44 on the H100: jacobi-bench's device-run loop against the host loops and the CUDA peers
# (host loops, a hand-written WHILE graph), three alternating runs. 64^3 and 128^3 solve to
# --tol 1e-4 (2023 and about 8000 iterations); 512^3, where launches cost nothing beside the
# sweeps, to 7e-3 (about 100 iterations). Run from .dev/ (scripts/device-bundle.sh); CSV to $OUT.
set -euo pipefail
out=${OUT:-.}
for r in 1 2 3; do
  ./jacobi-bench --backend cuda --size 64,128 --reps 5 --peers $([ $r = 1 ] && echo --verify) --format csv \
    > "$out/h100-jacobi-small-run$r.csv"
  ./jacobi-bench --backend cuda --size 512 --tol 7e-3 --reps 3 --peers --format csv > "$out/h100-jacobi-512-run$r.csv"
done
