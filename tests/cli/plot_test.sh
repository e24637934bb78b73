#!/usr/bin/env bash
# scripts/plot.py on the cpu agent's JSON: each bench's output becomes an SVG that parses as one.
#   plot_test.sh PLOT_PY BITONIC_BENCH LAPLACIAN_BENCH MEMORY_BENCH WORKDIR DISPATCH_BENCH
set -euo pipefail
plot=$1 bitonic=$2 laplacian=$3 memory=$4 work=$5 dispatch=$6
# Debian's python3 has python3-matplotlib (scripts/install-deps.sh); another python3 first on
# PATH (a pyenv's) may not.
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
rm -rf "$work" && mkdir -p "$work"
"$bitonic" --backend cpu --n 1024 --iters 2 --warmup 0 --format json > "$work/ladder.json"
"$laplacian" --backend cpu --nx 32 --ny 32 --nz 32 --kernel 5 --iters 1 --reps 2 --format json > "$work/laplacian.json"
HSAD_CPU_DEVICES=2 "$laplacian" --backend cpu --nx 32 --ny 32 --nz 32 --kernel 5 --iters 1 --reps 2 --devices 2 \
  --format json > "$work/scaling.json"
"$memory" --backend cpu --workload yax --rows 256 --cols 256 --iters 1 --reps 2 --format json > "$work/memory.json"
"$dispatch" --backend cpu --count 1,16,64 --reps 3 --format json > "$work/dispatch.json"
for f in ladder laplacian scaling memory dispatch; do
  "$py" "$plot" "$work/$f.json" -o "$work/$f.svg"
  "$py" - "$work/$f.svg" "$f" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag.endswith("svg"), root.tag
shapes = sum(1 for e in root.iter() if e.tag.endswith("path") or e.tag.endswith("rect"))
assert shapes > 10, "%s: only %d shapes" % (sys.argv[2], shapes)
print("%s.svg: valid SVG, %d shapes" % (sys.argv[2], shapes))
PY
done
# Files of different benches do not make one plot: refused, saying so.
if "$py" "$plot" "$work/ladder.json" "$work/memory.json" -o "$work/mixed.svg" 2> "$work/mixed.err"; then
  echo "mixed benches were plotted" >&2; exit 1
fi
grep -q "different benches" "$work/mixed.err"
