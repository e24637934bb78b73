# Each completion/argument variant: the ladder (all,replay) and the empty-dispatch cost.
export LD_LIBRARY_PATH=$PWD/lib
./gpu_tests 2>&1 | tail -3
for c in event memwrite; do for a in buffer params; do
  echo "=== HSAD_CUDA_COMPLETION=$c HSAD_CUDA_ARGS=$a"
  HSAD_CUDA_COMPLETION=$c HSAD_CUDA_ARGS=$a ./gpu_tests --gtest_brief=1 2>&1 | tail -1
  HSAD_CUDA_COMPLETION=$c HSAD_CUDA_ARGS=$a ./bitonic-bench --backend cuda --opt all,replay --iters 200 --warmup 20 | cut -c1-100 | tail -8
  HSAD_CUDA_COMPLETION=$c HSAD_CUDA_ARGS=$a ./dispatch-bench --backend cuda --opt all --count 10000 --reps 21 | tail -1
  HSAD_CUDA_COMPLETION=$c HSAD_CUDA_ARGS=$a ./dispatch-bench --backend cuda --opt signal,kernarg --count 2000 --reps 21 | tail -1
done; done
