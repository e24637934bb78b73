# Issue 16: memory-bench on the H100 at the notes' sizes (16384^2 floats, 32768^2 doubles, 262144
# sites of 1152 doubles), every workload with the copy bandwidth of the same run, then the
# work-group sweep. Part 1: every workload and the sweeps. Part 2: ncu, DRAM bytes and throughput
# of each kernel. From .dev/ (scripts/device-bundle.sh).
export LD_LIBRARY_PATH=$PWD/lib
M=./memory-bench
if [ "${1:-1}" = 1 ]; then
  nvidia-smi --query-gpu=name,driver_version,clocks.max.memory --format=csv,noheader
  echo "# every workload, the notes' sizes and work-group sizes"
  $M --backend cuda --workload all --iters 3 --reps 5 --format csv
  echo "# --sweep-block"
  for w in row-sums-lds yax-wave reduce-fused reduce-staged column-sums; do
    $M --backend cuda --workload $w --sweep-block --iters 3 --reps 5 --format csv | tail -n +2
  done
else
  echo "# ncu: one iteration of each workload"
  for w in row-sums column-sums row-sums-lds yax yax-wave reduce-staged reduce-fused; do
    echo "## $w"
    ncu --launch-skip 3 --launch-count 3 \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum \
      $M --backend cuda --workload $w --iters 1 --reps 1 2>&1 | grep -E "^  [a-z_]+.*\(|dram__|sm__warps|gpu__time"
  done
fi
