#!/usr/bin/env bash
# Issue 60, eighth session, on the GPU machine (run from .dev/ after scripts/device-bundle.sh, with
# the library before the change copied into .dev/lib-before/ and, where compared too, intermediate
# ones into .dev/lib-v1/, .dev/lib-v2/, ...):
#  - dispatch-bench --peers, its repetitions alternating with cudaGraphLaunch's: seven rounds, each
#    every library in turn (lib-before/, lib-v*/, lib/), so that the machine's drift meets all alike;
#  - the GPU suite, and the load test on cuda (8 and 32 threads, 20 s each).
set -u
cd "$(dirname "$0")"
export HSAD_TEST_MODULES_DIR=$PWD/modules HSAD_FAULT_PROBE=$PWD/hsad-fault-probe
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
lscpu | grep -E "^Model name|^CPU\(s\)|^Hypervisor" || true
bench() { ./dispatch-bench --backend cuda --opt all --peers --count 1,16,1024 --reps ${REPS:-201} --format csv | grep -v "runtime <<<"; }
for run in 1 2 3 4 5 6 7; do
  for v in lib-before lib-v*; do
    [ -d "$v" ] || continue
    echo "=== dispatch-bench round $run: $v"
    LD_LIBRARY_PATH=$PWD/$v:$PWD/lib bench
  done
  echo "=== dispatch-bench round $run: after"
  LD_LIBRARY_PATH=$PWD/lib bench
done
export LD_LIBRARY_PATH=$PWD/lib
echo "=== gpu_tests"
./gpu_tests 2>&1 | grep -E "FAILED|PASSED|Failure" | head -20
echo "=== hsad-load --backend cuda (8 and 32 threads, 20 s each)"
./hsad-load --backend cuda --threads 8 --seconds 20 2>&1 | tail -3
./hsad-load --backend cuda --threads 32 --seconds 20 2>&1 | tail -3
