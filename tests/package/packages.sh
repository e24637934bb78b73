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

# An install under a prefix of the user's choosing, then moved elsewhere: everything in it finds
# its own files relative to where it lies (the apps' run path, hsad-sim's library folder, the
# CMake package, the .pc file), with no LD_LIBRARY_PATH and nothing under /usr.
echo "=== cmake --install under a scratch prefix, then moved"
cmake --install "build/$preset" --prefix "$work/prefix" >/dev/null
mv "$work/prefix" "$work/moved"
p="$work/moved"
ldd "$p/bin/bitonic-bench" | grep -q "libhsadispatch.so.* => $p/" \
  || { echo "the installed bitonic-bench does not find the libhsadispatch installed beside it" >&2; exit 1; }
(unset LD_LIBRARY_PATH; "$p/bin/bitonic-bench" --backend cpu --opt all --n 4096 --iters 3 --warmup 1 --format csv) | grep -q '^+replay,' \
  || { echo "the installed bitonic-bench did not print the ladder" >&2; exit 1; }
if [ -e /usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1 ] && [ -x "$p/bin/hsad-sim" ]; then
  (unset LD_LIBRARY_PATH; "$p/bin/hsad-sim" -- "$p/bin/hsad-info") | grep -q "simulated gfx90a" \
    || { echo "the installed hsad-sim did not show the simulated GPU to the installed hsad-info" >&2; exit 1; }
fi
# The example against the moved prefix (its host kernels only: the compilers' builds are below).
cmake -S examples/saxpy-pipeline -B "$work/prefix-example" -G Ninja -DCMAKE_PREFIX_PATH="$p" \
  -DSAXPY_HIPCC=SAXPY_HIPCC-NOTFOUND -DSAXPY_NVCC=SAXPY_NVCC-NOTFOUND >/dev/null
cmake --build "$work/prefix-example" >/dev/null
(cd "$work/prefix-example" && ./saxpy-pipeline cpu) | grep -q "0 wrong" \
  || { echo "the example built against the moved prefix did not run" >&2; exit 1; }
PKG_CONFIG_PATH="$(dirname "$(find "$p" -name hsadispatch.pc)")" pkg-config --cflags --libs hsadispatch | grep -q -- "-I$p/" \
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
ldd "$work/plain/saxpy-pipeline" | grep -Eq "libhsadispatch.so.$(pkg-config --modversion hsadispatch | cut -d. -f1) => (/usr)?/lib/" \
  || { echo "the plain build does not use the installed shared object" >&2; exit 1; }
hsad-info --version
# hsad-sim from /usr/bin finds its stand-in library where the package put it (ROCr is there in CI).
if [ -e /usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1 ]; then hsad-sim -- hsad-info | grep -q "simulated gfx90a"; fi
# ... and the interpreter's x86-64-v3 copy where the build made one, where glibc's loader looks for it.
if [ -d "build/$preset/sim/lib/glibc-hwcaps/x86-64-v3" ]; then
  dpkg -L "${names[@]}" | grep -q '/hsadispatch/sim/glibc-hwcaps/x86-64-v3/libhsad-sim.so$' \
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
