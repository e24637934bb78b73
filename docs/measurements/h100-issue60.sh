#!/usr/bin/env bash
# Issue 60 on the GPU machine, three runs each, same machine, same session:
#  - what the driver calls of a replayed submit cost alone (cuda-replay-probe, built by
#    scripts/device-bundle.sh from docs/measurements/cuda-replay-probe.cpp);
#  - a replayed submit's host time against cudaGraphLaunch of a graph of the same kernels
#    (dispatch-bench --peers), with each replay completion: a pooled event recorded after the
#    launch (the default), the graph's own write node, a stream write after the launch
#    (HSAD_CUDA_REPLAY_COMPLETION=event|node|stream);
#  - device-run loops against the host loops and the hand-written WHILE graph (jacobi-bench
#    --peers --verify), with the device loop that checks every 10 beside them;
#  - the GPU tests that pin both mechanisms.
# Run from .dev/ after scripts/device-bundle.sh: bash h100-issue60.sh
set -u
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib HSAD_TEST_MODULES_DIR=$PWD/modules HSAD_FAULT_PROBE=$PWD/hsad-fault-probe
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
./gpu_tests --gtest_filter='GpuReplay.*:GpuDeviceLoop.*:Gpu.Replay*' 2>&1 | tail -5
[ -x ./cuda-replay-probe ] && ./cuda-replay-probe 301
for run in 1 2 3; do
  for mode in event node stream; do
    echo "=== dispatch-bench run $run (replay completion: $mode)"
    HSAD_CUDA_REPLAY_COMPLETION=$mode ./dispatch-bench --backend cuda --opt all --peers --count 1,16,1024 --reps 31 --format csv
  done
done
for run in 1 2 3; do
  echo "=== jacobi-bench run $run"
  ./jacobi-bench --backend cuda --size 64,128 --reps 5 --peers --verify --check-every 10 --format csv
done
# Where the machine has two GPUs or more: the solver over two, each in a device-run loop of its
# own (and checking every 10), beside its host loops.
if [ "$(nvidia-smi -L | wc -l)" -ge 2 ]; then
  echo "=== jacobi-bench --devices 2"
  ./jacobi-bench --backend cuda --size 64,128 --reps 5 --devices 2 --check-every 10 --verify --format csv
fi
