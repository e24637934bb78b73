#!/usr/bin/env bash
# Issue 60, ninth session, on the GPU machine (run from .dev/ after scripts/device-bundle.sh):
#  - dispatch-bench --peers, its repetitions alternating with cudaGraphLaunch's, seven rounds, each
#    the library's submit (a Submission per submit) and then its enqueue (none; finish waits), so that
#    the machine's drift meets both alike;
#  - the GPU suite, and the load test on cuda (8 and 32 threads, 20 s each); not with BENCH_ONLY=1.
set -u
cd "$(dirname "$0")"
export HSAD_TEST_MODULES_DIR=$PWD/modules HSAD_FAULT_PROBE=$PWD/hsad-fault-probe LD_LIBRARY_PATH=$PWD/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
lscpu | grep -E "^Model name|^CPU\(s\)|^Hypervisor" || true
bench() { ./dispatch-bench --backend cuda --opt all --peers --count 1,16,1024 --reps ${REPS:-201} --format csv "$@" | grep -v "runtime <<<"; }
for run in 1 2 3 4 5 6 7; do
  echo "=== dispatch-bench round $run: submit"
  bench
  echo "=== dispatch-bench round $run: enqueue"
  bench --enqueue
done
[ "${BENCH_ONLY:-0}" = 1 ] && exit 0
echo "=== gpu_tests"
./gpu_tests 2>&1 | grep -E "FAILED|PASSED|Failure|SKIPPED \]" | head -20
echo "=== hsad-load --backend cuda (8 and 32 threads, 20 s each)"
./hsad-load --backend cuda --threads 8 --seconds 20 2>&1 | tail -3
./hsad-load --backend cuda --threads 32 --seconds 20 2>&1 | tail -3
