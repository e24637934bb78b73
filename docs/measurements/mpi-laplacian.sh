#!/usr/bin/env bash
# Issue 23 on a GPU machine, as one command from the device bundle (bash scripts/device-bundle.sh
# here, which carries Open MPI's runtime along; on the GPU machine: cd .dev && bash mpi-laplacian.sh).
# With several GPUs: one rank per GPU, weak (512^3 per GPU) and strong (1024^3), Kernel 8, both MPI
# halo paths this MPI has; each beside the single-process --devices N run of the same grid. With
# one GPU: 2 ranks sharing it against the one-device run in the same job (the MPI path's cost).
set -uo pipefail
cd "$(dirname "$0")"
source openmpi/env.sh
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH HSAD_TEST_MODULES_DIR=$PWD/modules
gpus=$(nvidia-smi -L | wc -l)
echo "== machine"; nvidia-smi -L; nvidia-smi topo -m 2>/dev/null | head -6; mpirun --version | head -1
# Debian's Open MPI is built without CUDA support: the halo column says mpi-staged.
run() { echo "\$ $*"; "$@"; echo "(exit status $?)"; }
echo "== bit-exact at a small size"
n=$(( gpus > 1 ? gpus : 2 ))
run mpirun -n $n ./laplacian-bench --mpi --backend cuda --nx 128 --ny 96 --nz 67 --kernel 8 --iters 5 --reps 1 --verify --format csv
run mpirun -n $n ./laplacian-bench --mpi --backend cuda --nx 128 --ny 96 --nz 67 --kernel 5 --iters 5 --reps 1 --verify --format csv
for rep in 1 2; do
  if [ "$gpus" -gt 1 ]; then
    echo "== repetition $rep: weak scaling, 512^3 per GPU, $gpus ranks (one per GPU) and $gpus devices in one process"
    run mpirun -n "$gpus" ./laplacian-bench --mpi --backend cuda --scaling weak --nx 512 --ny 512 --nz 512 --kernel 8 --iters 10 --reps 7 --format csv
    run ./laplacian-bench --backend cuda --devices "$gpus" --scaling weak --nx 512 --ny 512 --nz 512 --kernel 8 --iters 10 --reps 7 --format csv
    echo "== repetition $rep: strong scaling, 1024^3"
    run mpirun -n "$gpus" ./laplacian-bench --mpi --backend cuda --nx 1024 --ny 1024 --nz 1024 --kernel 8 --iters 10 --reps 7 --format csv
    run ./laplacian-bench --backend cuda --devices "$gpus" --nx 1024 --ny 1024 --nz 1024 --kernel 8 --iters 10 --reps 7 --format csv
  else
    echo "== repetition $rep: 2 ranks sharing the one GPU against one process on it, 512^3 and 1024x1024x512"
    run mpirun -n 2 ./laplacian-bench --mpi --backend cuda --nx 512 --ny 512 --nz 512 --kernel 8 --iters 10 --reps 7 --format csv
    run mpirun -n 2 ./laplacian-bench --mpi --backend cuda --nx 1024 --ny 1024 --nz 512 --kernel 8 --iters 10 --reps 7 --format csv
  fi
done
echo "== a fault in one rank (rank 1: a store to an unmapped address)"
run timeout 60 mpirun -n 2 ./laplacian-bench --mpi --backend cuda --nx 128 --ny 96 --nz 67 --iters 5 --reps 2 --inject-fault 1
