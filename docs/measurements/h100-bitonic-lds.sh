# Issue 15: bitonic-bench --algo lds (passes shorter than a chunk in LDS, longer ones three to a
# dispatch in registers) against cub::DeviceRadixSort and the 120-dispatch ladder, same GPU, same
# run, end to end (copy in, sort, copy out). Every row and peer is checked sorted (exit status 3
# otherwise). Then the chunk sizes, and ncu's time for each kernel of one iteration.
export LD_LIBRARY_PATH=$PWD/lib
B=./bitonic-bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
./gpu_tests --gtest_brief=1 2>&1 | tail -1
for n in 32768 1048576; do
  echo "# --algo lds (chunk auto), n = $n"
  $B --backend cuda --algo lds --n $n --peers --format csv
  echo "# --algo steps, n = $n"
  $B --backend cuda --algo steps --n $n --peers --format csv
  for c in 256 512 1024 2048 4096; do
    echo -n "# --algo lds --chunk $c, n = $n, last row: "
    $B --backend cuda --algo lds --chunk $c --n $n --format csv | tail -1
  done
done
echo "# ncu: each kernel of one --algo lds iteration at 32768 keys (serialized by the profiler)"
ncu --kernel-name regex:bitonic --launch-count 13 --metrics gpu__time_duration.sum \
  $B --backend cuda --algo lds --n 32768 --iters 1 --warmup 0 --opt none 2>&1 | grep -E "^  bitonic_|gpu__time"
