# Issue 15, Kernels 5-8 on the H100 against the plain CUDA Kernel 5 (laplacian-bench --peers: the
# lab notes' kernel written straight for nvcc, whole and split as --split auto splits Kernel 7),
# everything of one size in one process: same GPU, same copy bandwidth.
# Part 1: the four sizes. Part 2: the split sweep (the cliff and its recovery) and Kernel 8's
# shapes at 1024^3, with ncu's DRAM bytes for Kernel 8 there. Two device-tool calls.
export LD_LIBRARY_PATH=$PWD/lib
L=./laplacian-bench
sizes=("512 512 512" "1024 1024 1024" "2048 2048 256" "4096 4096 64")
if [ "${1:-1}" = 1 ]; then
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  ./gpu_tests --gtest_brief=1 2>&1 | tail -1
  $L --backend cuda --nx 3 --ny 3 --nz 3 --iters 1 --reps 1 --format csv | head -1  # the columns
  for s in "${sizes[@]}"; do set -- $s
    v=""; [ $1 = 512 ] && v=--verify
    $L --backend cuda --nx $1 --ny $2 --nz $3 --kernel 5 --iters 10 --reps 5 $v --peers --format csv | tail -n +2
    for k in 6 7; do $L --backend cuda --nx $1 --ny $2 --nz $3 --kernel $k --split auto --iters 10 --reps 5 $v --format csv | tail -1; done
    $L --backend cuda --nx $1 --ny $2 --nz $3 --kernel auto --iters 10 --reps 5 $v --format csv | tail -1
  done
else
  echo "# Kernel 7 --split S (the cliff where three xy-planes outgrow the 50 MB L2, and its recovery)"
  for s in "2048 2048 256" "4096 4096 64"; do set -- $s
    for sp in 1 2 3 4 8 16; do $L --backend cuda --nx $1 --ny $2 --nz $3 --kernel 7 --split $sp --iters 10 --reps 5 --format csv | tail -1; done
  done
  echo "# Kernel 5 at 512^3 without early launch (HSAD_CUDA_EARLY_LAUNCH=0), beside the plain kernel"
  HSAD_CUDA_EARLY_LAUNCH=0 $L --backend cuda --nx 512 --ny 512 --nz 512 --kernel 5 --iters 10 --reps 5 --peers --format csv | tail -n +2
  $L --backend cuda --nx 512 --ny 512 --nz 512 --kernel 5 --iters 10 --reps 5 --peers --format csv | tail -n +2
  echo "# Kernel 8 at 1024^3: chunk length and work-group shape"
  for m in 32 64; do for b in 64,4,1 128,2,1 32,8,1 256,1,1 128,4,1; do
    echo -n "block $b: "; $L --backend cuda --nx 1024 --ny 1024 --nz 1024 --kernel 8 --m $m --block $b --iters 10 --reps 5 --format csv | tail -1
  done; done
  echo "# ncu: Kernel 8 (auto) at 1024^3 and 512^3, one application"
  for n in 1024 512; do
    ncu --kernel-name regex:laplacian8 --launch-skip 2 --launch-count 1 \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum \
      $L --backend cuda --nx $n --ny $n --nz $n --kernel auto --iters 1 --reps 2 2>&1 | grep -E "dram__|lts__|gpu__time|laplacian8"
  done
fi
