# The measurements in docs/results.md (defaults: memwrite completion, packed argument buffer,
# early launch on sm_90). Rows interleaved; peers measured after the ladder in the same process.
export LD_LIBRARY_PATH=$PWD/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
./gpu_tests --gtest_brief=1 2>&1 | tail -1
for run in 1 2 3; do ./bitonic-bench --backend cuda --opt all,replay --peers --iters 300 --warmup 30; done
./bitonic-bench --backend cuda --opt all,replay --peers --iters 300 --warmup 30 --format json
for o in none all all,replay; do ./dispatch-bench --backend cuda --opt $o --count 10000 --reps 21 | tail -1; done
nproc; ./dispatch-bench --backend cpu --opt all --count 10000 --reps 21 | tail -1
./bitonic-bench --backend cpu --iters 100 | tail -7
