#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds, and runs `bitonic-bench --opt all` on the best
# backend present (rocr, then cuda, then the cpu agent). Extra arguments go to bitonic-bench.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset default
cmake --build --preset default --target bitonic-bench
exec ./build/default/apps/bitonic-bench/bitonic-bench --opt all "$@"
