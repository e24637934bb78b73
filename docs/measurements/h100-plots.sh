#!/usr/bin/env bash
# The JSON behind docs/img/ (issue 25): the ladder with the CUDA peers, the Laplacian's kernels
# at two sizes, memory-bench's workloads, on the GPU machine. Run from .dev/ after
# scripts/device-bundle.sh: bash h100-plots.sh OUTDIR; then on the build machine
#   python3 scripts/plot.py OUTDIR/ladder-cuda.json ladder-cpu.json -o docs/img/ladder.svg  (and so on)
set -eu
cd "$(dirname "$0")"
out=${1:?an output folder}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
./bitonic-bench --backend cuda --opt all --peers --format json > "$out/ladder-cuda.json"
rows=()
for size in 256 512; do
  for k in 5 6 7 8; do
    ./laplacian-bench --backend cuda --nx $size --ny $size --nz $size --kernel $k --format json > "$out/lap-$size-$k.json"
  done
done
./memory-bench --backend cuda --format json > "$out/memory-cuda.json"
ls -l "$out"
