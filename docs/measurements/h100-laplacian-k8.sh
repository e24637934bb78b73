# Kernel 8 (z-marching) on the H100: --kernel auto --split auto (= Kernel 8, planes per work-item
# chosen from the L2 size) at the four sizes of the issue, verified, with the copy bandwidth of
# the same run; then every chunk length m at every size; then Kernels 5, 6 and 7 (--split auto).
# Part 1 and part 2 are two device-tool calls (each under its 10-minute limit).
export LD_LIBRARY_PATH=$PWD/lib
L=./laplacian-bench
sizes=("512 512 512" "1024 1024 1024" "2048 2048 256" "4096 4096 64")
if [ "${1:-1}" = 1 ]; then
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  ./gpu_tests --gtest_brief=1 2>&1 | tail -1
  $L --backend cuda --nx 3 --ny 3 --nz 3 --iters 1 --reps 1 --format csv | head -1  # the columns
  echo "# --kernel auto --split auto: a verified run, then a second run, at each size"
  for s in "${sizes[@]}"; do set -- $s
    for v in --verify ""; do $L --backend cuda --nx $1 --ny $2 --nz $3 --kernel auto --split auto --iters 10 --reps 5 $v --format csv | tail -1; done
  done
  echo "# --kernel 8 --m M"
  for s in "${sizes[@]}"; do set -- $s
    for m in 4 8 16 32; do $L --backend cuda --nx $1 --ny $2 --nz $3 --kernel 8 --m $m --iters 10 --reps 5 --format csv | tail -1; done
  done
else
  echo "# Kernels 5, 6, 7 with --split auto"
  $L --backend cuda --nx 3 --ny 3 --nz 3 --iters 1 --reps 1 --format csv | head -1  # the columns
  for s in "${sizes[@]}"; do set -- $s
    for k in 5 6 7; do $L --backend cuda --nx $1 --ny $2 --nz $3 --kernel $k --split auto --iters 10 --reps 5 --format csv | tail -1; done
  done
fi
