#!/usr/bin/env bash
# Issue 60, eleventh session, on the GPU machine (from .dev/ after scripts/device-bundle.sh): with
# each side in a loop of its own (--steady), does the library's launch get cheaper when its own
# repetition waits with cudaStreamSynchronize first (--stream-sync), as the CUDA peer's does? Rounds
# alternate --steady and --steady --stream-sync, enqueue.
set -u
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bench() { ./dispatch-bench --backend cuda --opt all --peers --count 1,16,1024 --reps ${REPS:-201} --format csv "$@" | grep -v "runtime <<<"; }
for run in $(seq ${ROUNDS:-7}); do
  echo "=== dispatch-bench round $run: steady enqueue";     bench --enqueue --steady
  echo "=== dispatch-bench round $run: steadysync enqueue"; bench --enqueue --steady --stream-sync
done
