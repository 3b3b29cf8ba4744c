/*
 * partition.cuh
 *	  Balanced Path partitioning on the GPU: where each tile, and within a
 *	  tile each thread, starts, such that no key-rank pair is split.
 *
 * The search itself is engine/common/balanced_path.h, the same code the CPU
 * engine chunks with.  Globally (one thread per tile boundary) it runs with
 * four biased levels (511/512, 127/128, 31/32, 15/16, 64-bit midpoints);
 * in shared memory with two (31/32, 15/16).  A starred diagonal is stored
 * in the index's top bit: the tile to its left takes one more B element.
 *
 * Inputs known to hold no repeated key skip the duplicate-run searches:
 * Merge Path alone, starred when the last A taken equals the next B.
 */
#ifndef SETOPS_PARTITION_CUH
#define SETOPS_PARTITION_CUH

#include <stdint.h>

#include "../common/balanced_path.h"
#include "dependent_launch.cuh"

SETOPS_DEFINE_SEARCHES(i32, int32_t, int)
SETOPS_DEFINE_SEARCHES(i64, int64_t, int)

namespace setops
{

template <typename Key> struct Search;

template <> struct Search<int32_t>
{
	static __device__ __forceinline__ int
	balanced(const int32_t *a, int na, const int32_t *b, int nb, int d, int levels, int *star)
	{
		return setops_balanced_path_i32(a, na, b, nb, d, levels, star);
	}
	static __device__ __forceinline__ int
	merge(const int32_t *a, int na, const int32_t *b, int nb, int d)
	{
		return setops_merge_path_i32(a, na, b, nb, d);
	}
	static __device__ __forceinline__ int
	lower(const int32_t *a, int n, int32_t x)
	{
		return setops_lower_bound_i32(a, n, x);
	}
};

template <> struct Search<int64_t>
{
	static __device__ __forceinline__ int
	balanced(const int64_t *a, int na, const int64_t *b, int nb, int d, int levels, int *star)
	{
		return setops_balanced_path_i64(a, na, b, nb, d, levels, star);
	}
	static __device__ __forceinline__ int
	merge(const int64_t *a, int na, const int64_t *b, int nb, int d)
	{
		return setops_merge_path_i64(a, na, b, nb, d);
	}
	static __device__ __forceinline__ int
	lower(const int64_t *a, int n, int64_t x)
	{
		return setops_lower_bound_i64(a, n, x);
	}
};

/*
 * Split on diagonal d: returns ai, with *star set; bi = d - ai + *star.
 * Merge needs no key-rank care: its splits are the merge path itself.
 */
template <typename Key, bool Duplicates, bool IsMerge>
__device__ __forceinline__ int
split_path(const Key *a, int na, const Key *b, int nb, int d, int levels, int *star)
{
	int			ai;

	if (IsMerge)
	{
		*star = 0;
		return Search<Key>::merge(a, na, b, nb, d);
	}
	if (Duplicates)
		return Search<Key>::balanced(a, na, b, nb, d, levels, star);
	ai = Search<Key>::merge(a, na, b, nb, d);
	*star = ai > 0 && d - ai < nb && !(a[ai - 1] < b[d - ai]);
	return ai;
}

/* The star flag lives in the top bit of a tile boundary's A index. */
__device__ __forceinline__ int
boundary_pack(int ai, int star)
{
	return (int) ((unsigned) ai | ((unsigned) star << 31));
}

__device__ __forceinline__ int
boundary_a(int packed)
{
	return packed & 0x7fffffff;
}

__device__ __forceinline__ int
boundary_star(int packed)
{
	return (int) ((unsigned) packed >> 31);
}

/*
 * One thread per tile boundary: num_tiles + 1 boundaries.  The threads also
 * zero the launch's clear_words words at clear (results, tile counter,
 * look-back descriptors): one launch instead of a memset and a launch.  The
 * tile kernel may start launching at once (dependent_launch.cuh); it waits
 * for this grid before it reads either.
 */
template <typename Key, bool Duplicates, bool IsMerge>
__global__ void
partition_kernel(const Key *a, int na, const Key *b, int nb, int nv,
				 int num_boundaries, int *boundaries, int *clear, int clear_words)
{
	int			i = blockIdx.x * blockDim.x + threadIdx.x;

	grid_release_next();
	for (int w = i; w < clear_words; w += gridDim.x * blockDim.x)
		clear[w] = 0;
	if (i < num_boundaries)
	{
		int64_t		d64 = (int64_t) i * nv;
		int			d = d64 < (int64_t) na + nb ? (int) d64 : na + nb;
		int			star;
		int			ai = split_path<Key, Duplicates, IsMerge>(a, na, b, nb, d, 4, &star);

		boundaries[i] = boundary_pack(ai, star);
	}
}

}								/* namespace setops */

#endif							/* SETOPS_PARTITION_CUH */
