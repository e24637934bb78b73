export LD_LIBRARY_PATH=$PWD/lib
for pdl in 1 0; do
  echo "=== HSAD_CUDA_EARLY_LAUNCH=$pdl"
  HSAD_CUDA_EARLY_LAUNCH=$pdl ./gpu_tests --gtest_brief=1 2>&1 | tail -1
  for run in 1 2; do HSAD_CUDA_EARLY_LAUNCH=$pdl ./bitonic-bench --backend cuda --opt all,replay --iters 300 --warmup 30 | cut -c1-100 | tail -8; done
  HSAD_CUDA_EARLY_LAUNCH=$pdl ./dispatch-bench --backend cuda --opt all --count 10000 --reps 21 | tail -1
done
