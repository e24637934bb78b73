#!/usr/bin/env bash
# Issue 22 on a machine with several NVIDIA GPUs, as one command from the device bundle
# (bash scripts/device-bundle.sh here; on the GPU machine: cd .dev && bash multi-gpu-laplacian.sh).
# laplacian-bench --devices all against one GPU in the same run (strong scaling at 1024^3, weak
# at 512^3 per GPU), both halo routes, Kernels 8 and 5, the bit-exact check, and beside each the
# CUDA-runtime peer (multi-gpu-laplacian-peer.cu) with the same decomposition.
set -uo pipefail
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} HSAD_TEST_MODULES_DIR=$PWD/modules
export NCCL_NVLS_ENABLE=0  # nothing here uses NCCL; kept as the machine asks
gpus=$(nvidia-smi -L | wc -l)
echo "== machine"; nvidia-smi -L; nvidia-smi topo -m 2>/dev/null | head -8; ./hsad-info | head -20
echo "== GPU suite: the slabs bit-exact to one GPU"
./gpu_tests --gtest_filter='GpuSlabs.*:GpuWaits.*' 2>&1 | tail -4
echo "== verify at small sizes (every GPU against one, and one against the host)"
for k in 5 7 8; do ./laplacian-bench --backend cuda --devices all --nx 128 --ny 96 --nz 67 --kernel $k --iters 5 --reps 1 --verify --format csv | tail -1; done
./laplacian-bench --backend cuda --devices all --halo staged --nx 128 --ny 96 --nz 67 --kernel 8 --iters 5 --reps 1 --verify --format csv | tail -1
for rep in 1 2; do
  echo "== repetition $rep: strong scaling, 1024^3"
  for k in 8 5; do
    ./laplacian-bench --backend cuda --devices all --nx 1024 --ny 1024 --nz 1024 --kernel $k --iters 10 --reps 7 --format csv
    ./peer 1024 1024 1024 "$gpus" $k 10 7
  done
  ./laplacian-bench --backend cuda --devices all --halo staged --nx 1024 --ny 1024 --nz 1024 --kernel 8 --iters 10 --reps 7 --format csv
  echo "== repetition $rep: weak scaling, 512^3 per GPU"
  for k in 8 5; do
    ./laplacian-bench --backend cuda --devices all --scaling weak --nx 512 --ny 512 --nz 512 --kernel $k --iters 10 --reps 7 --format csv
    ./peer 512 512 512 "$gpus" $k 10 7 weak
  done
  ./laplacian-bench --backend cuda --devices all --halo staged --scaling weak --nx 512 --ny 512 --nz 512 --kernel 8 --iters 10 --reps 7 --format csv
done
