#!/bin/sh
# test/gpu/chunk_log2.sh gpu|cpu: log2 of the engines' chunk sizes, read
# from their sources, for the tests whose inputs cross them: gpu, GPU_CHUNK
# of engine/gpu/setops_api.cu (elements of A and B together per launch, in
# no header); cpu, SETOPS_CPU_CHUNK of engine/cpu/engine.h.  Run from the
# checkout root; prints nothing and exits 1 when the definition is not found.
case $1 in
	gpu) n=$(sed -n 's/^#define GPU_CHUNK ((int64_t) 1 << \([0-9]*\))$/\1/p' engine/gpu/setops_api.cu) ;;
	cpu) n=$(sed -n 's/^#define SETOPS_CPU_CHUNK (1 << \([0-9]*\)).*/\1/p' engine/cpu/engine.h) ;;
esac
[ -n "${n:-}" ] || exit 1
echo "$n"
