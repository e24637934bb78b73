# Kernel 8 (z-marching) on the H100: --kernel auto --split auto (= Kernel 8; planes per item and
# work-group order chosen from the L2 size) at the four sizes of the issue, with the copy
# bandwidth of the same run; both orders at the two middle sizes; Kernels 5 and 7 beside it.
export LD_LIBRARY_PATH=$PWD/lib
L=./laplacian-bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
./gpu_tests --gtest_brief=1 2>&1 | tail -1
$L --backend cuda --nx 512 --ny 512 --nz 512 --kernel auto --split auto --iters 20 --reps 5 --verify --format csv
for size in "1024 1024 1024" "2048 2048 256" "4096 4096 64"; do set -- $size
  for run in 1 2; do $L --backend cuda --nx $1 --ny $2 --nz $3 --kernel auto --split auto --iters 10 --reps 5 --format csv | tail -1; done
done
for size in "1024 1024 1024" "2048 2048 256"; do set -- $size
  for o in plain grouped; do $L --backend cuda --nx $1 --ny $2 --nz $3 --kernel 8 --m 16 --order $o --iters 10 --reps 3 --format csv | tail -1; done
done
$L --backend cuda --nx 4096 --ny 4096 --nz 64 --kernel auto --iters 5 --reps 2 --verify --format csv | tail -1
for k in 5 7; do $L --backend cuda --nx 2048 --ny 2048 --nz 256 --kernel $k --split auto --iters 10 --reps 3 --format csv | tail -1; done
