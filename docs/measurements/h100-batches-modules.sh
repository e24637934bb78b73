# The measurements of docs/results.md's "Batches of commands and apps' own modules" section
# (H100): the GPU tests, the example app on its own fatbin, and three runs of the bitonic ladder
# with the +copies row (the seed's whole iteration, copies included, as one submission) beside
# the peers, then one with device timestamps (--profile). Run in .dev/ (scripts/device-bundle.sh).
export LD_LIBRARY_PATH=$PWD/lib HSAD_TEST_MODULES_DIR=$PWD/modules
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
./gpu_tests --gtest_brief=1 2>&1 | tail -1
./example/saxpy-pipeline cuda
for run in 1 2 3; do ./bitonic-bench --backend cuda --opt all,replay --peers --iters 300 --warmup 30; done
./bitonic-bench --backend cuda --opt all,replay --iters 100 --warmup 10 --profile
