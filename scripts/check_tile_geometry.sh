#!/usr/bin/env bash
# scripts/check_tile_geometry.sh: fail when a GPU kernel's tile shape can
# differ from engine/common/tile_geometry.h, the one place the SQL suites
# read the tile sizes from (through the test hook setops_test_tile_slots).
#
# tile_load.cuh (the operations' tiles, and count_kernel.cu's through it)
# takes the header's macros; two kernels keep literals of their own, which
# must equal the header's values: count_kernel.cu's 128 threads and its
# fallback VT defines, and sort.cu's UNIQUE_NT and UNIQUE_VT.
set -uo pipefail
cd "$(dirname "$0")/.."

hdr=engine/common/tile_geometry.h
fail=0
bad() {
	echo "check_tile_geometry: $1" >&2
	fail=1
}
# macro NAME: the number the header defines NAME as (read as text: the GPU
# machine, which runs this too, has no C compiler)
macro() {
	sed -nE "s/^#define $1 ([0-9]+)\$/\1/p" "$hdr" | head -1
}
# literal FILE REGEX: the number that REGEX's first group matches in FILE
literal() {
	sed -nE "s/$2/\\1/p" "$1" | head -1
}

[ -f "$hdr" ] || { bad "$hdr is missing"; exit 1; }
grep -q '#include "../common/tile_geometry.h"' engine/gpu/tile_load.cuh ||
	bad "engine/gpu/tile_load.cuh does not include $hdr"
grep -nE '^#define SETOPS_(NT|VT)(32|64) ' engine/gpu/*.cu engine/gpu/*.cuh engine/gpu/*.h &&
	bad "a kernel defines the operations' tile shape itself (above)"
grep -q 'TileShapeOf<int32_t, SETOPS_NT32, SETOPS_VT32>' engine/gpu/tile_load.cuh &&
	grep -q 'TileShapeOf<int64_t, SETOPS_NT64, SETOPS_VT64>' engine/gpu/tile_load.cuh ||
	bad "engine/gpu/tile_load.cuh's TileShape does not take SETOPS_NT32/VT32/NT64/VT64"

check() {	# what, value in the kernel, header macro
	local want
	want=$(macro "$3")
	if [ -z "$2" ]; then
		bad "$1: not found in the kernel's source (the check needs updating)"
	elif [ "$2" != "$want" ]; then
		bad "$1 is $2 in the kernel, $want in $hdr ($3)"
	else
		echo "$1 = $2 ($3)"
	fi
}
c=engine/gpu/count_kernel.cu
check "count threads, int4" "$(literal $c '.*struct CountShape<int32_t> : TileShapeOf<int32_t, ([0-9]+), SETOPS_COUNT_VT32>.*')" SETOPS_COUNT_NT
check "count threads, int8" "$(literal $c '.*struct CountShape<int64_t> : TileShapeOf<int64_t, ([0-9]+), SETOPS_COUNT_VT64>.*')" SETOPS_COUNT_NT
for v in VT32 VT64; do
	# a fallback define in the kernel is dead while tile_load.cuh comes first; it must still agree
	n=$(literal $c "^#define SETOPS_COUNT_$v ([0-9]+).*")
	[ -z "$n" ] || check "count_kernel.cu's fallback SETOPS_COUNT_$v" "$n" "SETOPS_COUNT_$v"
done
# the header (through tile_load.cuh) must come before the kernel's fallback
inc=$(grep -n '#include "tile_load.cuh"' $c | head -1 | cut -d: -f1)
def=$(grep -n '^#define SETOPS_COUNT_VT32' $c | head -1 | cut -d: -f1)
[ -z "$def" ] || { [ -n "$inc" ] && [ "$inc" -lt "$def" ]; } ||
	bad "count_kernel.cu defines SETOPS_COUNT_VT32 before it includes tile_load.cuh"
s=engine/gpu/sort.cu
check "distinct threads" "$(literal $s '^const int[[:space:]]+UNIQUE_NT = ([0-9]+);.*')" SETOPS_UNIQUE_NT
check "distinct slots a thread" "$(literal $s '^const int[[:space:]]+UNIQUE_VT = ([0-9]+);.*')" SETOPS_UNIQUE_VT

for m in NT32 VT32 NT64 VT64 COUNT_NT COUNT_VT32 COUNT_VT64 UNIQUE_NT UNIQUE_VT; do
	[ -n "$(macro SETOPS_$m)" ] || bad "$hdr does not define SETOPS_$m as a number"
done
[ $fail = 0 ] && echo "slots a tile: operations $(($(macro SETOPS_NT32) * $(macro SETOPS_VT32))) int4," \
	"$(($(macro SETOPS_NT64) * $(macro SETOPS_VT64))) int8; counts" \
	"$(($(macro SETOPS_COUNT_NT) * $(macro SETOPS_COUNT_VT32))) int4," \
	"$(($(macro SETOPS_COUNT_NT) * $(macro SETOPS_COUNT_VT64))) int8; distinct" \
	"$(($(macro SETOPS_UNIQUE_NT) * $(macro SETOPS_UNIQUE_VT)))"
[ $fail = 0 ] && echo "check_tile_geometry: the kernels' tiles are the header's"
exit $fail
