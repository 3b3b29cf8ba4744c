/*
 * tile_geometry.h
 *	  The GPU kernels' tile shapes: threads a tile and key-rank slots a
 *	  thread, hence the slots a tile covers (merge-path diagonals of A and B
 *	  together).  One place for the numbers: the kernels take them from
 *	  here (engine/gpu/tile_load.cuh includes this header, and so every
 *	  kernel that includes it), and so do the SQL suites that put sizes and
 *	  runs of duplicates across tile boundaries (the test hook
 *	  setops_test_tile_slots(), extension/args/keys_form.c, read by
 *	  test/pgtap/tiles.psql).
 *
 * Plain C preprocessor, no PostgreSQL or CUDA headers.  Each knob may be
 * overridden on the compiler's command line (-DSETOPS_VT32=...), as
 * test/gpu/kernel_variants.sh does for side-by-side runs.
 *
 * No kernel defines a shape of its own (scripts/check_tile_geometry.sh
 * fails CI otherwise): the count's and the distinct's (count_kernel.cu,
 * sort.cu) come from here too.
 */
#ifndef SETOPS_TILE_GEOMETRY_H
#define SETOPS_TILE_GEOMETRY_H

/* The operations' tiles (setop_kernel.cu, and the pairs through it), chosen
 * by a sweep on an H200 (test/gpu/kernel_bench built with -DSETOPS_NT32=...
 * etc.). */
#ifndef SETOPS_NT32
#define SETOPS_NT32 128
#endif
#ifndef SETOPS_VT32
#define SETOPS_VT32 23
#endif
#ifndef SETOPS_NT64
#define SETOPS_NT64 128
#endif
#ifndef SETOPS_VT64
#define SETOPS_VT64 17
#endif

/* The counts' tiles (count_kernel.cu): larger, less to do per slot, chosen
 * by measurement on an H100 (test/bench/NOTES.md). */
#define SETOPS_COUNT_NT 128
#ifndef SETOPS_COUNT_VT32
#define SETOPS_COUNT_VT32 43
#endif
#ifndef SETOPS_COUNT_VT64
#define SETOPS_COUNT_VT64 21
#endif

/* array_distinct_gpu's flag-and-compact pass after CUB's radix sort
 * (sort.cu), both key types.  array_sort_gpu itself is CUB's radix sort,
 * whose tiles are CUB's own. */
#define SETOPS_UNIQUE_NT 256
#define SETOPS_UNIQUE_VT 8

/* Slots a tile covers. */
#define SETOPS_TILE_SLOTS32 (SETOPS_NT32 * SETOPS_VT32)
#define SETOPS_TILE_SLOTS64 (SETOPS_NT64 * SETOPS_VT64)
#define SETOPS_COUNT_TILE_SLOTS32 (SETOPS_COUNT_NT * SETOPS_COUNT_VT32)
#define SETOPS_COUNT_TILE_SLOTS64 (SETOPS_COUNT_NT * SETOPS_COUNT_VT64)
#define SETOPS_UNIQUE_TILE_SLOTS (SETOPS_UNIQUE_NT * SETOPS_UNIQUE_VT)

#endif							/* SETOPS_TILE_GEOMETRY_H */
