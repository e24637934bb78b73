# Issue 15: the sorts with +replay (--opt all,replay: the whole iteration, copies included, as a
# replayed CUDA graph) against CUB, same GPU, same run; run twice in one call.
export LD_LIBRARY_PATH=$PWD/lib
B=./bitonic-bench
for run in 1 2; do
  for n in 32768 1048576; do
    for algo in lds steps; do
      echo "# run $run, --algo $algo, n = $n"
      $B --backend cuda --algo $algo --n $n --opt all,replay --peers --format csv | grep -E "^\+copies|^\+replay|^cub|hand-written"
    done
  done
done
