#!/bin/bash
# BEFORE: a folder holding libhsadispatch.so.0 built from the commit before (dedbc5d).
# Alternates the library of HEAD and the one saved before the change ($BEFORE) 7 times each.
B=build/default; out=docs/measurements/submit-cost-2026-11-25
for i in $(seq 7); do
  for lib in after before; do
    if [ $lib = before ]; then export LD_LIBRARY_PATH=$BEFORE; else unset LD_LIBRARY_PATH; fi
    $B/apps/dispatch-bench/dispatch-bench --backend cpu --opt all --count 1 --reps 201 --format csv | tail -n +2 | sed "s/^/$lib,$i,/" >> $out/cpu.csv
    $B/bin/hsad-sim -- $B/apps/dispatch-bench/dispatch-bench --backend rocr --opt all --peers --count 1 --reps 201 --format csv | tail -n +2 | sed "s/^/$lib,$i,/" >> $out/hsad-sim.csv
  done
done
unset LD_LIBRARY_PATH
