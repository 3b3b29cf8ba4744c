/*
 * partition.cuh
 *	  Balanced Path partitioning on the GPU: where each tile, and within a
 *	  tile each thread, starts, such that no key-rank pair is split.
 *
 * The search itself is engine/common/balanced_path.h, the same code the CPU
 * engine chunks with.  In shared memory (each thread's start in its tile)
 * the run-start searches take two biased levels (31/32, 15/16).  Globally
 * (a group of lanes per tile boundary) every probe misses the cache, and
 * the searches of all boundaries at once are what a tile kernel waits for
 * first, so there they are shaped to touch less DRAM in fewer rounds:
 *   - Merge Path in two stages: first over columns of A that are
 *     multiples of a stride, compared with B's keys at multiples of it
 *     too (the same few keys for every boundary, copied together by a
 *     launch of their own: they stay in L2 and in a few pages), which
 *     brackets the crossing within two strides; then a search of the
 *     bracket (boundary_merge_path);
 *   - each search by the boundary's lanes together, G probes a round
 *     (group_first_true);
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
	split_from(const KEY *a, int na, const KEY *b, int nb, int d, int ai,		\
			   int levels, int *star)											\
	{																			\
		return setops_balanced_split_##SFX(a, na, b, nb, d, ai, levels, star);	\
	}																			\
};

SETOPS_SEARCH_FOR(int32_t, i32)
SETOPS_SEARCH_FOR(int64_t, i64)

/*
 * Lanes of a tile boundary: each boundary is searched by a group of
 * PARTITION_LANES threads, aligned in their warp, that probe G points of the
 * range at once, so that it shrinks G + 1 times a round instead of twice.
 * The searches are chains of dependent misses (L2 in the first stage, DRAM
 * and TLB in the second), so rounds, not loads, are what the tile kernel
 * waits for; four lanes keep every boundary of a 64M + 64M operation in
 * one wave (test/bench/NOTES.md).
 */
#ifndef SETOPS_PARTITION_LANES
#define SETOPS_PARTITION_LANES 4
#endif

/*
 * The first m in [lo, hi) at which pred holds (hi if none), pred false then
 * true along m, searched by the group of G lanes: the lanes' probes are
 * m_g = lo + (g + 1) n / (G + 1) for n = hi - lo.  Every lane of the warp
 * must call it (the ballots); a group whose lo == hi only waits.  Unsorted
 * keys (pred not monotone) give some m in [lo, hi].
 */
template <int G, typename Pred>
__device__ __forceinline__ int
group_first_true(int lo, int hi, Pred pred)
{
	static_assert(G >= 1 && G <= 32 && (G & (G - 1)) == 0, "lanes a boundary: a power of 2 to 32");
	const unsigned full = 0xffffffffu;
	const int	g = threadIdx.x & (G - 1),
				first = (threadIdx.x & 31) & ~(G - 1);

	while (__any_sync(full, lo < hi))
	{
		int64_t		n = hi - lo;
		int			m = lo + (int) ((g + 1) * n / (G + 1));
		bool		t = lo < hi && pred(m);
		unsigned	mine = (__ballot_sync(full, t) >> first) & (G == 32 ? full : (1u << G) - 1);
		int			f = mine ? __ffs(mine) - 1 : G;		/* first probe that holds */

		if (lo < hi)
		{
			int			new_lo = f > 0 ? lo + (int) (f * n / (G + 1)) + 1 : lo;

			hi = f < G ? lo + (int) ((f + 1) * n / (G + 1)) : hi;
			lo = new_lo;
		}
	}
	return lo;
}

/*
 * Merge Path on diagonal d (the first m with b[d - 1 - m] < a[m], false
 * then true along m), for a boundary whose group runs it (active; the
 * others only keep the ballots company), in two stages, S = 2^shift.  At
 * a column m = I * S the compared key of B, b[j] with j = d - 1 - m, lies
 * between the stride keys b[floor(j / S) * S] and b[ceil(j / S) * S]: if
 * the upper one is below a[m] the test holds at m (sure), if the lower one
 * is at or above a[m] it fails (sure).  Along I, "sure to hold" goes false
 * then true and "sure to fail" true then false, and a column not sure to
 * fail has a sure hold next to it (its lower key bounds the next column's
 * upper one), so the first sure hold H is the first column not sure to
 * fail or the one after: one search over the stride keys for H and one
 * probe at H - 1 bracket the crossing within 2 S; the second stage
 * searches the bracket.  The stride keys come from the samples (A's, then
 * B's: sa[I] = a[I * S]), which share a few pages: read from a and b they
 * would cost a TLB miss each.  Without samples (NULL) only the second
 * stage runs.  Unsorted input gives some answer in range.
 */
