#!/bin/bash
# rocPRIM's select by flags on gfx1100, built by hipcc 7.0.2 (clang 21) in the sid root, run on
# hsad-sim: which of LLVM's passes makes it wrong, and which flag makes it right. Run in the sid
# root from the repository's top, with build/sid built (scripts/test-sid.sh) and rocprim-select.hip
# (../issue59-2026-11-27c/) copied into WORK.
#   bash docs/measurements/hsad-sim-2026-11-28-true16-copy/reproduce.sh WORK
set -u
work=$1 sim=$PWD/build/sid/bin/hsad-sim
cd "$work"
# verdict EXTRA...: GOOD where the 1000-item select is exact on gfx1100, else BAD
verdict() {
  hipcc -O2 --offload-arch=gfx1100 --offload-arch=gfx1030 "$@" rocprim-select.hip -o sel > build.txt 2>&1 || { echo BUILDFAIL; return; }
  out=$(timeout 120 "$sim" --target gfx1100 -- ./sel 1000 2>&1)
  if echo "$out" | grep -q "^count 335 want 335" && ! echo "$out" | grep -q "^at "; then echo GOOD; else echo BAD; fi
}
echo "default:                                   $(verdict)"
echo "-Xarch_gfx1100 -mllvm=-disable-adv-copy-opt: $(verdict -Xarch_gfx1100 -mllvm=-disable-adv-copy-opt)"
echo "-Xarch_gfx1030 -mllvm=-disable-adv-copy-opt: $(verdict -Xarch_gfx1030 -mllvm=-disable-adv-copy-opt)"
echo "-Xarch_device -mllvm=-disable-peephole:     $(verdict -Xarch_device -mllvm=-disable-peephole)"
echo "real-true16 off (fake16 code):              $(verdict -Xclang -target-feature -Xclang -real-true16)"
# The first of the gfx1100 compile's passes (LLVM's opt-bisect numbering) whose running makes it wrong.
lo=0 hi=$(verdict -Xarch_gfx1100 -mllvm=-opt-bisect-limit=0 >/dev/null; grep -c "^BISECT" build.txt)
while [ $((hi - lo)) -gt 1 ]; do
  mid=$(((lo + hi) / 2))
  r=$(verdict -Xarch_gfx1100 -mllvm=-opt-bisect-limit=$mid); echo "limit $mid: $r"
  if [ "$r" = GOOD ]; then lo=$mid; else hi=$mid; fi
done
verdict -Xarch_gfx1100 -mllvm=-opt-bisect-limit=$hi > /dev/null
grep "BISECT: running pass ($hi)" build.txt
