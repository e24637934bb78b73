# Replayed batches with copies: the copies as memcpy nodes inside the graph
# (HSAD_CUDA_GRAPH_COPIES=node) or on the stream around it (stream: the default since this
# measurement, as the hand-written graph peer does them).
# Alternating processes, three each; the +replay row against the hand-written graph in the same
# run. Run in .dev/ (scripts/device-bundle.sh).
export LD_LIBRARY_PATH=$PWD/lib
for run in 1 2 3; do
  for variant in node stream; do
    echo "=== run $run, copies: $variant"
    HSAD_CUDA_GRAPH_COPIES=$variant ./bitonic-bench --backend cuda --opt all,replay --peers --iters 300 --warmup 30 |
      grep -E '^ +(\+pinned|\+copies|\+replay)|hand-written'
  done
done
