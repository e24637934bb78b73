#!/usr/bin/env bash
# Issue 46, item 2, as one command from the device bundle (bash scripts/device-bundle.sh here; on a
# machine with several NVIDIA GPUs: cd .dev && bash multi-gpu-jacobi.sh): jacobi-bench --devices all,
# the solver over every GPU with a device-run loop on each (the GPUs meeting on the GPUs), beside
# its host loops on the same GPUs and the one-GPU ways of the same run (the efficiency's
# denominator). 64^3 and 128^3 to --tol 1e-4, 512^3 to 7e-3 (about 90 iterations), as h100-jacobi.sh.
# The GPU suite's multi-GPU Jacobi test first. CSV to $OUT.
set -uo pipefail
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} HSAD_TEST_MODULES_DIR=$PWD/modules
out=${OUT:-.}
echo "== GPU suite: Jacobi over every GPU, the slabs, the device loops"
./gpu_tests --gtest_filter='GpuJacobiSlabs.*:GpuSlabs.*:GpuDeviceLoop.*' 2>&1 | grep -E "^\[ *(OK|FAILED|PASSED|SKIPPED) "
for r in 1 2; do
  echo "== run $r ($(date +%T))"
  ./jacobi-bench --backend cuda --devices all --size 64,128 --reps 5 $([ $r = 1 ] && echo --verify) --format csv \
    | tee "$out/multi-gpu-jacobi-small-run$r.csv"
  ./jacobi-bench --backend cuda --devices all --size 512 --tol 7e-3 --reps 3 --format csv | tee "$out/multi-gpu-jacobi-512-run$r.csv"
done
echo "== done ($(date +%T))"
