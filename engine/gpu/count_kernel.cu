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
#include "occupancy.cuh"

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
	/* many counts in one launch: nsegs of them, the fields above unused */
	const CountSegment *segs;
	int			nsegs;
	/* many: where the last block writes the results (CountMany), or NULL */
	SetopResults *host_results;
	unsigned   *blocks_done;
};

/* One tile's count: its inputs, its place among their tiles, its results. */
template <typename Key>
struct CountTile
{
	const Key  *a;
	int			na;
	const Key  *b;
	int			nb;
	const int  *boundaries;
	int			tile;
	SetopResults *results;
};

/*
 * The count that global tile t belongs to: the last whose first tile is at
 * or before t (counts without keys are never in a launch, so every count
 * holds a tile).  Its tile_start + s boundaries come before its own.
 */
template <typename Key, bool Many>
__device__ __forceinline__ CountTile<Key>
count_tile_of(const CountParams<Key> &p, int t)
{
	CountTile<Key> c;

	if (!Many)
	{
		c.a = p.a;
		c.na = p.na;
		c.b = p.b;
		c.nb = p.nb;
		c.boundaries = p.boundaries;
		c.tile = t;
		c.results = p.results;
		return c;
	}

	int			lo = 0,
				hi = p.nsegs;

	while (lo < hi)
	{
		int			mid = (lo + hi) >> 1;

		if (p.segs[mid].tile_start <= t)
			lo = mid + 1;
		else
			hi = mid;
	}

	const CountSegment *g = &p.segs[lo - 1];

	c.a = (const Key *) g->a;
	c.na = g->na;
	c.b = (const Key *) g->b;
	c.nb = g->nb;
	c.boundaries = p.boundaries + g->tile_start + (lo - 1);
	c.tile = t - g->tile_start;
	c.results = p.results + (g->result);
	return c;
}

/*
 * Tile shapes of the count: larger tiles than the operations' (less to do
 * per slot, so the per-thread search weighs more; no commit mask bounds
 * them), from engine/common/tile_geometry.h (through tile_load.cuh).
 */
template <typename Key> struct CountShape;
template <> struct CountShape<int32_t> : TileShapeOf<int32_t, SETOPS_COUNT_NT, SETOPS_COUNT_VT32> {};
template <> struct CountShape<int64_t> : TileShapeOf<int64_t, SETOPS_COUNT_NT, SETOPS_COUNT_VT64> {};

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
template <typename Key, bool Duplicates, int Mode, bool Many>
__global__ void __launch_bounds__(CountShape<Key>::NT)
count_tile_kernel(CountParams<Key> p)
{
	typedef CountShape<Key> Shape;
	const int	NT = Shape::NT;
	const bool	Overlaps = Mode == SETOPS_GPU_COUNT_OVERLAPS;
	/* a block sum each tile (many counts: each tile's sum goes to its own) */
	const bool	PerTile = Mode != SETOPS_GPU_COUNT_INTERSECT || Many;
	__shared__ __align__(128) Key keys[2][tile_shared_keys<Key, Shape>()];
	__shared__ __align__(8) uint64_t bars[2];
	__shared__ int s_start_a[NT + 1];
	__shared__ int s_start_b[NT + 1];
	__shared__ int s_warp[NT / 32];
	__shared__ bool s_last;
	int			tid = threadIdx.x;
	int			tile = blockIdx.x;
	int			matches = 0;
	bool		stop = Overlaps || (Mode == SETOPS_GPU_COUNT_CONTAINS && p.stop);
	TileRange	r;
	TileBefore<Key> before;
	CountTile<Key> c;

	tile_copy_init(bars, 2);
	__syncthreads();
	grid_wait_previous();		/* the partition, and the zeroed results */

	/* the first tile on its way */
	if (tile < p.num_tiles)
	{
		c = count_tile_of<Key, Many>(p, tile);
		r = tile_range<Key, Shape>(c.boundaries, c.tile, c.na, c.nb);
		tile_copy_start<Key, Shape>(c.a, c.na, c.b, c.nb, r, keys[0], &bars[0]);
		before = tile_before(c.a, c.b, r, tid == 0);
	}

	for (int it = 0; tile < p.num_tiles; it++, tile += gridDim.x)
	{
		const Key  *cur = keys[it & 1];
		int			next = tile + gridDim.x;
		TileRange	rn = r;
		TileBefore<Key> before_next = before;
		CountTile<Key> cn = c;

		/* the next tile into the other buffer (free since the last barrier) */
		if (next < p.num_tiles)
		{
			cn = count_tile_of<Key, Many>(p, next);
			rn = tile_range<Key, Shape>(cn.boundaries, cn.tile, cn.na, cn.nb);
			tile_copy_start<Key, Shape>(cn.a, cn.na, cn.b, cn.nb, rn, keys[(it + 1) & 1],
										&bars[(it + 1) & 1]);
			before_next = tile_before(cn.a, cn.b, rn, tid == 0);
		}
		else
			tile_copy_skip();
		tile_copy_wait<1>(&bars[it & 1], (it >> 1) & 1);
		/* everyone's copies; and one read of the running total decides
		 * for the whole block */
		if (__syncthreads_or(stop && tid == 0 && *(volatile int *) &c.results->total > 0))
		{
			/*
			 * Many counts: only this tile's count is decided; the block's
			 * later tiles may be other counts'.  (Nothing reads this buffer,
			 * so the copy into it two tiles on may start.)
			 */
			if (Many)
			{
				r = rn;
				before = before_next;
				c = cn;
				continue;
			}
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
			atomicOr(&c.results->unsorted, (int) bad);
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
				if (Mode == SETOPS_GPU_COUNT_INTERSECT || Overlaps)
				{
					if (sum > 0)
						atomicAdd(&c.results->total, sum);	/* overlaps: later tiles stop on it */
				}
				else if (sum < r.b_cnt)
					atomicAdd(&c.results->total, 1);
			}
		}
		r = rn;
		before = before_next;
		c = cn;
	}
	if (!PerTile)
	{
		matches = warp_sum(matches);
		if ((tid & 31) == 0 && matches > 0)
			atomicAdd(&p.results->total, matches);
	}
	/*
	 * Many, answered into host memory: the last block to finish writes
	 * every count's results there (each thread's atomics fenced before the
	 * block counts itself done; the last one reads after its ticket).
	 */
	if (Many && p.host_results != NULL)
	{
		__threadfence();
		__syncthreads();
		if (tid == 0)
			s_last = atomicAdd(p.blocks_done, 1u) == gridDim.x - 1;
		__syncthreads();
		if (s_last)
		{
			__threadfence();
			for (int s = tid; s < p.nsegs; s += NT)
			{
				int			k = p.segs[s].result;
				const volatile SetopResults *from = p.results + k;

				p.host_results[k].total = from->total;
				p.host_results[k].unsorted = from->unsorted;
			}
		}
	}
}

