#!/usr/bin/env bash
# Issue 60, ninth session: how far below the library's enqueue the floor is. Run from .dev/ on the
# GPU machine, with experimental builds of the library copied into .dev/lib-a/ (Queue::enqueue
# calls the backend's bare launch first: no submit lock, no checks, no trace or profiler look),
# .dev/lib-b/ (that, and the bare launch only cuGraphLaunch and the count: no check, no counters, no
# timeline) and earlier libraries (.dev/lib-v*/) beside the real one in lib/, those present: seven
# rounds of dispatch-bench --peers --enqueue, each every library in turn. The experimental builds
# are not thread-safe and check nothing; they only bound what layering costs.
set -u
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bench() { ./dispatch-bench --backend cuda --opt all --peers --count 1,16,1024 --reps ${REPS:-201} --format csv --enqueue | grep -v "runtime <<<"; }
for run in 1 2 3 4 5 6 7; do
  for v in lib lib-*; do
    [ -d "$v" ] || continue
    echo "=== dispatch-bench round $run: $v"
    LD_LIBRARY_PATH=$PWD/$v:$PWD/lib bench
  done
done
