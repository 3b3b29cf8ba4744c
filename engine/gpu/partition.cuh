/*
 * partition.cuh
 *	  Balanced Path partitioning on the GPU: where each tile, and within a
 *	  tile each thread, starts, such that no key-rank pair is split.
 *
 * The search itself is engine/common/balanced_path.h, the same code the CPU
 * engine chunks with.  In shared memory (each thread's start in its tile)
 * the run-start searches take two biased levels (31/32, 15/16).  Globally
 * (one thread per tile boundary) every probe misses the cache, and the
 * searches of all boundaries at once are what a count waits for first, so
 * there they are shaped to touch less DRAM:
 *   - Merge Path in two stages: first over columns of A that are
 *     multiples of a stride, compared with B's keys at multiples of it
 *     too (the same few keys for every boundary, copied together by a
 *     launch of their own: they stay in L2 and in a few pages), which
 *     brackets the crossing within two strides; then a binary search of
 *     the bracket (coarse_merge_path);
 *   - the run starts by galloping back from the cut (8, 72, 584, ...
 *     keys), whose first probe lies where Merge Path just read.
 * A starred diagonal is stored in the index's top bit: the tile to its
 * left takes one more B element.
 *
 * Inputs known to hold no repeated key skip the duplicate-run searches:
 * Merge Path alone, starred when the last A taken equals the next B.
 */
#ifndef SETOPS_PARTITION_CUH
#define SETOPS_PARTITION_CUH

#include <stdint.h>

#include "../common/balanced_path.h"
#include "gpu_internal.h"
#include "dependent_launch.cuh"

SETOPS_DEFINE_SEARCHES(i32, int32_t, int)
SETOPS_DEFINE_SEARCHES(i64, int64_t, int)