template <typename Key, bool Duplicates, int Mode>
static cudaError_t
launch_count(const SetopLaunch *l, const ScratchLayout &lay, cudaStream_t stream)
{
	int			num_tiles = lay.num_tiles;
	int		   *boundaries = (int *) ((char *) l->scratch + lay.boundaries);
	CountParams<Key> p;
	static ResidentCache resident;
	int			most = 0,
				grid;
	cudaError_t err;

	memset(&p, 0, sizeof(p));
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
		err = resident_blocks(count_tile_kernel<Key, Duplicates, Mode, false>, CountShape<Key>::NT, 0,
							  &resident, &most);
	if (err == cudaSuccess)
		err = cudaGetLastError();
	if (err != cudaSuccess)
		return err;
	grid = most < num_tiles ? most : num_tiles;
	return launch_dependent(count_tile_kernel<Key, Duplicates, Mode, false>, grid > 0 ? grid : 1,
							CountShape<Key>::NT, 0, stream, p);
}

/* A launch's segments in its parameters (CountMany.inline_segs), or none. */
template <bool Inline>
struct InlineSegs
{
	CountSegment s[COUNT_INLINE_SEGS];
};
template <>
struct InlineSegs<false>
{
	CountSegment s[1];
};

/*
 * The partition of many counts at once: one thread a tile boundary of
 * every count (count s has its tiles + 1 of them, from tile_start + s on),
 * each searched within its own count's inputs; the first threads also
 * zero the counts' results (and the tile launch's finished blocks) and,
 * Inline, write the segments from the parameters to segs for the tile
 * launch.
 */
