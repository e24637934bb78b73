# Issue 15 (what is left): Kernels 5, 6, 7 against the plain CUDA kernels at 512^3 and 1024^3,
# now with the plain kernel in Kernel 6's order of work-groups too (laplacian-bench --peers), and
# ncu's view of the project's Kernels 5 and 6 beside the plain ones at 512^3. From .dev/.
export LD_LIBRARY_PATH=$PWD/lib
L=./laplacian-bench
for n in 512 1024; do
  for k in 5 6 7; do $L --backend cuda --nx $n --ny $n --nz $n --kernel $k --iters 10 --reps 5 --peers --format csv | tail -n +2; done
done
MET=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
MET=$MET,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
MET=$MET,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed.sum
for k in 5 6; do
  echo "## project Kernel $k, 512^3"
  ncu --kernel-name regex:laplacian${k}_m8 --launch-skip 1 --launch-count 1 --metrics $MET \
    $L --backend cuda --nx 512 --ny 512 --nz 512 --kernel $k --iters 1 --reps 1 2>&1 | grep -E "^  [a-z_<>]+.*\(|__"
done
echo "## plain Kernel 5 (second launch), then plain Kernel 6 (two launches), 512^3"
ncu --kernel-name regex:plain_laplacian --launch-skip 1 --launch-count 3 --metrics $MET \
  $L --backend cuda --nx 512 --ny 512 --nz 512 --kernel 5 --iters 1 --reps 1 --peers 2>&1 | grep -E "^  [a-z_<>]+.*\(|__"
