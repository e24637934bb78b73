#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds, and runs the whole test suite: the default build,
# then ASan+UBSan, then TSan over the cpu agent's tests. Stops at the first failing stage.
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

stage default
stage asan
stage tsan
echo "=== all stages passed"
