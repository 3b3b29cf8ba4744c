/*
 * skew_kernel.cu
 *	  Sizes far apart: the operations whose output comes from the smaller
 *	  side (the intersection, the difference of a smaller A, and the counts
 *	  built on the intersection) by searching the larger side instead of
 *	  merging it.
 *
 * A merge reads both inputs whole, whatever their sizes.  Here each key of
 * the smaller side S is looked up in the larger side L, O(|S| log |L|)
 * reads of L, and key-rank matching needs one probe more: if x is the r-th
 * copy of its run in S (from 0) and lo the first position of L with
 * L[lo] >= x, x's run in L starts at lo, so x has a partner iff
 * L[lo + r] == x.  The intersection keeps the copies with a partner, the
 * difference those without; a kept copy's value (pairs) is A's: its own
 * when S is A, its partner L[lo + r] when S is B.
 *
 * Tiles of SKEW_NT * SKEW_VT keys of S, SKEW_VT consecutive keys a thread:
 *   - the tile's keys into shared memory, their order checked;
 *   - each key's run start: a block max-scan of the run starts, seeded by
 *     a search of S when the tile's first run began before the tile;
 *   - every key's run start in L by a binary search of all of L, a
 *     thread's searches in lockstep (VT loads in flight a step; the first
 *     steps, shared by the whole tile, hit in cache);
 *   - compaction and placement by decoupled look-back (compact.cuh), as
 *     the tile kernel does; a count sums the kept copies instead.
 *
 * L's order cannot be seen by probing it: unless both inputs are known to
 * be in order, more blocks of the same launch stream L once and check it
 * (check_order), while the searches run.
 */
#include <stdint.h>

#include "gpu_internal.h"
#include "tile_load.cuh"
#include "compact.cuh"
#include "instances.cuh"
#include "warp_sum.cuh"
#include "occupancy.cuh"

