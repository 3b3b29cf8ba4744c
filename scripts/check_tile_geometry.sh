#!/usr/bin/env bash
# scripts/check_tile_geometry.sh: fail when a GPU kernel's tile shape can
# differ from engine/common/tile_geometry.h, the one place the SQL suites
# read the tile sizes from (through the test hook setops_test_tile_slots).
#
# tile_load.cuh (the operations' tiles, and count_kernel.cu's through it)
# and sort.cu take the header's macros; no kernel may define a shape of
# its own.
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

[ -f "$hdr" ] || { bad "$hdr is missing"; exit 1; }
grep -q '#include "../common/tile_geometry.h"' engine/gpu/tile_load.cuh ||
	bad "engine/gpu/tile_load.cuh does not include $hdr"
grep -nE '^#define SETOPS_(NT|VT)(32|64) ' engine/gpu/*.cu engine/gpu/*.cuh engine/gpu/*.h &&
	bad "a kernel defines the operations' tile shape itself (above)"
grep -q 'TileShapeOf<int32_t, SETOPS_NT32, SETOPS_VT32>' engine/gpu/tile_load.cuh &&
	grep -q 'TileShapeOf<int64_t, SETOPS_NT64, SETOPS_VT64>' engine/gpu/tile_load.cuh ||
	bad "engine/gpu/tile_load.cuh's TileShape does not take SETOPS_NT32/VT32/NT64/VT64"

# the count and the distinct take the header's macros, and no kernel
# defines a shape of its own
c=engine/gpu/count_kernel.cu
grep -q 'TileShapeOf<int32_t, SETOPS_COUNT_NT, SETOPS_COUNT_VT32>' $c &&
	grep -q 'TileShapeOf<int64_t, SETOPS_COUNT_NT, SETOPS_COUNT_VT64>' $c ||
	bad "$c's CountShape does not take SETOPS_COUNT_NT/VT32/VT64"
grep -nE '^#define SETOPS_(COUNT|UNIQUE)_' engine/gpu/*.cu engine/gpu/*.cuh engine/gpu/*.h &&
	bad "a kernel defines the count's or the distinct's shape itself (above)"
s=engine/gpu/sort.cu
grep -qE '^const int[[:space:]]+UNIQUE_NT = SETOPS_UNIQUE_NT;' $s &&
	grep -qE '^const int[[:space:]]+UNIQUE_VT = SETOPS_UNIQUE_VT;' $s ||
	bad "$s's UNIQUE_NT / UNIQUE_VT are not the header's SETOPS_UNIQUE_NT / VT"

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
