#!/usr/bin/env bash
# Fuzzes the code-object reader with libFuzzer under ASan+UBSan (clang-15 from Debian's llvm-15).
# Usage: scripts/fuzz.sh [SECONDS] (default 600). Seeds: the build's offload bundle, each code
# object in it, and the v5 test object; findings land in tests/fuzz/regressions/ for the replay test.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-600}"
build="${HSAD_BUILD:-$root/build/default}"
out="$root/build/fuzz"
mkdir -p "$out/corpus" "$out/seeds"

bundle="$build/kernels/kernels.hsaco"
[ -f "$bundle" ] || { echo "fuzz: build first (no $bundle)"; exit 1; }
cp "$bundle" "$out/seeds/bundle.hsaco"
for t in gfx90a gfx908 gfx940 gfx1030; do
  clang-offload-bundler-15 --unbundle --type=o --input="$bundle" --targets="hipv4-amdgcn-amd-amdhsa--$t" \
    --output="$out/seeds/$t.co" 2>/dev/null || /usr/lib/llvm-15/bin/clang-offload-bundler --unbundle --type=o \
    --input="$bundle" --targets="hipv4-amdgcn-amd-amdhsa--$t" --output="$out/seeds/$t.co"
done
[ -f "$build/tests/v5_fixture.co" ] && cp "$build/tests/v5_fixture.co" "$out/seeds/"

clang++-15 -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root/runtime/include" -I"$root/runtime/src" -I/usr/include \
  "$root/tests/fuzz/code_object_fuzzer.cpp" "$root/runtime/src/codeobject/"*.cpp \
  "$root/runtime/src/aql/hidden_args.cpp" "$root/runtime/src/error.cpp" -o "$out/code_object_fuzzer"

cd "$out"
./code_object_fuzzer -max_total_time="$seconds" -max_len=400000 -rss_limit_mb=2048 \
  -artifact_prefix="$root/tests/fuzz/regressions/" corpus seeds 2>&1 | tail -40
