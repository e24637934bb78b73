#!/usr/bin/env bash
# Issue 60, tenth session, on the GPU machine (run from .dev/ after scripts/device-bundle.sh): does
# what precedes each timed launch bias the paired comparison? In dispatch-bench --peers the library's
# submit follows the peer's cudaStreamSynchronize, and the peer's launch follows the library's own
# wait; with --stream-sync the library's repetitions wait with cudaStreamSynchronize on the queue's
# stream first, as the peer's do. Rounds alternate the two, for submit and for enqueue.
set -u
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bench() { ./dispatch-bench --backend cuda --opt all --peers --count 1,16,1024 --reps ${REPS:-201} --format csv "$@" | grep -v "runtime <<<"; }
for run in $(seq ${ROUNDS:-7}); do
  echo "=== dispatch-bench round $run: own submit";        bench
  echo "=== dispatch-bench round $run: streamsync submit";  bench --stream-sync
  echo "=== dispatch-bench round $run: own enqueue";       bench --enqueue
  echo "=== dispatch-bench round $run: streamsync enqueue"; bench --enqueue --stream-sync
done
