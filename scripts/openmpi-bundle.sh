#!/usr/bin/env bash
# Copies this machine's Open MPI runtime (Debian 12's openmpi-bin and its libraries) into DIR, to be
# carried to a machine that has none (the device tool's GPU machines). There:
#   source DIR/env.sh   (OPAL_PREFIX and PMIX_INSTALL_PREFIX point the runtime at DIR; its
#                        libraries go on LD_LIBRARY_PATH)
# Layout under DIR mirrors /usr, as OPAL_PREFIX relocates every path below the prefix.
set -euo pipefail
dir=${1:?usage: openmpi-bundle.sh DIR}
arch=x86_64-linux-gnu
ompi=/usr/lib/$arch/openmpi
pmix=/usr/lib/$arch/pmix2
rm -rf "$dir" && mkdir -p "$dir/bin" "$dir/deps" "$dir/lib/$arch/openmpi/lib" "$dir/lib/$arch/pmix2/lib" "$dir/share"
cp -L /usr/bin/orterun /usr/bin/orted "$dir/bin/"
ln -s orterun "$dir/bin/mpirun"
cp -a "$ompi/lib/openmpi3" "$dir/lib/$arch/openmpi/lib/"
cp -a "$pmix/lib/pmix" "$dir/lib/$arch/pmix2/lib/"
cp -a "$pmix/share" "$dir/lib/$arch/pmix2/"
cp -a /usr/share/openmpi "$dir/share/"
[ -d /usr/share/pmix ] && cp -a /usr/share/pmix "$dir/share/"
# Every library they load but the C and C++ runtimes, which the machine has.
for f in "$dir/bin/orterun" "$dir/bin/orted" /usr/lib/$arch/libmpi.so.40 "$dir"/lib/$arch/openmpi/lib/openmpi3/*.so \
         "$dir"/lib/$arch/pmix2/lib/pmix/*.so; do
  ldd "$f" 2>/dev/null | awk '/=> \//{print $3}'
done | sort -u | grep -vE '/(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s)\.so|ld-linux' |
  while read -r lib; do cp -L "$lib" "$dir/deps/"; done
cat > "$dir/env.sh" <<'ENV'
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export OPAL_PREFIX=$here PMIX_INSTALL_PREFIX=$here/lib/x86_64-linux-gnu/pmix2
export PATH=$here/bin:$PATH LD_LIBRARY_PATH=$here/deps${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_MCA_mca_base_component_show_load_errors=0  # transports whose hardware is absent stay quiet
export PMIX_MCA_pcompress_base_silence_warning=1     # its zlib plugin is not found where it looks once moved
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
ENV
du -sh "$dir"
