#!/usr/bin/env bash
# Issue 60, seventh session, on the GPU machine (run from .dev/ after scripts/device-bundle.sh):
#  - the probes, no library involved: cuGraphLaunch's host time after each kind of host wait
#    (cuda-wait-probe), on each of 8 streams, from each CPU, and two streams alternating
#    (cuda-launch-levels), and each graph shape against the peer's launch, launch by launch
#    (cuda-graph-shapes, the library's own kernels among them);
#  - dispatch-bench --peers, its repetitions alternating with the peer's: five rounds, each the
#    library before this session (lib-before/, where the bundle has one) and after;
#  - the GPU suite, and the load test on cuda (8 and 32 threads, 30 s each).
set -u
cd "$(dirname "$0")"
export HSAD_TEST_MODULES_DIR=$PWD/modules HSAD_FAULT_PROBE=$PWD/hsad-fault-probe
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
lscpu | grep -E "^Model name|^CPU\(s\)|^Hypervisor" || true
echo "=== cuda-wait-probe (median host ns of cuGraphLaunch after each wait, 201 launches a case, 5 rounds)"
./cuda-wait-probe 201 5
echo "=== cuda-launch-levels (one process)"
./cuda-launch-levels 201
echo "=== cuda-graph-shapes (each case's launch over the peer's cudaGraphLaunch just before; 3 processes)"
for i in 1 2 3; do ./cuda-graph-shapes 301 kernels.fatbin; done
bench() { ./dispatch-bench --backend cuda --opt all --peers --count 1,16,1024 --reps ${REPS:-101} --format csv | grep -v "runtime <<<"; }
for run in 1 2 3 4 5; do
  if [ -d lib-before ]; then
    echo "=== dispatch-bench round $run: before (lib-before)"
    LD_LIBRARY_PATH=$PWD/lib-before:$PWD/lib bench
  fi
  echo "=== dispatch-bench round $run: after"
  LD_LIBRARY_PATH=$PWD/lib bench
done
export LD_LIBRARY_PATH=$PWD/lib
echo "=== gpu_tests"
./gpu_tests 2>&1 | grep -E "FAILED|PASSED|Failure" | head -20
echo "=== hsad-load --backend cuda (8 and 32 threads, 30 s each)"
./hsad-load --backend cuda --threads 8 --seconds 30 2>&1 | tail -3
./hsad-load --backend cuda --threads 32 --seconds 30 2>&1 | tail -3
