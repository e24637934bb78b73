#!/usr/bin/env bash
# The first run on an AMD GPU: for a user with an AMD GPU and ROCm, once. It finds the GPUs (KFD's
# topology, else rocminfo), builds this tree for their targets, runs the GPU suite and the benches
# (the ladder with HIP's peers, dispatch-bench, jacobi-bench, laplacian-bench) and writes one report
# file: the machine, the kernel driver, ROCm, the GPUs, every step's result, output and time. Attach
# the report to a bug report; nothing else is sent anywhere.
#
#   bash scripts/amd-first-run.sh                         # build in build/amd-first-run, report in amd-first-run-report.txt
#   bash scripts/amd-first-run.sh --report FILE --quick   # smaller runs (a few minutes)
#
# For testing it without an AMD GPU (tests/CMakeLists.txt runs it so under hsad-sim):
#   --no-build --build-dir DIR   use a tree already built
#   --launcher "CMD --"          run every probe and program under CMD (build/default/bin/hsad-sim --target gfx1030 --)
# A step that fails is reported with its output and the script goes on; it exits 1 if any failed,
# 2 when it finds no AMD GPU or cannot build.
set -uo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)
report=amd-first-run-report.txt build=build/amd-first-run do_build=1 quick=0 launcher=""
while [ $# -gt 0 ]; do
  case "$1" in
    --report) report="${2:?--report needs a file}"; shift 2 ;;
    --build-dir) build="${2:?--build-dir needs a folder}"; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --quick) quick=1; shift ;;
    --launcher) launcher="${2?--launcher needs a command}"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "amd-first-run: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$report" in /*) ;; *) report="$src/$report" ;; esac
: >"$report" || { echo "amd-first-run: cannot write $report" >&2; exit 2; }

say() { echo "$*" | tee -a "$report"; }
section() { printf '\n## %s\n' "$*" >>"$report"; echo "== $*"; }
failed=0 passed=0
summary=()
# step NAME TIMEOUT CMD...: runs CMD (under the launcher), its output and exit status into the report.
step() {
  local name=$1 limit=$2; shift 2
  section "$name"
  echo "\$ $launcher $*" >>"$report"
  local t0 t1 rc
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086 # the launcher is words
  timeout --kill-after=10 "$limit" $launcher "$@" >>"$report" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  local secs
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  if [ $rc -eq 0 ]; then
    passed=$((passed + 1)); summary+=("passed  $name (${secs} s)")
  else
    failed=$((failed + 1))
    local why="exit $rc"
    [ $rc -eq 124 ] || [ $rc -eq 137 ] && why="timed out after $limit s"
    summary+=("FAILED  $name ($why, ${secs} s)")
  fi
  echo "[$name: rc=$rc, ${secs} s]" >>"$report"
  return 0
}

# What AMD GPUs the kernel driver lists: KFD's topology nodes with a gfx target version
# (major, minor, stepping as decimal digits: 90010 is gfx90a, 110001 gfx1101), else rocminfo's names.
gpu_targets() {
  local found=""
  # shellcheck disable=SC2086
  found=$($launcher sh -c 'for f in /sys/devices/virtual/kfd/kfd/topology/nodes/*/properties; do
      v=$(awk "\$1 == \"gfx_target_version\" { print \$2 }" "$f" 2>/dev/null)
      [ -n "$v" ] && [ "$v" != 0 ] && echo "$v"
    done' 2>/dev/null | while read -r v; do
      printf 'gfx%d%d%x\n' $((v / 10000)) $((v / 100 % 100)) $((v % 100))
    done | sort -u | tr '\n' ' ')
  if [ -z "$found" ] && command -v rocminfo >/dev/null; then
    # shellcheck disable=SC2086
    found=$($launcher rocminfo 2>/dev/null | grep -o 'amdgcn-amd-amdhsa--gfx[0-9a-f]*' | sed 's/.*--//' | sort -u | tr '\n' ' ')
  fi
  echo "$found"
}