namespace setops
{

#define SKEW_NT 128
/* keys a thread: few, so that many threads wait on their searches at
 * once (3 measured fastest of 3 to 15) */
#ifndef SETOPS_SKEW_VT
#define SETOPS_SKEW_VT 3
#endif
#define SKEW_VT SETOPS_SKEW_VT
#define SKEW_TILE (SKEW_NT * SKEW_VT)

/*
 * The look-back descriptors come from the operation's scratch, sized for
 * the tile kernel's tiles of na + nb slots: the skew path's tiles of the
 * smaller side must never be more (ns <= (na + nb) / (ratio + 1)).
 */
static_assert((int64_t) (SETOPS_GPU_SKEW_RATIO32 + 1) * SKEW_TILE >= tile_slots<int32_t>() &&
			  (int64_t) (SETOPS_GPU_SKEW_RATIO + 1) * SKEW_TILE >= tile_slots<int64_t>(),
			  "the skew path's tiles would outnumber the scratch's descriptors");

struct MaxOf
{
	__device__ __forceinline__ int operator()(int x, int y) const
	{
		return x > y ? x : y;
	}
};

template <typename Key>
struct SkewParams
{
	const Key  *s;				/* the smaller side */
	int			ns;
	const Key  *l;				/* the larger side */
	int			nl;
	int			s_flag;			/* S's order flag: 1 when S is A, 2 when B */
	int			num_tiles;
	Key		   *out;
	const void *a_vals;			/* pairs: A's values (the kept copies' own) */
	int			value_words;
	void	   *out_vals;
	TileWord   *descriptors;
	int		   *counter;
	SetopResults *results;
};

/* A count's end of a tile: the kept copies summed, an atomic add a warp. */
__device__ __forceinline__ void
count_kept(unsigned commit, SetopResults *results)
{
	int			kept = warp_sum(__popc(commit));

	if ((threadIdx.x & 31) == 0 && kept)
		atomicAdd(&results->total, kept);
}

/*
 * lo[i] = the first position of l (n keys) holding a key >= x[i], for the
 * first nt of VT keys.  Branch-free halving, the same number of steps for
 * every key, so the VT searches advance together: their loads at one step
 * do not wait for each other.  Only positions below n are read.
 */
template <typename Key, int VT>
__device__ __forceinline__ void
lower_bounds(const Key *l, int n, const Key (&x)[VT], int nt, int (&lo)[VT])
{
	int			len = n;

#pragma unroll
	for (int i = 0; i < VT; ++i)
		lo[i] = 0;
	while (len > 1)
	{
		int			half = len >> 1;

#pragma unroll
		for (int i = 0; i < VT; ++i)
			if (i < nt)
				lo[i] += __ldg(&l[lo[i] + half]) < x[i] ? half : 0;
		len -= half;
	}
#pragma unroll
	for (int i = 0; i < VT; ++i)
		if (i < nt && n > 0)
			lo[i] += __ldg(&l[lo[i]]) < x[i];
}

/*
 * Block `block` of `blocks` checks its share of x's order: 16-byte loads
 * of the aligned body, four vectors in flight a thread, each vector's keys
 * against each other and its first against the key before it; the few
 * keys outside the body go to block 0.  Sets flag in results->unsorted at
 * a break.  Every thread of the block calls it (it ends with a barrier).
 */
template <typename Key>
__device__ __forceinline__ void
check_order(const Key *x, int n, int block, int blocks, int flag, SetopResults *results)
{
	typedef typename TileVector<Key>::Vec Vec;
	const int	VN = TileVector<Key>::VN;
	const int	U = 4;
	int			head = min((int) (((16 - ((uintptr_t) x & 15)) & 15) / sizeof(Key)), n);
	int			nvec = (n - head) / VN;
	const Vec  *body = (const Vec *) (x + head);
	int			stride = blocks * blockDim.x;
	bool		bad = false;

	for (int q0 = block * blockDim.x + threadIdx.x; q0 < nvec; q0 += U * stride)
	{
		Vec			w[U];
		Key			before[U];

#pragma unroll
		for (int u = 0; u < U; ++u)
		{
			int			q = q0 + u * stride;

			if (q < nvec)
			{
				w[u] = __ldg(body + q);
				before[u] = head + q * VN > 0 ? __ldg(x + head + q * VN - 1) : Key(0);
			}
		}
#pragma unroll
		for (int u = 0; u < U; ++u)
		{
			int			q = q0 + u * stride;
			const Key  *k = (const Key *) &w[u];
			Key			left = head + q * VN > 0 ? before[u] : k[0];

			if (q < nvec)
#pragma unroll
				for (int e = 0; e < VN; ++e)
				{
					bad |= k[e] < left;
					left = k[e];
				}
		}
	}
	if (block == 0)
	{
		for (int i = threadIdx.x + 1; i < head; i += blockDim.x)
			bad |= x[i] < x[i - 1];
		for (int i = head + nvec * VN + threadIdx.x; i < n; i += blockDim.x)
			bad |= i > 0 && x[i] < x[i - 1];
	}
	if (__syncthreads_or(bad) && threadIdx.x == 0)
		atomicOr(&results->unsorted, flag);
}

/*
 * One tile of S.  KeepMatched: the intersection (keep copies with a
 * partner) or the difference (keep those without).  Count: only the
 * number kept, added to results->total; tiles then run in any order.
 * The blocks after the tiles' (when L's order is not known) check L's
 * order meanwhile: the searches leave most of the memory bandwidth idle.
 */
template <typename Key, bool SmallIsA, bool KeepMatched, int ValueWord, bool Count>
__global__ void __launch_bounds__(SKEW_NT)
skew_search_kernel(SkewParams<Key> p)
{
	const int	NT = SKEW_NT;
	const int	VT = SKEW_VT;
	typedef cub::BlockScan<int, NT> Scan;
	__shared__ Key s_in[SKEW_TILE];
	__shared__ Key s_out[Count ? 1 : SKEW_TILE];
	__shared__ int s_src[ValueWord ? SKEW_TILE : 1];
	__shared__ typename Scan::TempStorage run_storage;
	__shared__ typename Scan::TempStorage scan_storage;
	__shared__ int s_slot,
				s_run0,
				s_prefix;

	if ((int) blockIdx.x >= p.num_tiles)
	{
		check_order(p.l, p.nl, blockIdx.x - p.num_tiles, gridDim.x - p.num_tiles,
					SmallIsA ? 2 : 1, p.results);
		return;
	}

	int			tid = threadIdx.x;
	int			tile = Count ? (int) blockIdx.x : tile_index(p.counter, &s_slot);
	int			base = tile * SKEW_TILE;
	int			cnt = min(SKEW_TILE, p.ns - base);
	unsigned	bad = 0;

	for (int i = tid; i < cnt; i += NT)
		s_in[i] = p.s[base + i];

	/* where the tile's first run starts (before the tile, if it goes on) */
	if (tid == 0)
	{
		int			run0 = base;

		if (base > 0)
		{
			Key			first = p.s[base],
						prev = p.s[base - 1];

			if (first < prev)
				bad = p.s_flag;
			else if (first == prev)
				run0 = Search<Key>::lower(p.s, base, first);
		}
		s_run0 = run0;
	}
	__syncthreads();

	/* this thread's keys, their order, and where runs start among them */
	int			j0 = tid * VT;
	int			nt = max(min(VT, cnt - j0), 0);
	Key			x[VT];
	unsigned	starts = 0;
	int			last_start = -1;

#pragma unroll
	for (int i = 0; i < VT; ++i)
		if (i < nt)
		{
			int			j = j0 + i;

			x[i] = s_in[j];
			if (j > 0)
			{
				Key			prev = i > 0 ? x[i - 1] : s_in[j - 1];

				if (x[i] < prev)
					bad = p.s_flag;
				if (x[i] != prev)
				{
					starts |= 1u << i;
					last_start = base + j;
				}
			}
		}

	/* the run start in force at this thread's first key */
	int			run;

	Scan(run_storage).ExclusiveScan(last_start, run, s_run0, MaxOf());

	/* each key's run start in L: the searches go in lockstep, so that a
	 * thread has VT loads in flight at every step */
	int			lo[VT];

	lower_bounds<Key, VT>(p.l, p.nl, x, nt, lo);

	Key			results[VT];
	int			src[VT];
	unsigned	commit = 0;

#pragma unroll
	for (int i = 0; i < VT; ++i)
		if (i < nt)
		{
			int			g = base + j0 + i;

			if (starts & (1u << i))
				run = g;

			/* x's partner, if any: the same copy of its run in L */
			int64_t		at = (int64_t) lo[i] + (g - run);
			unsigned	matched = at < p.nl && p.l[at] == x[i];

			results[i] = x[i];
			src[i] = SmallIsA ? g : (int) at;
			commit |= (KeepMatched ? matched : matched ^ 1u) << i;
		}
	if (bad)
		atomicOr(&p.results->unsorted, (int) bad);

	if (Count)
	{
		count_kept(commit, p.results);
		return;
	}

	int			offset;
	int			tile_total;
	int			prefix = tile_compact<NT, VT>(commit, results, src, ValueWord != 0, scan_storage,
											  p.descriptors, tile, s_out, s_src, &s_prefix,
											  &offset, &tile_total);

	/* every source is a position in A: b_vals is never read */
	store_tile<NT, ValueWord>(s_out, s_src, tile_total, p.out, prefix, p.a_vals, p.a_vals,
							  p.value_words, p.out_vals);
	if (tile == p.num_tiles - 1 && tid == 0)
		p.results->total = prefix + tile_total;
}

template <typename Key, bool SmallIsA, bool KeepMatched, int ValueWord, bool Count>
static cudaError_t
launch_search(const SetopLaunch *l, const ScratchLayout &lay, cudaStream_t stream)
{
	SkewParams<Key> p;
	int			check_blocks = 0;

	p.s = (const Key *) (SmallIsA ? l->a : l->b);
	p.ns = SmallIsA ? l->na : l->nb;
	p.l = (const Key *) (SmallIsA ? l->b : l->a);
	p.nl = SmallIsA ? l->nb : l->na;
	p.s_flag = SmallIsA ? 1 : 2;
	p.num_tiles = (p.ns + SKEW_TILE - 1) / SKEW_TILE;
	p.out = (Key *) l->out;
	p.a_vals = l->a_vals;
	p.value_words = ValueWord ? l->val_stride / ValueWord : 0;
	p.out_vals = l->out_vals;
	/* a count's tiles neither look back nor take turns */
	p.descriptors = Count ? NULL : (TileWord *) ((char *) l->scratch + lay.descriptors);
	p.counter = Count ? NULL : (int *) ((char *) l->scratch + lay.counter);
	p.results = setop_results(l->scratch);
	if (!Count && p.num_tiles > lay.num_tiles)
		return cudaErrorInvalidValue;
	/* with L's order unknown, as many blocks again as fill the device once
	 * (at 8 a multiprocessor) stream it */
	if (!l->inputs_sorted)
	{
		int			sms = 0;
		cudaError_t err = device_sms(&sms);

		if (err != cudaSuccess)
			return err;
		check_blocks = min(8 * sms, p.nl / (TileVector<Key>::VN * SKEW_NT) + 1);
	}
	skew_search_kernel<Key, SmallIsA, KeepMatched, ValueWord, Count>
		<<<p.num_tiles + check_blocks, SKEW_NT, 0, stream>>>(p);
	return cudaGetLastError();
}

/*
 * Whether the skew path answers l, which side it searches for, and what it
 * keeps.  Not where the output is mostly the larger side (a copy, which
 * the tile kernel streams), nor where the sizes are too close: with L's
 * order known from skew_known_ratio on, else only from
 * SETOPS_SKEW_CHECKED_RATIO, where searching and checking L's order
 * together beat merging (test/bench/NOTES.md).
 */
static bool
skew_plan(const SetopLaunch *l, bool *small_is_a, bool *keep_matched)
{
	int64_t		lo = l->na < l->nb ? l->na : l->nb;
	int64_t		hi = l->na < l->nb ? l->nb : l->na;

	if (lo == 0 ||
		hi < lo * (l->inputs_sorted ? skew_known_ratio(l->key_type) : SETOPS_SKEW_CHECKED_RATIO))
		return false;
	*small_is_a = l->na <= l->nb;
	switch (l->count_mode)
	{
		case SETOPS_GPU_COUNT_INTERSECT:
		case SETOPS_GPU_COUNT_OVERLAPS:
			/* a copy with a partner is a key in both, in any order */
			*keep_matched = true;
			return true;
		case SETOPS_GPU_COUNT_CONTAINS:
			/* b within a: none of b's copies lacks a partner */
			*keep_matched = false;
			return !*small_is_a;
		case SETOPS_GPU_COUNT_NONE:
			*keep_matched = l->op == SETOPS_OP_INTERSECT;
			return l->op == SETOPS_OP_INTERSECT ||
				(l->op == SETOPS_OP_DIFFERENCE && *small_is_a);
	}
	return false;
}

}								/* namespace setops */

