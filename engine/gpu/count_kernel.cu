/*
 * count_kernel.cu
 *	  Counts without outputs: the key-rank intersection count (from which
 *	  every operation's count follows, engine/common/setop_kind.h), whether two
 *	  inputs share a key, whether b's multiset lies within a's.
 *
 * The tile kernel's first half and nothing after it: the Balanced Path
 * partition (partition.cuh), each tile loaded and order-checked, each
 * thread's slots through the serial intersection (tile_load.cuh); then the
 * commit bits are summed, one warp reduction and one atomic add a warp.
 * No look-back, no compaction, no writes but the count: the tiles are
 * independent and run in any order.
 *
 * Overlaps stops early: a tile that finds a key in both adds it, and every
 * tile that starts later sees a positive count and returns at once.  Such
 * a "yes" must hold in any input order (the caller skips the rest of the
 * order check), so overlaps counts only tiles whose own keys are in order
 * and runs the range-checked serial step: a match is then two equal keys,
 * one of A and one of B, both inside the tile's checked intervals.
 * Containment stops early only where both inputs are known to be in order
 * (the device cache's arrays): a "no" answered without reading everything
 * must not hide an order break, which is an error.
 */
#include <stdint.h>

#include "gpu_internal.h"
#include "tile_load.cuh"
#include "instances.cuh"
#include "warp_sum.cuh"

namespace setops
{

template <typename Key>
struct CountParams
{
	const Key  *a;
	int			na;
	const Key  *b;
	int			nb;
	const int  *boundaries;
	int			num_tiles;
	bool		stop;			/* CONTAINS: stop at a positive total */
	SetopResults *results;
};

/*
 * Tile shapes of the count: larger tiles than the operations' (less to do
 * per slot, so the per-thread search weighs more; no commit mask bounds
 * them), chosen by measurement on an H100 (test/bench/NOTES.md).
 */
#ifndef SETOPS_COUNT_VT32
#define SETOPS_COUNT_VT32 43
#endif
#ifndef SETOPS_COUNT_VT64
#define SETOPS_COUNT_VT64 21
#endif

template <typename Key> struct CountShape;
template <> struct CountShape<int32_t> : TileShapeOf<int32_t, 128, SETOPS_COUNT_VT32> {};
template <> struct CountShape<int64_t> : TileShapeOf<int64_t, 128, SETOPS_COUNT_VT64> {};

/*
 * Persistent blocks: block i takes tiles i, i + grid, i + 2 grid, ...,
 * each copied into one of two shared buffers while the block works on the
 * tile before it (bulk_copy.cuh), so DRAM need not wait for the serial
 * step, nor the serial step for DRAM.
 *
 * Mode (SetopsGpuCountMode) decides what results->total gathers:
 *   INTERSECT  the matches of every tile;
 *   OVERLAPS   the matches of a tile that has some, at once; the launch
 *              stops when the total is positive;
 *   CONTAINS   one for each tile where b has a copy that a lacks (fewer
 *              matches than the tile's b keys); with p.stop (both inputs
 *              known in order) the launch stops when the total is positive.
 * A tile with keys out of order adds nothing (its count is void).
 */
template <typename Key, bool Duplicates, int Mode>
__global__ void __launch_bounds__(CountShape<Key>::NT)
count_tile_kernel(CountParams<Key> p)
{
	typedef CountShape<Key> Shape;
	const int	NT = Shape::NT;
	const bool	Overlaps = Mode == SETOPS_GPU_COUNT_OVERLAPS;
	const bool	PerTile = Mode != SETOPS_GPU_COUNT_INTERSECT;	/* a block sum each tile */
	__shared__ __align__(128) Key keys[2][tile_shared_keys<Key, Shape>()];
	__shared__ __align__(8) uint64_t bars[2];
	__shared__ int s_start_a[NT + 1];
	__shared__ int s_start_b[NT + 1];
	__shared__ int s_warp[NT / 32];
	int			tid = threadIdx.x;
	int			tile = blockIdx.x;
	int			matches = 0;
	bool		stop = Overlaps || (Mode == SETOPS_GPU_COUNT_CONTAINS && p.stop);
	TileRange	r;
	TileBefore<Key> before;

	tile_copy_init(bars, 2);
	__syncthreads();
	grid_wait_previous();		/* the partition, and the zeroed results */

	/* the first tile on its way */
	if (tile < p.num_tiles)
	{
		r = tile_range<Key, Shape>(p.boundaries, tile, p.na, p.nb);
		tile_copy_start<Key, Shape>(p.a, p.na, p.b, p.nb, r, keys[0], &bars[0]);
		before = tile_before(p.a, p.b, r, tid == 0);
	}

	for (int it = 0; tile < p.num_tiles; it++, tile += gridDim.x)
	{
		const Key  *cur = keys[it & 1];
		int			next = tile + gridDim.x;
		TileRange	rn = r;
		TileBefore<Key> before_next = before;

		/* the next tile into the other buffer (free since the last barrier) */
		if (next < p.num_tiles)
		{
			rn = tile_range<Key, Shape>(p.boundaries, next, p.na, p.nb);
			tile_copy_start<Key, Shape>(p.a, p.na, p.b, p.nb, rn, keys[(it + 1) & 1],
										&bars[(it + 1) & 1]);
			before_next = tile_before(p.a, p.b, rn, tid == 0);
		}
		else
			tile_copy_skip();
		tile_copy_wait<1>(&bars[it & 1], (it >> 1) & 1);
		/* everyone's copies; and one read of the running total decides
		 * for the whole block */
		if (__syncthreads_or(stop && tid == 0 && *(volatile int *) &p.results->total > 0))
		{
			/* no copy may still be landing in shared memory when the block ends */
			if (next < p.num_tiles)
				tile_copy_wait<0>(&bars[(it + 1) & 1], ((it + 1) >> 1) & 1);
			break;
		}

		unsigned	bad = r.bad;
		TileRange	walk = r;

		/* overlaps: never a step past the tile's intervals (see above) */
		if (Overlaps)
			walk.ext = false;

		int			tile_matches = tile_count<Key, Duplicates, Shape>(cur, walk, s_start_a,
																	  s_start_b, before, bad);

		if (bad)
			atomicOr(&p.results->unsorted, (int) bad);
		if (PerTile)
		{
			tile_matches = warp_sum(tile_matches);
			if ((tid & 31) == 0)
				s_warp[tid >> 5] = tile_matches;
		}
		/* the barrier also frees this buffer for the next copies */
		if (__syncthreads_or(bad) == 0)
		{
			if (!PerTile)
				matches += tile_matches;
			else if (tid == 0)
			{
				int			sum = 0;

#pragma unroll
				for (int w = 0; w < NT / 32; ++w)
					sum += s_warp[w];
				if (Overlaps && sum > 0)
					atomicAdd(&p.results->total, sum);		/* later tiles stop on it */
				else if (!Overlaps && sum < r.b_cnt)
					atomicAdd(&p.results->total, 1);
			}
		}
		r = rn;
		before = before_next;
	}
	if (!PerTile)
	{
		matches = warp_sum(matches);
		if ((tid & 31) == 0 && matches > 0)
			atomicAdd(&p.results->total, matches);
	}
}

template <typename Key, bool Duplicates, int Mode>
static cudaError_t
launch_count(const SetopLaunch *l, const ScratchLayout &lay, cudaStream_t stream)
{
	int			num_tiles = lay.num_tiles;
	int		   *boundaries = (int *) ((char *) l->scratch + lay.boundaries);
	CountParams<Key> p;
	int			per_sm = 0,
				sms = 0,
				grid;
	cudaError_t err;

	p.a = (const Key *) l->a;
	p.na = l->na;
	p.b = (const Key *) l->b;
	p.nb = l->nb;
	p.boundaries = boundaries;
	p.num_tiles = num_tiles;
	p.stop = l->inputs_sorted;
	p.results = setop_results(l->scratch);
	err = launch_partition<Key, Duplicates, false>(
		p.a, p.na, p.b, p.nb, tile_slots<Key, CountShape<Key>>(), num_tiles + 1, boundaries,
		(int *) p.results, (int) (lay.zeroed / sizeof(int)),
		(Key *) ((char *) l->scratch + lay.samples), stream);
	/* as many blocks as stay resident at once, no more than tiles */
	if (err == cudaSuccess)
		err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
			&per_sm, count_tile_kernel<Key, Duplicates, Mode>, CountShape<Key>::NT, 0);
	if (err == cudaSuccess)
		err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, gpu_current_device());
	if (err == cudaSuccess)
		err = cudaGetLastError();
	if (err != cudaSuccess)
		return err;
	grid = per_sm * sms < num_tiles ? per_sm * sms : num_tiles;
	return launch_dependent(count_tile_kernel<Key, Duplicates, Mode>, grid > 0 ? grid : 1,
							CountShape<Key>::NT, 0, stream, p);
}