say "# hsadispatch: first run on an AMD GPU"
say "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
say "tree: $(git -C "$src" describe --always --dirty 2>/dev/null || echo 'not a git checkout')"
section "machine"
{
  echo "kernel: $(uname -srm)"
  [ -r /etc/os-release ] && echo "os: $(. /etc/os-release; echo "${PRETTY_NAME:-unknown}")"
  echo "cpu: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null), $(nproc) threads"
  echo "memory: $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null)"
  # shellcheck disable=SC2086
  echo "amdgpu driver: $($launcher cat /sys/module/amdgpu/version 2>/dev/null || echo 'no version file (in-tree driver, or not loaded)')"
  echo "/dev/kfd: $( [ -e /dev/kfd ] && echo present || echo absent)"
  echo "ROCm: $(cat /opt/rocm/.info/version 2>/dev/null || dpkg-query -W -f='${Version} (Debian libhsa-runtime64-1)' libhsa-runtime64-1 2>/dev/null || echo unknown)"
  echo "hipcc: $(hipcc --version 2>/dev/null | grep -m1 -i 'version' || echo 'not found')"
  [ -n "$launcher" ] && echo "launcher: $launcher (not an AMD GPU: a run for testing this script)"
} >>"$report"
targets=$(gpu_targets)
say "GPU targets: ${targets:-none}"
if [ -z "$targets" ]; then
  say "no AMD GPU found (no KFD topology node with a gfx target, no rocminfo agent): is the amdgpu driver loaded?"
  exit 2
fi

if [ $do_build -eq 1 ]; then
  section "build"
  # Each GPU's own target and its family's generic one: where no compiler here knows the GPU by
  # name (a gfx1103 with an older clang), the generic object still runs on it.
  generics=$(for t in $targets; do
    case $t in
      gfx94*|gfx950) echo gfx9-4-generic ;; gfx103*) echo gfx10-3-generic ;;
      gfx11*) echo gfx11-generic ;; gfx12*) echo gfx12-generic ;;
    esac
  done | sort -u)
  list=$(echo $targets $generics | xargs | tr ' ' ';')
  gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
  if ! { cmake -S "$src" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release "-DHSAD_AMDGPU_TARGETS=$list" &&
         cmake --build "$build" -j "$(nproc)"; } >>"$report" 2>&1; then
    say "the build failed (its output is in the report); scripts/install-deps.sh installs what it needs on Debian"
    exit 2
  fi
fi
bin="$build/apps"
for f in "$bin/hsad-info/hsad-info" "$build/tests/gpu_tests"; do
  [ -x "$f" ] || { say "missing $f: build the tree first (or drop --no-build)"; exit 2; }
done

if [ $quick -eq 1 ]; then
  keys=1024 iters=3 sizes=12 lap=32 counts=1,16 reps=3 gtest_filter='Gpu.UnknownKernelIsRefused:GpuReplay.ASortIsBuiltOnceAndReplayedBitExact:GpuDeviceLoop.RunsAsTheHostDrivenLoopDoes:GpuDeviceLoop.CheckingEveryKIterationsRunsWholeRounds'
else
  keys=32768 iters=100 sizes=64,128 lap=512 counts=1,16,1024 reps=21 gtest_filter='*'
fi
export HSAD_TEST_MODULES_DIR="$build/tests/modules"
step "hsad-info" 120 "$bin/hsad-info/hsad-info"
step "GPU suite (gpu_tests)" 3600 "$build/tests/gpu_tests" "--gtest_filter=$gtest_filter"
step "the ladder with HIP's peers (bitonic-bench)" 1800 "$bin/bitonic-bench/bitonic-bench" --backend rocr --opt all --peers --n "$keys" --iters "$iters"
step "one dispatch's cost (dispatch-bench)" 1800 "$bin/dispatch-bench/dispatch-bench" --backend rocr --opt all --peers --count "$counts" --reps "$reps"
step "device-run loops (jacobi-bench)" 1800 "$bin/jacobi-bench/jacobi-bench" --backend rocr --size "$sizes" --reps 3 --peers --verify
step "the Laplacian (laplacian-bench)" 1800 "$bin/laplacian-bench/laplacian-bench" --backend rocr --nx "$lap" --ny "$lap" --nz "$lap" --verify

# The summary under the report's first lines, where a reader looks.
tmp=$(mktemp)
{ head -3 "$report"; printf '\n## summary\n%s passed, %s failed\n' "$passed" "$failed"; printf '%s\n' "${summary[@]}"; tail -n +4 "$report"; } >"$tmp" &&
  cat "$tmp" >"$report"
rm -f "$tmp"
echo "report: $report ($passed passed, $failed failed)"
[ $failed -eq 0 ]