template <typename Key, int G>
__device__ __forceinline__ int
boundary_merge_path(const Key *a, int na, const Key *b, int nb, int d, bool active, int shift,
					const Key *samples)
{
	const int	S = 1 << shift;
	int			lo = !active ? 0 : d > nb ? d - nb : 0,
				hi = !active ? 0 : d < na ? d : na;
	bool		staged = samples != NULL && hi - lo > 4 * S;
	const Key  *sa = samples,
			   *sb = samples + (samples != NULL ? partition_samples(na, shift) : 0);
	/* columns I * S in [lo, hi): I in [c0, c1) */
	int			c0 = staged ? (lo + S - 1) >> shift : 0,
				c1 = staged ? ((hi - 1) >> shift) + 1 : 0;
	int			h = group_first_true<G>(c0, c1, [&](int c) {	/* sure to hold at c */
		int			j = d - 1 - (c << shift);
		int64_t		up = ((int64_t) j + S - 1) >> shift;

		return (up << shift) < nb && sb[up] < sa[c];
	});

	if (staged)
	{
		/* first column not sure to fail: h - 1 or h */
		int			f = h > c0 && sb[(d - 1 - ((h - 1) << shift)) >> shift] < sa[h - 1] ? h - 1 : h;
		int			new_hi = h < c1 ? min(hi, h << shift) : hi;
		int			new_lo = f > c0 ? max(lo, ((f - 1) << shift) + 1) : lo;

		hi = new_hi;
		lo = min(new_lo, hi);
	}
	return group_first_true<G>(lo, hi, [&](int m) { return b[d - 1 - m] < a[m]; });
}

/*
 * Split on diagonal d from its merge path crossing ai: returns the split's
 * A index, with *star set; bi = d - ai + *star.  Merge needs no key-rank
 * care: its splits are the merge path itself.  levels: the run-start
 * searches' (balanced_path.h; -1 gallops).
 */
template <typename Key, bool Duplicates, bool IsMerge>
__device__ __forceinline__ int
split_from_crossing(const Key *a, int na, const Key *b, int nb, int d, int ai, int levels,
					int *star)
{
	*star = 0;
	if (IsMerge)
		return ai;
	if (Duplicates)
		return Search<Key>::split_from(a, na, b, nb, d, ai, levels, star);
	*star = ai > 0 && d - ai < nb && !(a[ai - 1] < b[d - ai]);
	return ai;
}

/* The same after a plain Merge Path search (a thread's start in its tile,
 * a batch's boundaries). */
