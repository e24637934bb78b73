#!/bin/bash
# Issue 41, recycled submission blocks: the library of HEAD against the one of the commit before
# ($BEFORE: a folder holding that build's libhsadispatch.so.0), alternating, 5 rounds.
# submit_loop: docs/measurements/submit-cost-2026-11-25/submit_loop.cpp, built against HEAD.
B=build/default; out=docs/measurements/submit-cost-2026-11-26
for i in $(seq 5); do
  for lib in before after; do
    if [ $lib = before ]; then export LD_LIBRARY_PATH=$BEFORE; else unset LD_LIBRARY_PATH; fi
    echo "$lib,$i,$(/tmp/submit_loop a 20000)" >> $out/submit_loop.csv
    echo "$lib,$i,$(/tmp/submit_loop b 64000)" >> $out/submit_loop.csv
    $B/apps/dispatch-bench/dispatch-bench --backend cpu --opt all --count 1 --reps 201 --format csv | tail -n +2 | sed "s/^/$lib,$i,/" >> $out/cpu.csv
    $B/bin/hsad-sim -- $B/apps/dispatch-bench/dispatch-bench --backend rocr --opt all --peers --count 1 --reps 201 --format csv | tail -n +2 | sed "s/^/$lib,$i,/" >> $out/hsad-sim.csv
  done
done
unset LD_LIBRARY_PATH
