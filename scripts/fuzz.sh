#!/usr/bin/env bash
# Fuzzes the code-object reader with libFuzzer under ASan+UBSan (Debian's clang-19 or clang-15,
# whichever has its libFuzzer runtime).
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
# The newest clang whose libFuzzer runtime is installed (libclang-rt-NN-dev).
llvm=
for v in 19 15; do
  c=/usr/lib/llvm-$v/bin/clang++
  if [ -x "$c" ] && ls "$("$c" -print-runtime-dir)"/libclang_rt.fuzzer*.a >/dev/null 2>&1; then llvm=/usr/lib/llvm-$v/bin; break; fi
done
[ -n "$llvm" ] || { echo "fuzz: no clang with libFuzzer (apt-get install clang-19 libclang-rt-19-dev)"; exit 1; }
# Every code object the bundle holds (the targets of the build: hipcc's and clang's).
for id in $("$llvm/clang-offload-bundler" --list --type=o --input="$bundle" | grep amdgcn); do
  "$llvm/clang-offload-bundler" --unbundle --type=o --input="$bundle" --targets="$id" --output="$out/seeds/${id##*--}.co"
done
[ -f "$build/tests/v5_fixture.co" ] && cp "$build/tests/v5_fixture.co" "$out/seeds/"

"$llvm/clang++" -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root/runtime/include" -I"$root/runtime/src" -I/usr/include \
  "$root/tests/fuzz/code_object_fuzzer.cpp" "$root/runtime/src/codeobject/"*.cpp \
  "$root/runtime/src/aql_packets/hidden_args.cpp" "$root/runtime/src/error.cpp" -o "$out/code_object_fuzzer"

cd "$out"
./code_object_fuzzer -max_total_time="$seconds" -max_len=400000 -rss_limit_mb=2048 \
  -artifact_prefix="$root/tests/fuzz/regressions/" corpus seeds 2>&1 | tail -40