template <typename Key, bool Duplicates, bool IsMerge>
__device__ __forceinline__ int
split_path(const Key *a, int na, const Key *b, int nb, int d, int levels, int *star)
{
	return split_from_crossing<Key, Duplicates, IsMerge>(a, na, b, nb, d,
														 Search<Key>::merge(a, na, b, nb, d),
														 levels, star);
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
 * The split on diagonal d between two diagonals d0 < d < d2 whose merge
 * path crossings m0 and m2 are known (the partition's, which computes only
 * every few boundaries): both coordinates of the path only grow, so its
 * crossing of d lies in [max(m0, m2 - (d2 - d)), min(m2, m0 + (d - d0))],
 * at most d - d0 wide, and a group of G lanes searches that (three rounds
 * of 16 probes for a tile of 2944 slots).  The whole warp calls it (the
 * ballots), each group for its own diagonal or none (!active: returns 0);
 * the group's lanes each get the split, packed.  Out of range crossings
 * (unsorted input) still give a split in range.
 */
template <typename Key, bool Duplicates, bool IsMerge, int G>
__device__ __forceinline__ int
boundary_between(const Key *a, int na, const Key *b, int nb, bool active, int d, int d0, int m0,
				 int d2, int m2)
{
	int			lo = active ? max(max(m0, m2 - (d2 - d)), d > nb ? d - nb : 0) : 0,
				hi = active ? min(min(m2, m0 + (d - d0)), d < na ? d : na) : 0,
				star;
	int			ai = group_first_true<G>(lo, max(hi, lo),
										 [&](int m) { return b[d - 1 - m] < a[m]; });

	if (!active)
		return 0;
	ai = split_from_crossing<Key, Duplicates, IsMerge>(a, na, b, nb, d, ai, -1, &star);
	return boundary_pack(ai, star);
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
 * A group of SETOPS_PARTITION_LANES threads per tile boundary: num_tiles +
 * 1 boundaries.  The threads also
 * zero the launch's clear_words words at clear (results, tile counter,
 * look-back descriptors): one launch instead of a memset and a launch.  The
 * tile kernel may start launching at once (dependent_launch.cuh); it waits
 * for this grid before it reads either.  With samples, this grid is the
 * sample kernel's dependent and waits for it before searching.
 */
template <typename Key, bool Duplicates, bool IsMerge>
__global__ void
partition_kernel(const Key *a, int na, const Key *b, int nb, int nv, int stride_shift,
				 const Key *samples, int num_boundaries, int *boundaries, int *crossings,
				 int *clear, int clear_words)
{
	const int	G = SETOPS_PARTITION_LANES;
	int64_t		t = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
	int			i = (int) (t / G);
	bool		mine = i < num_boundaries;
	int64_t		d64 = (int64_t) (mine ? i : 0) * nv;
	int			d = d64 < (int64_t) na + nb ? (int) d64 : na + nb;
	int			ai,
				star;

	grid_release_next();
	for (int64_t w = t; w < clear_words; w += (int64_t) gridDim.x * blockDim.x)
		clear[w] = 0;
	if (samples != NULL)
		grid_wait_previous();
	/* the whole warp searches (its ballots), each group its boundary */
	ai = boundary_merge_path<Key, G>(a, na, b, nb, d, mine, stride_shift, samples);
	if (mine)
	{
		/* the group's lanes alike from here: the same loads, one store */
		if (crossings != NULL && (t & (G - 1)) == 0)
			crossings[i] = ai;
		ai = split_from_crossing<Key, Duplicates, IsMerge>(a, na, b, nb, d, ai, -1, &star);
		if ((t & (G - 1)) == 0)
			boundaries[i] = boundary_pack(ai, star);
	}
}

/*
 * The partition's launches: the samples when the inputs are large enough
 * to take them (samples: partition_sample_bytes of room), then a lane
 * group a boundary, on diagonals nv apart.  stride_shift below 0 takes
 * partition_stride_shift's (the tests choose others, and may take samples
 * of any size).  crossings, unless NULL, gets each boundary's merge path
 * crossing (for boundary_between).
 */
template <typename Key, bool Duplicates, bool IsMerge>
static cudaError_t
launch_partition(const Key *a, int na, const Key *b, int nb, int nv, int num_boundaries,
				 int *boundaries, int *clear, int clear_words, Key *samples,
				 cudaStream_t stream, int stride_shift = -1, int *crossings = NULL)
{
	int			shift = stride_shift < 0 ? partition_stride_shift(na, nb) : stride_shift;
	int			grid = (int) (((int64_t) num_boundaries * SETOPS_PARTITION_LANES + 127) / 128);
	int64_t		ns = partition_samples(na, shift) + partition_samples(nb, shift);

	if ((stride_shift < 0 && !partition_takes_samples(na, nb)) || ns == 0)
		samples = NULL;
	if (samples == NULL)
	{
		partition_kernel<Key, Duplicates, IsMerge><<<grid, 128, 0, stream>>>(
			a, na, b, nb, nv, shift, (const Key *) NULL, num_boundaries, boundaries, crossings,
			clear, clear_words);
		return cudaGetLastError();
	}
	partition_sample_kernel<Key><<<(int) ((ns + 255) / 256), 256, 0, stream>>>(a, na, b, nb, shift,
																			 samples);
	cudaError_t err = cudaGetLastError();

	if (err != cudaSuccess)
		return err;
	return launch_dependent(partition_kernel<Key, Duplicates, IsMerge>, grid, 128, 0, stream,
							a, na, b, nb, nv, shift, (const Key *) samples, num_boundaries,
							boundaries, crossings, clear, clear_words);
}

}								/* namespace setops */

#endif							/* SETOPS_PARTITION_CUH */
