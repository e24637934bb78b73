# Issue 15: two or more forms of kernels/laplacian.hpp side by side on one machine. Each variant
# directory holds a laplacian-bench and a k5x built from that form (build/default with the form in
# place, then `cp build/default/apps/laplacian-bench/laplacian-bench .dev/vX/` and nvcc of
# h100-laplacian-k5-explore.cu into .dev/vX/k5x). Run from .dev/: bash h100-laplacian-variants.sh vA vB
# Every size: each variant's Kernel 5 with the plain kernel beside it (--peers, same process), then
# each variant's Kernel 7 --split auto; the variants alternate, so drift lands on all alike.
export LD_LIBRARY_PATH=$PWD/lib
variants=("$@")
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for s in "512 512 512" "1024 1024 1024" "2048 2048 256" "4096 4096 64"; do
  read -r nx ny nz <<< "$s"
  v=""; [ $nx = 512 ] && v=--verify
  for d in "${variants[@]}"; do
    ./$d/laplacian-bench --backend cuda --nx $nx --ny $ny --nz $nz --kernel 5 --iters 10 --reps 5 $v --peers --format csv |
      tail -n +2 | grep -v ',6,' | sed "s|^|$d,|"
  done
  for d in "${variants[@]}"; do
    ./$d/laplacian-bench --backend cuda --nx $nx --ny $ny --nz $nz --kernel 7 --split auto --iters 10 --reps 5 $v --format csv |
      tail -1 | sed "s|^|$d,|"
  done
done
for d in "${variants[@]}"; do echo "# $d/k5x (512^3)"; ./$d/k5x; done
