# The Laplacian measurements in docs/results.md.
export LD_LIBRARY_PATH=$PWD/lib
L=./laplacian-bench
./gpu_tests --gtest_brief=1 2>&1 | tail -1
for k in 5 6 7; do $L --backend cuda --nx 512 --ny 512 --nz 512 --kernel $k --split auto --iters 20 --reps 5 --verify --format csv | tail -1; done
for size in "1024 1024 1024" "2048 2048 256" "4096 4096 64"; do
  set -- $size
  for k in 5 6 7; do $L --backend cuda --nx $1 --ny $2 --nz $3 --kernel $k --split auto --iters 20 --reps 5 --format csv | tail -1; done
  $L --backend cuda --nx $1 --ny $2 --nz $3 --kernel auto --split auto --iters 20 --reps 5 --format csv | tail -1
done
for s in 1 2 4 8 16; do $L --backend cuda --nx 4096 --ny 4096 --nz 64 --kernel 7 --split $s --iters 20 --reps 5 --format csv | tail -1; done
$L --backend cuda --nx 4096 --ny 4096 --nz 64 --kernel 7 --split auto --iters 20 --reps 5 --format json
