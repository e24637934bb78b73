#!/usr/bin/env bash
# Issue 60, tenth session, on the GPU machine (run from .dev/ after scripts/device-bundle.sh, with
# the previous library, 216ebf1's, copied into .dev/lib-prev/):
#  - the GPU suite and the load test on cuda with this library (not with BENCH_ONLY=1);
#  - five rounds of dispatch-bench --peers, each repetition of cudaGraphLaunch right after one of
#    the library's: in each round this library (lib/) and then the previous one, each its submit
#    (a Submission per submit) and then its enqueue (none; finish waits), so that the machine's
#    drift meets both alike. Measured with an experimental library (6340ef6, reverted: no gain
#    beyond the noise) that wrote everything a bare replay's launch changes before the launch (the
#    count, the ring's note, the queue's counters), the previous one after it.
set -u
cd "$(dirname "$0")"
export HSAD_TEST_MODULES_DIR=$PWD/modules HSAD_FAULT_PROBE=$PWD/hsad-fault-probe
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
lscpu | grep -E "^Model name|^CPU\(s\)|^Hypervisor" || true
if [ "${BENCH_ONLY:-0}" != 1 ]; then
  echo "=== gpu_tests"
  LD_LIBRARY_PATH=$PWD/lib ./gpu_tests 2>&1 | grep -E "FAILED|PASSED|Failure|SKIPPED \]" | head -20
  echo "=== hsad-load --backend cuda (8 and 32 threads, 15 s each)"
  LD_LIBRARY_PATH=$PWD/lib ./hsad-load --backend cuda --threads 8 --seconds 15 2>&1 | tail -3
  LD_LIBRARY_PATH=$PWD/lib ./hsad-load --backend cuda --threads 32 --seconds 15 2>&1 | tail -3
fi
bench() { ./dispatch-bench --backend cuda --opt all --peers --count 1,16,1024 --reps ${REPS:-201} --format csv "$@" | grep -v "runtime <<<"; }
for run in $(seq ${ROUNDS:-5}); do
  for v in lib lib-prev; do
    [ -d "$v" ] || continue
    echo "=== dispatch-bench round $run: $v submit"
    LD_LIBRARY_PATH=$PWD/$v:$PWD/lib bench
    echo "=== dispatch-bench round $run: $v enqueue"
    LD_LIBRARY_PATH=$PWD/$v:$PWD/lib bench --enqueue
  done
done
