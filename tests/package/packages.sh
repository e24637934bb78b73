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
  dpkg -L "${names[@]}" | grep -q '/hsadispatch/sim/glibc-hwcaps/x86-64-v3/libhsakmt.so.1$' \
    || { echo "the packages lack the x86-64-v3 stand-in library" >&2; exit 1; }
fi

echo "=== removing"
$sudo apt-get remove --purge -y -q "${names[@]}" >/dev/null
left=0
while read -r f; do
  if [ -e "$f" ] || [ -L "$f" ]; then echo "left behind: $f" >&2; left=1; fi
done < "$work/files"
[ "$left" -eq 0 ] || exit 1
echo "=== the packages installed, built the example both ways, ran it, and left nothing behind ($(wc -l < "$work/files") files)"
