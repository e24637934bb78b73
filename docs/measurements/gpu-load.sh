#!/usr/bin/env bash
# Issue 56 on the GPU machine: hsad-load (tests/load) three times for 60 s with 8 threads and with
# 32, each a different seed, as JSON lines; then, where the bundle carries it, the same load (8
# threads, 20 s) linked against the library before the capture moved to a stream of its own
# (hsad-load-before, built from 1ff2e57 with this load test). Run from .dev/ after
# scripts/device-bundle.sh: bash gpu-load.sh
set -u
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for run in 1 2 3; do
  for threads in 8 32; do
    ./hsad-load --backend cuda --threads "$threads" --seconds 60 --seed "$run$threads" --format json
    echo "rc=$? run=$run threads=$threads"
  done
done
if [ -x ./hsad-load-before ]; then
  for run in 1 2; do
    ./hsad-load-before --backend cuda --threads 8 --seconds 20 --seed "$run" --format json
    echo "rc=$? before, run=$run"
  done
fi
