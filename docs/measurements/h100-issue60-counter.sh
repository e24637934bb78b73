#!/usr/bin/env bash
# Issue 60, the replayed submit's completion on the queue's count (the graph's last node raises
# it; no driver call of the submit's own besides cuGraphLaunch), on the GPU machine:
#  - the GPU suite with the count (the default), the replay tests and the CUDA interop tests
#    with the event completion before it (HSAD_CUDA_REPLAY_COMPLETION=event);
#  - dispatch-bench --peers, five rounds, each round the count then the event, same session:
#    host time of a replayed submit and end to end, against cudaGraphLaunch in the same run;
#  - jacobi-bench once (device-run loops are graphs too: they now end with the count's node).
# Run from .dev/ after scripts/device-bundle.sh: bash h100-issue60-counter.sh
set -u
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib HSAD_TEST_MODULES_DIR=$PWD/modules HSAD_FAULT_PROBE=$PWD/hsad-fault-probe
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "=== gpu_tests (count)"
./gpu_tests 2>&1 | grep -E "FAILED|PASSED|Failure|error" | head -40
echo "=== gpu_cuda_interop_tests (count)"
./gpu_cuda_interop_tests 2>&1 | grep -E "FAILED|PASSED|Failure" | head -20
echo "=== replay and interop tests (event)"
HSAD_CUDA_REPLAY_COMPLETION=event ./gpu_tests --gtest_filter='GpuReplay.*:GpuDeviceLoop.*' 2>&1 | grep -E "FAILED|PASSED|SKIPPED|Failure" | head -20
HSAD_CUDA_REPLAY_COMPLETION=event ./gpu_cuda_interop_tests 2>&1 | grep -E "FAILED|PASSED|Failure" | head -20
for run in 1 2 3 4 5; do
  for mode in counter event; do
    echo "=== dispatch-bench round $run (replay completion: $mode)"
    HSAD_CUDA_REPLAY_COMPLETION=$mode ./dispatch-bench --backend cuda --opt all --peers --count 1,16,1024 --reps 31 --format csv | grep -v "runtime <<<"
  done
done
echo "=== jacobi-bench"
./jacobi-bench --backend cuda --size 64,128 --reps 5 --peers --verify --check-every 10 --format csv
