#!/usr/bin/env bash
# Issue 24 on the GPU machine: the recovery cases of the GPU suite (each a child process of
# gpu_tests running hsad-fault-probe), then each probe case on its own with its output, then the
# whole GPU suite. Run from .dev/ after scripts/device-bundle.sh: bash h100-recovery.sh
set -u
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib HSAD_TEST_MODULES_DIR=$PWD/modules HSAD_FAULT_PROBE=$PWD/hsad-fault-probe
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
./gpu_tests --gtest_filter='GpuRecovery.*'
for c in stuck-exit stuck-later reset fault trap fault-reset stuck-new-runtime; do
  echo "=== hsad-fault-probe cuda $c"
  s=$(date +%s%N); timeout -s KILL 90 ./hsad-fault-probe cuda $c 2>&1; rc=$?; e=$(date +%s%N)
  echo "=== rc=$rc wall_ms=$(( (e - s) / 1000000 ))"
done
./gpu_tests --gtest_filter='-GpuRecovery.*' 2>&1 | tail -5
