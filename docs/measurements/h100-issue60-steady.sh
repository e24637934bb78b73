#!/usr/bin/env bash
# Issue 60, eleventh session, on the GPU machine (run from .dev/ after scripts/device-bundle.sh; the
# H200 that session): each side timed as it runs in a loop of its own. In the usual pairing the
# library's timed submit follows the peer's launch and cudaStreamSynchronize, and the peer's launch
# follows the library's submit and wait; with --steady each timed repetition follows an untimed one
# of its own side (the repetitions still alternate). Rounds alternate the two, for submit and for
# enqueue. SYNC=1: rounds alternate --steady and --steady --stream-sync instead (the library's
# untimed repetition also synchronizing the stream), enqueue only.
set -u
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bench() { ./dispatch-bench --backend cuda --opt all --peers --count 1,16,1024 --reps ${REPS:-201} --format csv "$@" | grep -v "runtime <<<"; }
for run in $(seq ${ROUNDS:-7}); do
  if [ "${SYNC:-0}" = 1 ]; then
    echo "=== dispatch-bench round $run: steady enqueue";     bench --enqueue --steady
    echo "=== dispatch-bench round $run: steadysync enqueue"; bench --enqueue --steady --stream-sync
    continue
  fi
  echo "=== dispatch-bench round $run: own submit";     bench
  echo "=== dispatch-bench round $run: steady submit";  bench --steady
  echo "=== dispatch-bench round $run: own enqueue";    bench --enqueue
  echo "=== dispatch-bench round $run: steady enqueue"; bench --enqueue --steady
done
