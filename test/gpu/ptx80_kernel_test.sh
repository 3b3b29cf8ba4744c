#!/usr/bin/env bash
# test/gpu/ptx80_kernel_test.sh: kernel_test with every kernel as compute_80
# PTX only (make gpu-tests first, for the CPU engine objects). On an H100 the
# driver JIT-compiles it, so the pre-Hopper paths (cp.async, no bulk copies)
# run there: test/gpu/kernel_test.ptx80 quick
set -euo pipefail
cd "$(dirname "$0")/../.."
NVCC=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
flags=(-O3 -std=c++17 -gencode "arch=compute_80,code=compute_80")
tmp=$(mktemp -d)
for f in engine/gpu/*.cu; do
	"$NVCC" "${flags[@]}" -c "$f" -o "$tmp/$(basename "$f" .cu).o"
done
# the test build of setops_api.cu (its fault injection) replaces the library's
"$NVCC" "${flags[@]}" -DSETOPS_GPU_TEST_HOOKS -c engine/gpu/setops_api.cu -o "$tmp/setops_api.o"
"$NVCC" "${flags[@]}" -DSETOPS_TEST_GPU_CHUNK_LOG2="$(sh test/gpu/chunk_log2.sh gpu)" \
	-o test/gpu/kernel_test.ptx80 test/gpu/kernel_test.cu "$tmp"/*.o test/gpu/engine_*.o
rm -rf "$tmp"
echo "built test/gpu/kernel_test.ptx80"