template <typename Key, bool Duplicates, bool Inline>
__global__ void
count_many_partition_kernel(const CountSegment *device_segs, const __grid_constant__ InlineSegs<Inline> inl,
							int nsegs, int nv, int num_boundaries, int *boundaries,
							SetopResults *results, unsigned *blocks_done)
{
	int			i = blockIdx.x * blockDim.x + threadIdx.x;
	const CountSegment *segs = Inline ? inl.s : device_segs;

	grid_release_next();
	if (i < nsegs)
	{
		if (Inline)
			((CountSegment *) device_segs)[i] = inl.s[i];
		results[segs[i].result].total = 0;
		results[segs[i].result].unsorted = 0;
	}
	if (i == 0 && blocks_done != NULL)
		*blocks_done = 0;
	if (i >= num_boundaries)
		return;

	int			lo = 0,
				hi = nsegs;

	while (lo < hi)
	{
		int			mid = (lo + hi) >> 1;

		if (segs[mid].tile_start + mid <= i)
			lo = mid + 1;
		else
			hi = mid;
	}

	const CountSegment *g = &segs[lo - 1];
	int64_t		d64 = (int64_t) (i - g->tile_start - (lo - 1)) * nv;
	int			d = d64 < (int64_t) g->na + g->nb ? (int) d64 : g->na + g->nb;
	int			star;
	int			ai = split_path<Key, Duplicates, false, true>((const Key *) g->a, g->na,
															  (const Key *) g->b, g->nb, d, -1,
															  &star, g->stride_shift,
															  (const Key *) NULL);

	boundaries[i] = boundary_pack(ai, star);
}

template <typename Key, bool Duplicates, int Mode>
static cudaError_t
launch_count_many(const CountMany *m, cudaStream_t stream)
{
	CountParams<Key> p;
	static ResidentCache resident;
	int			num_boundaries = m->num_tiles + m->nsegs,
				blocks = (num_boundaries + 127) / 128,
				most = 0,
				grid;
	cudaError_t err;

	if (m->inline_segs != NULL && m->nsegs > COUNT_INLINE_SEGS)
		return cudaErrorInvalidValue;
	memset(&p, 0, sizeof(p));
	p.boundaries = m->boundaries;
	p.num_tiles = m->num_tiles;
	p.stop = m->inputs_sorted;
	p.results = m->results;
	p.segs = m->segs;
	p.nsegs = m->nsegs;
	p.host_results = m->host_results;
	p.blocks_done = m->host_results != NULL ? m->blocks_done : NULL;
	if (m->inline_segs != NULL)
	{
		InlineSegs<true> inl;

		memcpy(inl.s, m->inline_segs, sizeof(CountSegment) * m->nsegs);
		count_many_partition_kernel<Key, Duplicates, true><<<blocks, 128, 0, stream>>>(
			m->segs, inl, m->nsegs, tile_slots<Key, CountShape<Key>>(), num_boundaries,
			m->boundaries, m->results, p.blocks_done);
	}
	else
	{
		InlineSegs<false> none;

		memset(&none, 0, sizeof(none));
		count_many_partition_kernel<Key, Duplicates, false><<<blocks, 128, 0, stream>>>(
			m->segs, none, m->nsegs, tile_slots<Key, CountShape<Key>>(), num_boundaries,
			m->boundaries, m->results, p.blocks_done);
	}
	err = cudaGetLastError();
	if (err == cudaSuccess)
		err = resident_blocks(count_tile_kernel<Key, Duplicates, Mode, true>, CountShape<Key>::NT, 0,
							  &resident, &most);
	if (err != cudaSuccess)
		return err;
	grid = most < m->num_tiles ? most : m->num_tiles;
	return launch_dependent(count_tile_kernel<Key, Duplicates, Mode, true>, grid > 0 ? grid : 1,
							CountShape<Key>::NT, 0, stream, p);
}

/* The count's scratch: its own tiles, no look-back. */
static ScratchLayout
count_layout(SetopsKeyType key_type, int na, int nb)
{
	return scratch_layout((int) count_tiles(key_type, na, nb), false, sizeof(int),
						  partition_sample_bytes(key_type, na, nb));
}

}								/* namespace setops */

using namespace setops;

size_t
count_scratch_bytes(SetopsKeyType key_type, int na, int nb)
{
	return count_layout(key_type, na, nb).bytes;
}

int
count_tile_slots(SetopsKeyType key_type)
{
	return key_type == SETOPS_KEY_INT64 ? tile_slots<int64_t, CountShape<int64_t>>() :
		tile_slots<int32_t, CountShape<int32_t>>();
}

extern "C" int
setops_gpu_count_tile_keys(SetopsKeyType key_type)
{
	return count_tile_slots(key_type);
}

cudaError_t
count_many_enqueue(const CountMany *m, cudaStream_t stream)
{
	if (m->nsegs <= 0 || m->num_tiles <= 0 || m->count_mode < SETOPS_GPU_COUNT_INTERSECT ||
		m->count_mode > SETOPS_GPU_COUNT_CONTAINS)
		return cudaErrorInvalidValue;
	return for_key(m->key_type, [&](auto key) {
		typedef typename decltype(key)::type Key;

		return for_bool(m->duplicates, [&](auto duplicates) {
			return for_count_mode(m->count_mode, [&](auto mode) {
				return launch_count_many<Key, decltype(duplicates)::value, decltype(mode)::value>(
					m, stream);
			});
		});
	});
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