namespace setops
{

template <typename Key> struct Search;

/* Search<Key>: balanced_path.h's searches for Key, positions as int. */
#define SETOPS_SEARCH_FOR(KEY, SFX)												\
template <> struct Search<KEY>													\
{																				\
	static __device__ __forceinline__ int										\
	merge(const KEY *a, int na, const KEY *b, int nb, int d)					\
	{																			\
		return setops_merge_path_##SFX(a, na, b, nb, d);						\
	}																			\
	static __device__ __forceinline__ int										\
	lower(const KEY *a, int n, KEY x)											\
	{																			\
		return setops_lower_bound_##SFX(a, n, x);								\
	}																			\
	static __device__ __forceinline__ int										\
	merge_within(const KEY *a, const KEY *b, int d, int lo, int hi)			\
	{																			\
		return setops_merge_path_within_##SFX(a, b, d, lo, hi);					\
	}																			\
	static __device__ __forceinline__ int										\
	split_from(const KEY *a, int na, const KEY *b, int nb, int d, int ai,		\
			   int levels, int *star)											\
	{																			\
		return setops_balanced_split_##SFX(a, na, b, nb, d, ai, levels, star);	\
	}																			\
};

SETOPS_SEARCH_FOR(int32_t, i32)
SETOPS_SEARCH_FOR(int64_t, i64)

/*
 * Merge Path on diagonal d (the first m with b[d - 1 - m] < a[m], false
 * then true along m) in two stages, S = 2^shift.  At a column m = I * S
 * the compared key of B, b[j] with j = d - 1 - m, lies between the stride
 * keys b[floor(j / S) * S] and b[ceil(j / S) * S]: if the upper one is
 * below a[m] the test holds at m (sure), if the lower one is at or above
 * a[m] it fails (sure).  Along I, "sure to hold" goes false then true and
 * "sure to fail" true then false, and between the last sure failure and
 * the first sure hold lies at most one column, so two binary searches
 * over the stride keys bracket the crossing within 2 S; the second stage
 * searches the bracket.  The stride keys come from the samples (A's, then
 * B's: sa[I] = a[I * S]), which share a few pages: read from a and b they
 * would cost a TLB miss each.  Without samples (NULL) only the second
 * stage runs.  Unsorted input gives some answer in range.
 */
template <typename Key>
__device__ __forceinline__ int
coarse_merge_path(const Key *a, int na, const Key *b, int nb, int d, int shift,
				  const Key *samples)
{
	const int	S = 1 << shift;
	int			lo = d > nb ? d - nb : 0,
				hi = d < na ? d : na;

	if (samples != NULL && hi - lo > 4 * S)
	{
		const Key  *sa = samples,
				   *sb = samples + partition_samples(na, shift);
		/* columns I * S in [lo, hi): I in [c0, c1) */
		int			c0 = (lo + S - 1) >> shift,
					c1 = ((hi - 1) >> shift) + 1;
		auto		holds = [&](int c) {	/* sure to hold at column c */
			int			j = d - 1 - (c << shift);
			int64_t		up = ((int64_t) j + S - 1) >> shift;

			return (up << shift) < nb && sb[up] < sa[c];
		};
		auto		fails = [&](int c) {	/* sure to fail at column c */
			return !(sb[(d - 1 - (c << shift)) >> shift] < sa[c]);
		};
		int			h_lo = c0,			/* first sure hold: in [h_lo, h_hi] */
					h_hi = c1,
					f_lo = c0,			/* first column not sure to fail */
					f_hi = c1;

		/* the two searches side by side: their loads overlap */
		while (h_lo < h_hi || f_lo < f_hi)
		{
			if (h_lo < h_hi)
			{
				int			mid = h_lo + ((h_hi - h_lo) >> 1);

				if (holds(mid)) h_hi = mid; else h_lo = mid + 1;
			}
			if (f_lo < f_hi)
			{
				int			mid = f_lo + ((f_hi - f_lo) >> 1);

				if (fails(mid)) f_lo = mid + 1; else f_hi = mid;
			}
		}
		/* the test holds at column h_lo, fails at column f_lo - 1 */
		int			new_hi = h_lo < c1 ? min(hi, h_lo << shift) : hi;
		int			new_lo = f_lo > c0 ? max(lo, ((f_lo - 1) << shift) + 1) : lo;

		hi = new_hi;
		lo = min(new_lo, hi);
	}
	return Search<Key>::merge_within(a, b, d, lo, hi);
}

/*
 * Split on diagonal d: returns ai, with *star set; bi = d - ai + *star.
 * Merge needs no key-rank care: its splits are the merge path itself.
 * Global: a tile boundary (the two-stage Merge Path with stride
 * 2^stride_shift and its samples); else a thread's start in shared
 * memory.  levels: the run-start searches' (balanced_path.h; -1 gallops).
 */
template <typename Key, bool Duplicates, bool IsMerge, bool Global = false>
__device__ __forceinline__ int
split_path(const Key *a, int na, const Key *b, int nb, int d, int levels, int *star,
		   int stride_shift = 0, const Key *samples = NULL)
{
	int			ai = Global ? coarse_merge_path(a, na, b, nb, d, stride_shift, samples) :
		Search<Key>::merge(a, na, b, nb, d);

	*star = 0;
	if (IsMerge)
		return ai;
	if (Duplicates)
		return Search<Key>::split_from(a, na, b, nb, d, ai, levels, star);
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

/* The stride keys into the samples: A's, then B's (one thread a key). */
template <typename Key>
__global__ void
partition_sample_kernel(const Key *a, int na, const Key *b, int nb, int shift, Key *samples)
{
	int64_t		t = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
	int64_t		sa = partition_samples(na, shift);

	grid_release_next();		/* the partition waits for this grid */
	if (t < sa)
		samples[t] = a[t << shift];
	else if (t < sa + partition_samples(nb, shift))
		samples[t] = b[(t - sa) << shift];
}

/*
 * One thread per tile boundary: num_tiles + 1 boundaries.  The threads also
 * zero the launch's clear_words words at clear (results, tile counter,
 * look-back descriptors): one launch instead of a memset and a launch.  The
 * tile kernel may start launching at once (dependent_launch.cuh); it waits
 * for this grid before it reads either.  With samples, this grid is the
 * sample kernel's dependent and waits for it before searching.
 */
template <typename Key, bool Duplicates, bool IsMerge>
__global__ void
partition_kernel(const Key *a, int na, const Key *b, int nb, int nv, int stride_shift,
				 const Key *samples, int num_boundaries, int *boundaries, int *clear,
				 int clear_words)
{
	int			i = blockIdx.x * blockDim.x + threadIdx.x;

	grid_release_next();
	for (int w = i; w < clear_words; w += gridDim.x * blockDim.x)
		clear[w] = 0;
	if (samples != NULL)
		grid_wait_previous();
	if (i < num_boundaries)
	{
		int64_t		d64 = (int64_t) i * nv;
		int			d = d64 < (int64_t) na + nb ? (int) d64 : na + nb;
		int			star;
		int			ai = split_path<Key, Duplicates, IsMerge, true>(a, na, b, nb, d, -1, &star,
																	stride_shift, samples);

		boundaries[i] = boundary_pack(ai, star);
	}
}

/*
 * The partition's launches: the samples when the inputs are large enough
 * to take them (samples: partition_sample_bytes of room), then one thread
 * a boundary.  stride_shift below 0 takes partition_stride_shift's (the
 * tests choose others, and may take samples of any size).
 */
template <typename Key, bool Duplicates, bool IsMerge>
static cudaError_t
launch_partition(const Key *a, int na, const Key *b, int nb, int nv, int num_boundaries,
				 int *boundaries, int *clear, int clear_words, Key *samples,
				 cudaStream_t stream, int stride_shift = -1)
{
	int			shift = stride_shift < 0 ? partition_stride_shift(na, nb) : stride_shift;
	int			grid = (num_boundaries + 127) / 128;
	int64_t		ns = partition_samples(na, shift) + partition_samples(nb, shift);

	if ((stride_shift < 0 && !partition_takes_samples(na, nb)) || ns == 0)
		samples = NULL;
	if (samples == NULL)
	{
		partition_kernel<Key, Duplicates, IsMerge><<<grid, 128, 0, stream>>>(
			a, na, b, nb, nv, shift, (const Key *) NULL, num_boundaries, boundaries, clear,
			clear_words);
		return cudaGetLastError();
	}
	partition_sample_kernel<Key><<<(int) ((ns + 255) / 256), 256, 0, stream>>>(a, na, b, nb, shift,
																			 samples);
	cudaError_t err = cudaGetLastError();

	if (err != cudaSuccess)
		return err;
	return launch_dependent(partition_kernel<Key, Duplicates, IsMerge>, grid, 128, 0, stream,
							a, na, b, nb, nv, shift, (const Key *) samples, num_boundaries,
							boundaries, clear, clear_words);
}

}								/* namespace setops */

#endif							/* SETOPS_PARTITION_CUH */
