#!/usr/bin/env bash
# Gathers what a run on the device tool's GPU machine needs into .dev/ (ignored by git, carried
# with `carry: [".dev"]`): the apps, the GPU tests and their module files, the example, stripped
# to fit the tool's 64 MiB. Run after building build/default. On the device machine:
#   cd .dev && export LD_LIBRARY_PATH=$PWD/lib HSAD_TEST_MODULES_DIR=$PWD/modules HSAD_FAULT_PROBE=$PWD/hsad-fault-probe
#   ./gpu_tests
set -euo pipefail
cd "$(dirname "$0")/.."
b=build/default
rm -rf .dev && mkdir -p .dev/modules .dev/example .dev/lib
for f in $b/apps/bitonic-bench/bitonic-bench $b/apps/laplacian-bench/laplacian-bench $b/apps/dispatch-bench/dispatch-bench $b/apps/jacobi-bench/jacobi-bench \
         $b/apps/hsad-info/hsad-info $b/tests/gpu_tests $b/tests/gpu_cuda_interop_tests $b/tests/hsad-fault-probe $b/tests/hsad-load; do
  [ -f "$f" ] && cp "$f" .dev/
done
for f in $b/apps/memory-bench/memory-bench; do [ -f "$f" ] && cp "$f" .dev/; done
cp $b/tests/modules/* .dev/modules/
if [ -d $b/tests/example-cpu/build ]; then
  cp $b/tests/example-cpu/build/saxpy-pipeline $b/tests/example-cpu/build/saxpy.fatbin .dev/example/
fi
# Standalone explorations measured beside the apps (docs/measurements/*-explore.cu), where nvcc is here.
if [ -x /usr/local/cuda/bin/nvcc ]; then
  /usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 -Ikernels -o .dev/k5x docs/measurements/h100-laplacian-k5-explore.cu
  # The CUDA-runtime peer of laplacian-bench --devices (issue 22).
  /usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 -Ikernels -o .dev/peer docs/measurements/multi-gpu-laplacian-peer.cu
  # What a replayed submit's driver calls cost alone (issue 60): plain C++ over cuda.h and the stub libcuda.
  g++ -O2 -std=c++17 -pthread -I/usr/local/cuda/include -o .dev/cuda-replay-probe docs/measurements/cuda-replay-probe.cpp \
    -L/usr/local/cuda/lib64/stubs -lcuda
  # Issue 60, seventh session: how the host's wait, the stream, the CPU and the graph's shape change
  # what a launch costs (cuda-graph-shapes also takes the library's own kernels from their fatbin).
  for probe in cuda-wait-probe cuda-wait-paired cuda-launch-levels; do
    g++ -O2 -std=c++17 -pthread -I/usr/local/cuda/include -o .dev/$probe docs/measurements/$probe.cpp \
      -L/usr/local/cuda/lib64/stubs -lcuda
  done
  g++ -O2 -std=c++17 -pthread -I/usr/local/cuda/include -o .dev/cuda-graph-shapes docs/measurements/cuda-graph-shapes.cpp \
    -L/usr/local/cuda/lib64/stubs -L/usr/local/cuda/lib64 -lcudart_static -lcuda -ldl -lrt
  cp $b/kernels/kernels.fatbin .dev/
  # Issue 60, eleventh session: launches of other kinds (a graph for device launch, a trampoline
  # that tail-launches one, plain kernels) against cudaGraphLaunch; nvcc -rdc for libcudadevrt.
  /usr/local/cuda/bin/nvcc -O2 -std=c++17 -arch=sm_90 -rdc=true -Idocs/measurements -o .dev/cuda-launch-kinds \
    docs/measurements/cuda-launch-kinds.cu -L/usr/local/cuda/lib64/stubs -lcudadevrt -lcuda
  # A boundary between the application's CUDA work and a batch: host waits against native handles (issue 34).
  /usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 -Iruntime/include -I$b/include -o .dev/interop-boundary \
    docs/measurements/interop-boundary.cu -L$b/runtime -lhsadispatch
fi
# The measurement scripts, run from .dev/ (bash h100-issue15.sh, bash h100-memory.sh 1, ...).
cp docs/measurements/h100-*.sh docs/measurements/multi-gpu-*.sh docs/measurements/gpu-sanitizers.sh docs/measurements/gpu-modes.sh docs/measurements/gpu-load.sh \
   docs/measurements/mpi-laplacian.sh .dev/
# Open MPI's runtime for laplacian-bench --mpi (the GPU machine has none): .dev/openmpi/env.sh.
if command -v orterun >/dev/null; then bash scripts/openmpi-bundle.sh .dev/openmpi >/dev/null; fi
# The device machine has no Boost: the apps' one shared library travels (LD_LIBRARY_PATH=lib).
cp -L /usr/lib/x86_64-linux-gnu/libboost_program_options.so.1.74.0 .dev/lib/
# ... and libhsadispatch itself, which the apps link as a shared object (the tests link it statically).
cp -a $b/runtime/libhsadispatch.so* .dev/lib/
strip --strip-debug .dev/* .dev/lib/libhsadispatch.so.*.* .dev/example/saxpy-pipeline 2>/dev/null || true  # (the scripts are left as they are)
mkdir -p .git/info && grep -qx '/.dev/' .git/info/exclude 2>/dev/null || echo '/.dev/' >> .git/info/exclude
du -sh .dev