/* The count's scratch: its own tiles, no look-back. */
static ScratchLayout
count_layout(SetopsKeyType key_type, int na, int nb)
{
	int64_t		nv = key_type == SETOPS_KEY_INT64 ? tile_slots<int64_t, CountShape<int64_t>>() :
		tile_slots<int32_t, CountShape<int32_t>>();

	return scratch_layout((int) (((int64_t) na + nb + nv - 1) / nv), false, sizeof(int),
						  partition_sample_bytes(key_type, na, nb));
}

}								/* namespace setops */

using namespace setops;

size_t
count_scratch_bytes(SetopsKeyType key_type, int na, int nb)
{
	return count_layout(key_type, na, nb).bytes;
}

cudaError_t
count_enqueue(const SetopLaunch *l, cudaStream_t stream)
{
	ScratchLayout lay = count_layout(l->key_type, l->na, l->nb);

	if (l->op != SETOPS_OP_INTERSECT || l->a_vals != NULL || l->count_mode < SETOPS_GPU_COUNT_INTERSECT ||
		l->count_mode > SETOPS_GPU_COUNT_CONTAINS)
		return cudaErrorInvalidValue;
	if (lay.num_tiles == 0 || skew_applies(l))
		return skew_enqueue(l, &lay, stream);
	return for_key(l->key_type, [&](auto key) {
		typedef typename decltype(key)::type Key;

		return for_bool(l->duplicates, [&](auto duplicates) {
			return for_count_mode(l->count_mode, [&](auto mode) {
				return launch_count<Key, decltype(duplicates)::value, decltype(mode)::value>(
					l, lay, stream);
			});
		});
	});
}
