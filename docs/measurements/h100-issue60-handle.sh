#!/usr/bin/env bash
# Issue 60, fourteenth session, on the GPU machine (run from .dev/ after scripts/device-bundle.sh):
# what does a replayed submit's Submission handle cost beside Queue::enqueue (none)? In each round
# (ROUNDS, REPS repetitions), in turn: this library's submit, each experimental library's submit
# (VARIANTS: directories of .dev/ holding one; docs/measurements/issue60-2026-11-28-fourteenth/
# handle-experiments.diff has their code), the submit of an older dispatch-bench (OLD_BENCH: a
# binary of .dev/), this library's enqueue (and each experimental one's, where VARIANT_ENQUEUE=1);
# each in dispatch-bench's usual pairing with
# cudaGraphLaunch, and with --steady too where STEADY=1.
set -u
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
lscpu | grep -E "^Model name|^CPU\(s\)|^Hypervisor" || true
bench() { "$b" --backend cuda --opt all --peers --count 1,16,1024 --reps ${REPS:-201} --format csv "$@" | grep -v "runtime <<<"; }
for run in $(seq ${ROUNDS:-7}); do
  for s in usual ${STEADY:+steady}; do
    f=(); [ "$s" = steady ] && f=(--steady)
    b=./dispatch-bench
    echo "=== dispatch-bench round $run: lib submit $s"; LD_LIBRARY_PATH=$PWD/lib bench "${f[@]}"
    for v in ${VARIANTS:-}; do
      echo "=== dispatch-bench round $run: $v submit $s"; LD_LIBRARY_PATH=$PWD/$v:$PWD/lib bench "${f[@]}"
      [ -n "${VARIANT_ENQUEUE:-}" ] || continue
      echo "=== dispatch-bench round $run: $v enqueue $s"; LD_LIBRARY_PATH=$PWD/$v:$PWD/lib bench --enqueue "${f[@]}"
    done
    if [ -n "${OLD_BENCH:-}" ]; then
      b=./$OLD_BENCH
      echo "=== dispatch-bench round $run: $OLD_BENCH submit $s"; LD_LIBRARY_PATH=$PWD/lib bench "${f[@]}"
      b=./dispatch-bench
    fi
    echo "=== dispatch-bench round $run: lib enqueue $s"; LD_LIBRARY_PATH=$PWD/lib bench --enqueue "${f[@]}"
  done
done
