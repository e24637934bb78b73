#!/usr/bin/env bash
# Issue 46, item 1, as one command from the device bundle (bash scripts/device-bundle.sh here; on a
# machine with several NVIDIA GPUs: cd .dev && bash multi-gpu-peers.sh): laplacian-bench --devices all
# --peers, the library's slabs beside the in-app CUDA-runtime slab peer (vendor_slabs.cu: the same
# slabs and kernel functions, cudaMemcpyPeerAsync), each measuring one GPU and then all of them in
# the same process. Strong scaling at 1024^3, weak at 512^3 per GPU, Kernels 8 and 5; the library's
# staged route beside; the bit-exact check first. Two repetitions.
set -uo pipefail
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} HSAD_TEST_MODULES_DIR=$PWD/modules
export NCCL_NVLS_ENABLE=0  # nothing here uses NCCL; kept as the machine asks
lb=./laplacian-bench
echo "== machine"; nvidia-smi -L; nvidia-smi topo -m 2>/dev/null | head -6; ./hsad-info | head -12
echo "== verify at a small size: every GPU against one, one against the host; the peer beside"
for k in 8 5; do $lb --backend cuda --devices all --nx 128 --ny 96 --nz 67 --kernel $k --iters 5 --reps 1 --verify --peers --format csv; done
$lb --backend cuda --devices all --halo staged --nx 128 --ny 96 --nz 67 --kernel 8 --iters 5 --reps 1 --verify --format csv | tail -1
for rep in 1 2; do
  echo "== repetition $rep: strong scaling, 1024^3 ($(date +%T))"
  for k in 8 5; do $lb --backend cuda --devices all --nx 1024 --ny 1024 --nz 1024 --kernel $k --iters 10 --reps 7 --peers --format csv; done
  $lb --backend cuda --devices all --halo staged --nx 1024 --ny 1024 --nz 1024 --kernel 8 --iters 10 --reps 7 --format csv | tail -1
  echo "== repetition $rep: weak scaling, 512^3 per GPU ($(date +%T))"
  for k in 8 5; do $lb --backend cuda --devices all --scaling weak --nx 512 --ny 512 --nz 512 --kernel $k --iters 10 --reps 7 --peers --format csv; done
  $lb --backend cuda --devices all --halo staged --scaling weak --nx 512 --ny 512 --nz 512 --kernel 8 --iters 10 --reps 7 --format csv | tail -1
done
echo "== done ($(date +%T))"
