#!/usr/bin/env bash
# NVIDIA's compute-sanitizer over the library on a GPU machine, as one command from the device
# bundle (bash scripts/device-bundle.sh here; on the GPU machine: cd .dev && bash gpu-sanitizers.sh [LOGDIR]).
#   memcheck             the GPU suite (less its recovery cases, run apart without a sanitizer) and the
#                        example, device accesses and every driver call's result
#   racecheck, synccheck every kernel family with shared memory: the LDS sort, memory-bench's LDS workloads
#   initcheck            the Laplacian's Kernels 5-8, the sort (both algorithms) and memory-bench
# at small sizes. Exits 1 when any run fails or any tool reports an error beyond the deliberate
# refusals below, with their exact counts; each run's full log is kept in LOGDIR.
set -uo pipefail
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} HSAD_TEST_MODULES_DIR=$PWD/modules
logs=${1:-sanitizer-logs}
mkdir -p "$logs"
command -v compute-sanitizer >/dev/null || { echo "compute-sanitizer is not on PATH" >&2; exit 1; }

# The driver calls that the GPU suite makes fail on purpose, as "API ERROR COUNT":
# - cuModuleGetFunction NOT_FOUND: Gpu.UnknownKernelIsRefused asks the device for a kernel the
#   embedded fatbin does not have, to check the error (a Module refuses unknown names before the
#   driver: it knows its kernels' names);
# - cuFuncGetParamInfo INVALID_VALUE: GpuModule.ParameterLayoutsAreTheSameFromEveryKindOfImage loads
#   a fatbin whose every image is compressed (fatbinary -compress-all), where the library cannot read
#   the parameter count and asks the driver until it refuses: once for each of its 3 kernels.
gpu_suite_refusals="cuModuleGetFunction CUDA_ERROR_NOT_FOUND 1
cuFuncGetParamInfo CUDA_ERROR_INVALID_VALUE 3"

failures=0
# check NAME TOOL EXPECTED -- COMMAND...: runs COMMAND under TOOL and compares what it reports.
check() {
  local name=$1 tool=$2 expected=$3
  shift 4
  local log="$logs/$name.$tool.log"
  local extra=()
  [ "$tool" = memcheck ] && extra=(--check-api-memory-access yes)
  [ "$tool" = racecheck ] && extra=(--racecheck-report all)
  compute-sanitizer --tool "$tool" --print-limit 10000 "${extra[@]}" "$@" >"$log" 2>&1
  local rc=$?
  local errors hazards
  errors=$(grep -ao 'ERROR SUMMARY: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
  hazards=$(grep -ao 'RACECHECK SUMMARY: [0-9]* hazard' "$log" | tail -1 | grep -o '[0-9]\+' | head -1)
  # racecheck ends with "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)" instead.
  [ -z "$errors" ] && errors=$(grep -ao 'RACECHECK SUMMARY: .*([0-9]* error' "$log" | tail -1 | grep -o '[0-9]* error$' | grep -o '^[0-9]*')
  # "Program hit CUDA_ERROR_X (error N) due to "..." on CUDA API call to cuFoo." -> "cuFoo CUDA_ERROR_X"
  local seen
  seen=$(grep -a 'Program hit' "$log" | sed -E 's/.*Program hit ([A-Z_]+) .* API call to ([A-Za-z0-9_]+).*/\2 \1/' |
         sort | uniq -c | awk '{print $2, $3, $1}')
  local want
  want=$(printf '%s\n' "$expected" | sed '/^$/d' | sort)
  local api_total=0
  [ -n "$seen" ] && api_total=$(printf '%s\n' "$seen" | awk '{s += $3} END {print s}')
  local verdict=ok why=""
  if [ "$rc" -ne 0 ]; then verdict=FAIL why="exit status $rc"; fi
  if [ -z "$errors" ]; then verdict=FAIL why="$why; no ERROR SUMMARY (did it run?)"; fi
  if [ "$(printf '%s\n' "$seen" | sed '/^$/d' | sort)" != "$want" ]; then
    verdict=FAIL why="$why; failing driver calls differ from the listed refusals"
  fi
  # Every error beyond the listed driver refusals is a device-side one: none is allowed.
  if [ -n "$errors" ] && [ "$errors" -ne "$api_total" ]; then
    verdict=FAIL why="$why; $errors errors, $api_total of them listed driver refusals"
  fi
  if [ -n "$hazards" ] && [ "$hazards" -ne 0 ]; then verdict=FAIL why="$why; $hazards racecheck hazards"; fi
  printf '%-4s %-10s %-28s errors=%s%s refusals=[%s]%s\n' "$verdict" "$tool" "$name" "${errors:-?}" \
    "${hazards:+ hazards=$hazards}" "$(printf '%s' "$seen" | tr '\n' ';')" "${why:+  (${why#; })}"
  [ "$verdict" = ok ] || { failures=$((failures + 1)); grep -a '^=========' "$log" | head -40; }
}

echo "== machine"
nvidia-smi -L
compute-sanitizer --version | head -2
./hsad-info | head -8

echo "== memcheck"
# The recovery cases (GpuRecovery.*) fault and hang on purpose, in child processes that the
# sanitizer would follow: they run apart, below, without it.
check gpu_tests memcheck "$gpu_suite_refusals" -- ./gpu_tests --gtest_filter=-GpuRecovery.*
echo "== the recovery cases, outside the sanitizer (their faults and hangs are deliberate)"
if ./gpu_tests --gtest_filter=GpuRecovery.* >"$logs/gpu_tests.recovery.log" 2>&1; then
  printf 'ok   %-10s %-28s %s\n' none gpu_tests-recovery "$(grep -a 'PASSED' "$logs/gpu_tests.recovery.log" | tail -1)"
else
  printf 'FAIL %-10s %-28s\n' none gpu_tests-recovery
  grep -a -E 'FAILED|Failure' "$logs/gpu_tests.recovery.log" | head -20
  failures=$((failures + 1))
fi
if [ -x example/saxpy-pipeline ]; then
  check saxpy-pipeline memcheck "" -- example/saxpy-pipeline cuda
fi

echo "== racecheck and synccheck: the kernels with shared memory"
small_memory=(--backend cuda --rows 256 --cols 256 --sites 1024 --words 192 --iters 1 --reps 1 --opt none)
for tool in racecheck synccheck; do
  check bitonic-lds "$tool" "" -- ./bitonic-bench --backend cuda --algo lds --n 16384 --iters 2 --opt none
  for w in row-sums-lds yax yax-wave reduce-staged reduce-fused; do
    check "memory-$w" "$tool" "" -- ./memory-bench "${small_memory[@]}" --workload "$w"
  done
done

echo "== initcheck: the Laplacian, the sort, memory-bench"
for k in 5 6 7 8; do
  check "laplacian-k$k" initcheck "" -- ./laplacian-bench --backend cuda --nx 64 --ny 48 --nz 33 --kernel "$k" --iters 2 \
    --reps 1 --verify
done
check bitonic-steps initcheck "" -- ./bitonic-bench --backend cuda --n 4096 --iters 2 --opt all
check bitonic-lds initcheck "" -- ./bitonic-bench --backend cuda --algo lds --n 16384 --iters 2 --opt all
check memory-all initcheck "" -- ./memory-bench "${small_memory[@]}" --workload all

echo "== $failures failing runs (logs in $logs/)"
[ "$failures" -eq 0 ]
