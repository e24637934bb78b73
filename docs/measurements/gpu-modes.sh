#!/usr/bin/env bash
# Issue 56 on the GPU machine: the whole GPU suite (recovery cases included) under every
# completion mode and option the cuda backend offers, one run each: the defaults (a stream memory
# write completes a submission, a replayed one the queue's count, arguments as one buffer, early
# launch on sm_90), a replayed submission completing on a pooled event (as before issue 60), completion by
# event, arguments as kernelParams, no early launch, graph copies as nodes. Then the event mode's
# reset probe on its own (it crashed at exit before 7a67ace). Run from .dev/ after
# scripts/device-bundle.sh: bash gpu-modes.sh
set -u
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib HSAD_TEST_MODULES_DIR=$PWD/modules HSAD_FAULT_PROBE=$PWD/hsad-fault-probe
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
failed=0
for mode in "" HSAD_CUDA_REPLAY_COMPLETION=event HSAD_CUDA_COMPLETION=event HSAD_CUDA_ARGS=params HSAD_CUDA_EARLY_LAUNCH=0 HSAD_CUDA_GRAPH_COPIES=node; do
  echo "=== gpu_tests ${mode:-(defaults)}"
  s=$(date +%s)
  env $mode ./gpu_tests --gtest_brief=1 2>&1 | tail -4
  rc=${PIPESTATUS[0]}
  echo "=== ${mode:-(defaults)}: rc=$rc, $(( $(date +%s) - s )) s"
  [ "$rc" -eq 0 ] || failed=1
done
echo "=== hsad-fault-probe cuda reset, HSAD_CUDA_COMPLETION=event"
HSAD_CUDA_COMPLETION=event timeout -s KILL 90 ./hsad-fault-probe cuda reset; echo "=== rc=$? (3: main returned normally)"
exit $failed
