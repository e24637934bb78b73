#!/bin/bash
# Issue 41, one dispatch's host submit: the library before the submission records (BEFORE, a
# folder holding that build's libhsadispatch.so.0) and this tree's, alternating, three rounds.
# The apps are this tree's; only the library changes (LD_LIBRARY_PATH wins over their RUNPATH).
# cpu agent, then under hsad-sim with HIP's launch and graph in the same run (host time only).
set -e
B=${B:-build/default}
: "${BEFORE:?a folder with the folder holding the earlier libhsadispatch.so.0}"
AFTER=$B/runtime
for r in $(seq 1 ${ROUNDS:-3}); do
  for side in before after; do
    lib=$BEFORE; [ $side = after ] && lib=$AFTER
    LD_LIBRARY_PATH=$lib $B/apps/dispatch-bench/dispatch-bench --backend cpu --opt all --count 1,1024 --reps 101 --format csv \
      | tail -n +2 | sed "s/^/$r,$side,/"
    LD_LIBRARY_PATH=$lib $B/bin/hsad-sim -- $B/apps/dispatch-bench/dispatch-bench --backend rocr --opt all --count 1,1024 \
      --reps 101 --peers --format csv | tail -n +2 | sed "s/^/$r,$side,/"
    LD_LIBRARY_PATH=$lib /tmp/submit_loop a 20000 | sed "s/^/$r,$side,submit_loop,/"
    LD_LIBRARY_PATH=$lib /tmp/submit_loop b 20000 | sed "s/^/$r,$side,submit_loop,/"
  done
done
