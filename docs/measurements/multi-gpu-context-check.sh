#!/usr/bin/env bash
# The library and the application's current CUDA context on a machine of several GPUs, and a
# stuck kernel at exit there: the interop tests, the stuck-kernel probe's exit (a host backtrace
# where it hangs), then the whole GPU suite. From the device bundle (bash scripts/device-bundle.sh
# here; on a machine of two GPUs or more: cd .dev && bash multi-gpu-context-check.sh).
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib HSAD_TEST_MODULES_DIR=$PWD/modules HSAD_FAULT_PROBE=$PWD/hsad-fault-probe
echo "== interop"; ./gpu_cuda_interop_tests 2>&1 | grep -E "^\[ *(OK|FAILED|PASSED) |Failure|Expected|Which is|after" | head -30
echo "== stuck-exit probe"
start=$(date +%s%N); ./hsad-fault-probe cuda stuck-exit > probe.txt 2>&1 & pid=$!
for i in $(seq 1 40); do sleep 0.25; kill -0 $pid 2>/dev/null || break; done
if kill -0 $pid 2>/dev/null; then
  echo "still running after 10 s: host threads"; cuda-gdb -p $pid -batch -ex "thread apply all bt 12" 2>&1 | grep -E "^Thread|^#" | head -70
  kill -9 $pid; hang=1
else
  wait $pid; echo "exit $? after $(( ($(date +%s%N) - start) / 1000000 )) ms"; hang=0
fi
cat probe.txt
echo "== GPU suite"; if [ $hang = 0 ]; then f='*'; else f='-GpuRecovery.*'; fi
./gpu_tests --gtest_filter="$f" 2>&1 | grep -E "^\[ *(FAILED|PASSED|SKIPPED) |tests ran|measured"
