export LD_LIBRARY_PATH=$PWD/lib
L=./laplacian-bench
for m in 4 8 16; do for b in 256,1,1 128,1,8 64,4,1 32,8,1 128,2,1 512,1,1 1024,1,1; do
  echo -n "m=$m block=$b: "; $L --backend cuda --nx 512 --ny 512 --nz 512 --kernel 5 --m $m --block $b --iters 20 --reps 3 --format csv | tail -1 | cut -d, -f10-13
done; done
for b in 128,1,8 64,4,1; do echo -n "1024^3 k6 m=8 block=$b: "; $L --backend cuda --nx 1024 --ny 1024 --nz 1024 --kernel 6 --block $b --iters 10 --reps 3 --format csv | tail -1 | cut -d, -f10-13; done
