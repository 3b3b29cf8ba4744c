#!/usr/bin/env bash
# test/gpu/kernel_variants.sh OUTDIR NAME=FLAGS...
#
# kernel_bench (BIN=kernel_test: the kernel tests) built once per variant of the tile kernels' compile-time
# knobs (the operations' tile shapes SETOPS_NT32/VT32/NT64/VT64, the count's
# SETOPS_COUNT_VT32/VT64, the skew path's SETOPS_SKEW_VT), for a side-by-side run
# on the GPU machine: OUTDIR/kernel_bench.NAME.  Only the files the knobs
# touch are recompiled (sm_90); the rest of gpu/ comes from the library
# as built (make gpu-tests first, for the tests' CPU engine objects).
# Example:
#   bash test/gpu/kernel_variants.sh .gpubin base= vt23=-DSETOPS_COUNT_VT32=23
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: kernel_variants.sh OUTDIR NAME=FLAGS...}
shift
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=$CUDA_HOME/bin/nvcc
bin=${BIN:-kernel_bench}
extra=()
[ "$bin" = kernel_test ] && extra=(test/gpu/engine_*.o)
make -s engine/gpu/libsetops_gpu.a >/dev/null
mkdir -p "$out"
knobbed="setop_kernel count_kernel skew_kernel"
for v in "$@"; do
	name=${v%%=*}
	flags=${v#*=}
	tmp=$(mktemp -d)
	for f in $knobbed; do
		# shellcheck disable=SC2086
		$NVCC -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 $flags -c engine/gpu/$f.cu -o "$tmp/$f.o"
	done
	for o in engine/gpu/*.o; do
		case " $knobbed " in *" $(basename "$o" .o) "*) ;; *) cp "$o" "$tmp/" ;; esac
	done
	# shellcheck disable=SC2086
	$NVCC -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 $flags \
		-DSETOPS_TEST_GPU_CHUNK_LOG2="$(sh test/gpu/chunk_log2.sh gpu)" -o "$out/$bin.$name" \
		test/gpu/$bin.cu "$tmp"/*.o "${extra[@]}"
	rm -rf "$tmp"
	echo "built $out/$bin.$name ($flags)"
done
