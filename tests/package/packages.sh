#!/usr/bin/env bash
# The package stage (scripts/test.sh): builds the Debian packages, installs them with apt-get,
# builds examples/saxpy-pipeline against /usr twice (find_package, then pkg-config and a plain
# compiler line), runs both on the best backend present, removes the packages and checks that no
# file they installed is left. Needs root (apt-get). Fails at the first step that goes wrong.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

preset=${1:-default}  # the build the test stage already made

# has PATTERN TEXT: whether TEXT holds a line matching the basic regular expression PATTERN.
# The checks below capture a command's output first and then look in it: `cmd | grep -q` under
# pipefail fails whenever grep leaves at its match before cmd's last write (SIGPIPE), which made
# CI fail once on an install that was fine.
has() { grep -q -- "$1" <<<"$2"; }

# An install under a prefix of the user's choosing, then moved elsewhere: everything in it finds
# its own files relative to where it lies (the apps' run path, hsad-sim's library folder, the
# CMake package, the .pc file), with no LD_LIBRARY_PATH and nothing under /usr.
echo "=== cmake --install under a scratch prefix, then moved"
cmake --install "build/$preset" --prefix "$work/prefix" >/dev/null
mv "$work/prefix" "$work/moved"
p="$work/moved"
has "libhsadispatch.so.* => $p/" "$(ldd "$p/bin/bitonic-bench")" \
  || { echo "the installed bitonic-bench does not find the libhsadispatch installed beside it" >&2; exit 1; }
has '^+replay,' "$(env -u LD_LIBRARY_PATH "$p/bin/bitonic-bench" --backend cpu --opt all --n 4096 --iters 3 --warmup 1 --format csv)" \
  || { echo "the installed bitonic-bench did not print the ladder" >&2; exit 1; }
if [ -e /usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1 ] && [ -x "$p/bin/hsad-sim" ]; then
  has "simulated gfx90a" "$(env -u LD_LIBRARY_PATH "$p/bin/hsad-sim" -- "$p/bin/hsad-info")" \
    || { echo "the installed hsad-sim did not show the simulated GPU to the installed hsad-info" >&2; exit 1; }
fi
# The example against the moved prefix (its host kernels only: the compilers' builds are below).
cmake -S examples/saxpy-pipeline -B "$work/prefix-example" -G Ninja -DCMAKE_PREFIX_PATH="$p" \
  -DSAXPY_HIPCC=SAXPY_HIPCC-NOTFOUND -DSAXPY_NVCC=SAXPY_NVCC-NOTFOUND >/dev/null
cmake --build "$work/prefix-example" >/dev/null
has "0 wrong" "$(cd "$work/prefix-example" && ./saxpy-pipeline cpu)" \
  || { echo "the example built against the moved prefix did not run" >&2; exit 1; }
has "-I$p/" "$(PKG_CONFIG_PATH="$(dirname "$(find "$p" -name hsadispatch.pc)")" pkg-config --cflags --libs hsadispatch)" \
  || { echo "the moved prefix's hsadispatch.pc does not point into it" >&2; exit 1; }
rm -rf "$p" "$work/prefix-example"
echo "--- the moved install ran the ladder, hsad-sim -- hsad-info and the example"

bash scripts/package.sh "$preset"
mapfile -t debs < <(ls "build/$preset"/*.deb)
names=()
for d in "${debs[@]}"; do names+=("$(dpkg-deb -f "$d" Package)"); done
echo "=== packages: ${names[*]}"
for d in "${debs[@]}"; do echo "--- $(dpkg-deb -f "$d" Package): Depends: $(dpkg-deb -f "$d" Depends)"; done

# What they will install, to check it is gone afterwards.
for d in "${debs[@]}"; do dpkg-deb -c "$d" | awk '{print $6}' | sed 's|^\./|/|' | grep -v '/$' >> "$work/files"; done
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get install -y -q --no-install-recommends "${debs[@]/#/$root/}" >/dev/null
dpkg -s "${names[@]}" | grep -E '^(Package|Status|Version):'

echo "=== the example with find_package"
cmake -S examples/saxpy-pipeline -B "$work/cmake" -G Ninja >/dev/null
cmake --build "$work/cmake" >/dev/null
(cd "$work/cmake" && ./saxpy-pipeline)

echo "=== the example with pkg-config: $(pkg-config --cflags --libs hsadispatch)"
mkdir -p "$work/plain"
# shellcheck disable=SC2046
g++ -O2 examples/saxpy-pipeline/main.cpp -o "$work/plain/saxpy-pipeline" $(pkg-config --cflags --libs hsadispatch)
cp "$work/cmake"/saxpy.* "$work/plain/" 2>/dev/null || true  # the GPU kernels the program loads from its folder
(cd "$work/plain" && ./saxpy-pipeline)
# (/lib is /usr/lib on Debian 12: ldd may name either)
has "libhsadispatch.so.$(pkg-config --modversion hsadispatch | cut -d. -f1) => \\(/usr\\)\\?/lib/" "$(ldd "$work/plain/saxpy-pipeline")" \
  || { echo "the plain build does not use the installed shared object" >&2; exit 1; }
hsad-info --version
# hsad-sim from /usr/bin finds its stand-in library where the package put it (ROCr is there in CI).
if [ -e /usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1 ]; then
  has "simulated gfx90a" "$(hsad-sim -- hsad-info)" \
    || { echo "hsad-sim from /usr/bin did not show the simulated GPU to hsad-info" >&2; exit 1; }
fi
# ... and the interpreter's x86-64-v3 copy where the build made one, where glibc's loader looks for it.
if [ -d "build/$preset/sim/lib/glibc-hwcaps/x86-64-v3" ]; then
  has '/hsadispatch/sim/glibc-hwcaps/x86-64-v3/libhsad-sim.so$' "$(dpkg -L "${names[@]}")" \
    || { echo "the packages lack the simulator's x86-64-v3 library" >&2; exit 1; }
fi

echo "=== removing"
$sudo apt-get remove --purge -y -q "${names[@]}" >/dev/null
left=0
while read -r f; do
  if [ -e "$f" ] || [ -L "$f" ]; then echo "left behind: $f" >&2; left=1; fi
done < "$work/files"
[ "$left" -eq 0 ] || exit 1
echo "=== the packages installed, built the example both ways, ran it, and left nothing behind ($(wc -l < "$work/files") files)"