using namespace setops;

bool
skew_applies(const SetopLaunch *l)
{
	bool		small_is_a,
				keep_matched;

	return skew_plan(l, &small_is_a, &keep_matched);
}

cudaError_t
skew_enqueue(const SetopLaunch *l, const ScratchLayout *lay, cudaStream_t stream)
{
	bool		small_is_a,
				keep_matched;
	/* (the partition clears it on the tile paths) */
	cudaError_t err = cudaMemsetAsync(l->scratch, 0, lay->zeroed, stream);

	if (err != cudaSuccess || lay->num_tiles == 0)
		return err;
	if (!skew_plan(l, &small_is_a, &keep_matched))
		return cudaErrorInvalidValue;
	return for_key(l->key_type, [&](auto key) {
		typedef typename decltype(key)::type Key;

		auto		launch = [&](auto count, auto word) {
			return for_bool(small_is_a, [&](auto small) {
				return for_bool(keep_matched, [&](auto keep) {
					return launch_search<Key, decltype(small)::value, decltype(keep)::value,
										 decltype(word)::value, decltype(count)::value>(l, *lay, stream);
				});
			});
		};

		/* a count moves no values */
		if (l->count_mode != SETOPS_GPU_COUNT_NONE)
			return launch(std::true_type(), WordConstant<0>());
		return for_value_word(l->a_vals, l->val_stride, [&](auto word) {
			return launch(std::false_type(), word);
		});
	});
}
