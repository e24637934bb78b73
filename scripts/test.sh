#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds, and runs the whole test suite: the default build,
# the same tests as other machines would run them (cache size unknown, small, large; one CPU),
# then the Debian packages (installed, used, removed), then ASan+UBSan, then TSan over the cpu
# agent's tests, then today's ROCm: the project built in a Debian sid root with its toolchain and
# run on ROCr 6.4.3 (scripts/test-sid.sh). Stops at the first failing stage.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

stage() {
  local preset=$1
  echo "=== ${preset}: configure, build, test"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  ctest --preset "$preset" -j "$(nproc)"
}

# Machines other than this one: the cpu agent's last-level cache pinned to what a VM without
# sysfs cache folders reports (unknown), to a small and to a large size; then every test that
# needs no GPU on one CPU (taskset -c 0: the cpu agent sizes its pool from the affinity mask).
other_machines() {
  local llc
  for llc in unknown 64K 1G; do
    echo "=== default build, cpu and cli tests, HSAD_CPU_LAST_LEVEL_CACHE=${llc}"
    HSAD_CPU_LAST_LEVEL_CACHE=$llc ctest --preset default -L '^(cpu|cli)$' -j "$(nproc)"
  done
  echo "=== default build, unit, cpu, cli and hsad-sim tests on one CPU (taskset -c 0)"
  taskset -c 0 ctest --preset default -L '^(unit|cpu|cli|hsad-sim)$'
}

stage default
other_machines
echo "=== packages: build, install with apt-get, build the example against /usr both ways, remove"
bash tests/package/packages.sh default
stage asan
stage tsan
bash scripts/test-sid.sh
echo "=== all stages passed"
