#!/usr/bin/env bash
# One `mpi` test: laplacian-bench --mpi under Open MPI's mpirun, its exit status and output checked.
#   mpi_case.sh BENCH SIM CASE
# Open MPI refuses to run as root unless told it may (CI runs as root), and more ranks than cores
# need --oversubscribe (CI has two). A bound on every run turns a hang into a failure.
set -uo pipefail
bench=$1 sim=$2 case=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none  # containers often forbid the ptrace-based copy
out=$(mktemp)
trap 'rm -f "$out"' EXIT
small=(--nx 37 --ny 29 --nz 24 --iters 3 --reps 2)

mpi() {  # mpi RANKS [mpirun args --] ARGS...: runs, keeps the output, returns the exit status
  local ranks=$1
  shift
  local pre=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do pre+=("$1"); shift; done
  shift
  timeout --kill-after=10 120 mpirun --oversubscribe -n "$ranks" "${pre[@]}" "$@" >"$out" 2>&1
  local rc=$?
  cat "$out"
  [ $rc -eq 124 ] && { echo "FAIL: mpirun ran past 120 s (a hang)"; exit 1; }
  return $rc
}
expect() {  # expect PATTERN [COUNT]: the output matches PATTERN (exactly COUNT lines, when given)
  local n
  n=$(grep -cE -- "$1" "$out")
  if [ -n "${2:-}" ]; then [ "$n" -eq "$2" ] || { echo "FAIL: $2 line(s) matching '$1' expected, $n found"; exit 1; }
  else [ "$n" -gt 0 ] || { echo "FAIL: nothing matches '$1'"; exit 1; }; fi
}
status() {  # status WANT GOT
  [ "$2" -eq "$1" ] || { echo "FAIL: exit status $2, expected $1"; exit 1; }
}

case $case in
  two-ranks)  # every rank says where it runs; rank 0 prints both rows; the bits of one device
    mpi 2 -- "$bench" --mpi --backend cpu "${small[@]}" --verify --format csv; status 0 $?
    expect '^laplacian-bench: rank [01] of 2 on .*: cpu device \[0\] .*planes (1-11|12-22) \(11\), halos mpi-direct$' 2
    expect '^cpu,.*,2,2,11\+11,37,29,24,.*,mpi-direct,.*,0\.000000000000000,true$' 1
    expect '^backend,' 1 ;;
  three-ranks-staged)  # an uneven split, through pinned host copies
    mpi 3 -- "$bench" --mpi --backend cpu "${small[@]}" --verify --mpi-halo staged --format csv; status 0 $?
    expect '^cpu,.*,3,3,8\+7\+7,.*,mpi-staged,.*,true$' 1
    expect 'rank [012] of 3: .* ms per step .*, 12 halo exchanges' 3 ;;
  devices-per-rank)  # --devices inside each rank: two cpu agents each, of four; the local rank picks them
    mpi 2 -x HSAD_CPU_DEVICES=4 -- "$bench" --mpi --devices 2 --backend cpu "${small[@]}" --kernel 5 --verify --format csv
    status 0 $?
    expect 'rank 1 of 2 on .*\(local rank 1\): cpu devices \[2\] .* \[3\] .*halos mpi-direct\+peer$' 1
    expect '^cpu,.*,2,4,6\+5\+6\+5,.*,true$' 1 ;;
  sim-two-ranks)  # ROCr on a simulated GPU per rank: its memory is not MPI's, so the halos are staged
    mpi 2 -- "$sim" -- "$bench" --mpi --backend rocr "${small[@]}" --verify --format csv; status 0 $?
    expect '^rocr,.*,2,2,11\+11,.*,mpi-staged,.*,true$' 1 ;;
  fault-reaches-every-rank)  # one rank's batch faults: it and both others report it, and the job ends
    mpi 3 -- "$bench" --mpi --backend cpu "${small[@]}" --inject-fault 1; rc=$?
    [ $rc -ne 0 ] || { echo "FAIL: the job succeeded"; exit 1; }
    expect '^laplacian-bench: rank 1 of 3 \(.*\) failed: .*injected fault' 1
    expect '^laplacian-bench: rank [02] of 3: stopped: rank 1 of 3 \(.*\) failed: .*injected fault' 2 ;;
  sim-fault)  # a kernel's out-of-bounds access on one simulated GPU, reported by both ranks
    mpi 2 -- "$sim" -- "$bench" --mpi --backend rocr "${small[@]}" --inject-fault 0; rc=$?
    [ $rc -ne 0 ] || { echo "FAIL: the job succeeded"; exit 1; }
    expect '^laplacian-bench: rank 0 of 2 \(.*\) failed: .*outside every allocation' 1
    expect '^laplacian-bench: rank 1 of 2: stopped: rank 0 of 2 .*outside every allocation' 1 ;;
  more-ranks-than-planes)  # refused on every rank with the same words
    mpi 3 -- "$bench" --mpi --backend cpu --nz 4; status 2 $?
    expect '^laplacian-bench: rank [012] of 3: .*3 ranks for 2 interior planes \(nz = 4\): every rank needs at least one' 3 ;;
  set-up-failure)  # every rank fails to open two devices of one: all agree and print the first rank's error
    mpi 2 -- "$bench" --mpi --devices 2 --backend cpu "${small[@]}"; status 1 $?
    expect '^laplacian-bench: rank [01] of 2: rank 0 of 2: .*--devices 2 per rank: the cpu backend has 1' 2 ;;
  *) echo "unknown case '$case'"; exit 2 ;;
esac
echo "PASS: $case"
