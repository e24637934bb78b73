#!/usr/bin/env bash
# Issue 60 (tenth and eleventh sessions), on the GPU machine (run from .dev/ after
# scripts/device-bundle.sh): does what precedes each timed launch bias dispatch-bench's pairing? In
# the usual pairing the library's submit follows the CUDA peer's cudaStreamSynchronize and the peer's
# launch follows the library's wait. Each round runs two pairings in turn, the first argument saying
# which (ROUNDS rounds, REPS repetitions):
#   stream-sync  the usual one, and --stream-sync (the library waits with cudaStreamSynchronize on
#                its queue's stream first, as the peer does); submit and enqueue
#   steady       the usual one, and --steady (each side's timed repetition follows an untimed one of
#                its own, as in a loop of its own); submit and enqueue
#   steady-sync  --steady, and --steady --stream-sync; enqueue
set -u
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib
pairing=${1:-}
case "$pairing" in
  stream-sync) other=streamsync; flags=(--stream-sync); modes=(submit enqueue) ;;
  steady) other=steady; flags=(--steady); modes=(submit enqueue) ;;
  steady-sync) other=steadysync; flags=(--steady --stream-sync); modes=(enqueue) ;;
  *) echo "usage: $0 stream-sync | steady | steady-sync" >&2; exit 2 ;;
esac
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bench() { ./dispatch-bench --backend cuda --opt all --peers --count 1,16,1024 --reps ${REPS:-201} --format csv "$@" | grep -v "runtime <<<"; }
for run in $(seq ${ROUNDS:-7}); do
  for mode in "${modes[@]}"; do
    m=(); [ "$mode" = enqueue ] && m=(--enqueue)
    if [ "$pairing" = steady-sync ]; then
      echo "=== dispatch-bench round $run: steady $mode"; bench "${m[@]}" --steady
    else
      echo "=== dispatch-bench round $run: own $mode"; bench "${m[@]}"
    fi
    echo "=== dispatch-bench round $run: $other $mode"; bench "${m[@]}" "${flags[@]}"
  done
done
