# Issue 15's record: one device-tool call on a fresh machine, run twice (two calls, the machine
# given back between them). The Laplacian kernels against the plain CUDA kernel at the four sizes
# (h100-laplacian-peers.sh part 1), then the sorts (h100-bitonic-lds.sh), then the Kernel 5
# variants at 512^3 (k5x, built by scripts/device-bundle.sh).
cd "$(dirname "$0")"
bash h100-laplacian-peers.sh 1
bash h100-bitonic-lds.sh
# Kernel 5 at 512^3 against the plain kernel and its variants (h100-laplacian-k5-explore.cu).
./k5x
