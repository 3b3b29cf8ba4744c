/*
 * setop_kernel.cu
 *	  The multiset tile kernel and its launch.
 *
 * One pass over the inputs, one write of the outputs:
 *   1. partition_kernel: Balanced Path split at every tile boundary
 *      (partition.cuh: a two-stage search, its stride keys copied first
 *      for large inputs), clearing the launch's scratch on the way;
 *   2. setop_stream_kernel, persistent blocks taking tiles of NV = NT * VT
 *      key-rank slots (+-1) in order: copy the tile's A and B intervals
 *      into shared memory (plus one more element of each when there is
 *      one, a sentinel that spares range checks) while the tile before it
 *      computes; find each thread's start by a shared-memory Balanced Path
 *      search; run the serial set operation (serial_setops.cuh) to a commit
 *      mask, checking the keys' order as it reads them; scan the counts in
 *      the block and publish the tile's; compact its outputs in shared
 *      memory; one tile later, take its output offset from the tiles before
 *      it by decoupled look-back (lookback.cuh) and store the outputs (and
 *      gather values, for pairs) straight to their final place
 *      (compact.cuh).  The last tile publishes the total.
 * Sizes far apart go to skew_kernel.cu instead where the output comes
 * from the smaller side.
 */
#include <stdint.h>

#include "gpu_internal.h"
#include "tile_load.cuh"
#include "compact.cuh"
#include "instances.cuh"
#include "occupancy.cuh"

namespace setops
{

/* The operation's scratch: tiles of na + nb slots, with look-back. */
static ScratchLayout
setop_layout(SetopsKeyType key_type, int na, int nb)
{
	int			nv = key_type == SETOPS_KEY_INT64 ? tile_slots<int64_t>() : tile_slots<int32_t>();
	int64_t		total = (int64_t) na + nb;

	return scratch_layout((int) ((total + nv - 1) / nv), true, sizeof(int),
						  partition_sample_bytes(key_type, na, nb));
}

/*
 * Persistent blocks, one tile after another in the order of a global tile
 * counter.  A block is NT workers and a lead warp; in iteration i
 *
 *   the lead warp  takes tile i + 1 (its index, its range, the start of its
 *                  copy) and looks back for tile i - 1 (the outputs of all
 *                  tiles before it), publishing its inclusive prefix;
 *   the workers    compute tile i (walk, scan, publish its count, compact
 *                  its outputs in place of its keys), then store tile i - 1
 *                  where the lead warp's look-back says.
 *
 * So the copy of a tile lands while the tile before it computes, and
 * neither the set-up of a tile (an atomic, the boundaries, the copy's
 * issue) nor a look-back (a round trip to L2 at least) stands between the
 * workers and their next tile: they wait on the lead warp only at the end
 * of an iteration, and by then it has long been done (measured on an H100
 * against the same without a lead warp and against one tile a block:
 * test/bench/NOTES.md).  Three buffers turn around: the next tile's keys,
 * this tile's keys (then outputs), and the previous tile's outputs waiting
 * for their store.  The workers synchronise among themselves on a named
 * barrier (WorkerSync); the whole block three times an iteration.
 *
 * Deadlock cannot arise: a tile is taken only by a running block, and a
 * look-back waits only on tiles taken before it, each of which its block
 * computes before it looks back at anything later.
 */
#define TILE_BUFFERS 3

/*
 * Blocks a multiprocessor must hold at once, which caps the registers: int4
 * tiles of keys run faster six at once than the five their registers
 * allow, int8 ones slower when held to a cap (H100, test/bench/NOTES.md);
 * tiles with values are held to fewer blocks by their shared memory anyway.
 */
#ifndef SETOPS_STREAM_MIN_BLOCKS32
#define SETOPS_STREAM_MIN_BLOCKS32 6
#endif
#ifndef SETOPS_STREAM_MIN_BLOCKS64
#define SETOPS_STREAM_MIN_BLOCKS64 0
#endif

template <typename Key, int ValueWord>
__host__ __device__ constexpr int
stream_min_blocks()
{
	return ValueWord ? 0 : sizeof(Key) == 8 ? SETOPS_STREAM_MIN_BLOCKS64 : SETOPS_STREAM_MIN_BLOCKS32;
}

/* One buffer: a tile's keys, then its compacted outputs (and sources). */
template <typename Key, int ValueWord>
struct TileBuffer
{
	static const int NV = tile_slots<Key>();
	union __align__(128)
	{
		Key			keys[tile_shared_keys<Key>()];
		struct
		{
			Key			keys[NV];
			int			src[ValueWord ? NV : 1];
		}			out;
	};
};

/* What the lead warp hands the workers about a tile it took. */
template <typename Key>
struct TakenTile
{
	int			tile;			/* num_tiles: none */
	TileRange	r;
	TileBefore<Key> before;
};

/*
 * The lead warp: take the next tile from the counter and start its copy
 * into keys (counted on bar); its lane 0 hands it over in *taken.
 */
template <typename Key>
__device__ __forceinline__ void
lead_take(const TileParams<Key> &p, Key *keys, uint64_t *bar, TakenTile<Key> *taken)
{
	const unsigned full = 0xffffffffu;
	int			lane = threadIdx.x & 31;
	int			tile = 0;
	TileRange	r;
	TileBefore<Key> before;

	if (lane == 0)
		tile = atomicAdd(p.counter, 1);
	tile = min(__shfl_sync(full, tile, 0), p.num_tiles);
	if (tile < p.num_tiles)
	{
		r = tile_range<Key>(p.boundaries, tile, p.na, p.nb);
#ifdef SETOPS_BULK_COPY
		if (lane == 0)
		{
			fence_proxy_async_shared();
			tile_copy_issue<Key, TileShape<Key>>(p.a, p.na, p.b, p.nb, r, keys, bar);
		}
#else
		tile_copy_threads<Key, TileShape<Key>>(p.a, p.na, p.b, p.nb, r, keys, lane, 32);
		copy_async_commit();
#endif
		before = tile_before(p.a, p.b, r, lane == 0);
	}
	if (lane == 0)
	{
		taken->tile = tile;
		taken->r = r;
		taken->before = before;
	}
}

template <typename Key, SetopsOp Op, bool Duplicates, int ValueWord>
__global__ void __launch_bounds__(TileShape<Key>::NT + 32, stream_min_blocks<Key, ValueWord>())
setop_stream_kernel(TileParams<Key> p)
{
	const int	NT = TileShape<Key>::NT;
	const int	VT = TileShape<Key>::VT;
	typedef TileBuffer<Key, ValueWord> Buffer;
	typedef WorkerSync<NT> Sync;
	extern __shared__ __align__(128) unsigned char s_dynamic[];
	Buffer	   *buf = (Buffer *) s_dynamic;
	__shared__ __align__(8) uint64_t bars[TILE_BUFFERS];
	__shared__ int s_warp[NT / 32];
	__shared__ int s_start_a[NT + 1];
	__shared__ int s_start_b[NT + 1];
	/* the tile of iteration i at [i & 1]: written an iteration ahead */
	__shared__ TakenTile<Key> s_taken[2];
	__shared__ int s_total[2];	/* its outputs, likewise */
	__shared__ int s_prefix;	/* outputs before the previous tile */
	const bool	lead = threadIdx.x >= NT;
	int			prev = -1,
				prev_total = 0;

	tile_copy_init(bars, TILE_BUFFERS);
	__syncthreads();			/* the copy barriers, before the lead warp's first copy */
	grid_wait_previous();		/* the partition, and the zeroed scratch */
	if (lead)
	{
		lead_take(p, buf[0].keys, &bars[0], &s_taken[0]);
#ifndef SETOPS_BULK_COPY
		copy_async_wait<0>();	/* before sm_90 the workers wait on the barrier, not the copy */
#endif
	}

	for (int i = 0;; i++)
	{
		int			cur;
		int			total = 0;

		/* the taken tile handed over */
		__syncthreads();
		cur = s_taken[i & 1].tile;
		if (lead)
		{
			int			lane = threadIdx.x & 31;

			if (cur < p.num_tiles)
				lead_take(p, buf[(i + 1) % TILE_BUFFERS].keys, &bars[(i + 1) % TILE_BUFFERS],
						  &s_taken[(i + 1) & 1]);
			else if (lane == 0)
				s_taken[(i + 1) & 1].tile = p.num_tiles;
			if (prev >= 0)
			{
				long long	before_tiles = prev == 0 ? 0 :
					tile_predecessors_sum(p.descriptors, prev);

				if (lane == 0)
				{
					if (prev > 0)
						tile_publish(p.descriptors, prev, TILE_P,
									 before_tiles + s_total[(i - 1) & 1]);
					s_prefix = (int) before_tiles;
				}
			}
#ifndef SETOPS_BULK_COPY
			copy_async_wait<0>();	/* the next tile's copies, before the barrier */
#endif
		}
		else if (cur < p.num_tiles)
		{
			/* this tile: counted, its count published, its outputs compacted */
			const TileRange &r = s_taken[i & 1].r;
			Key			results[VT];
			int			src[VT];
			unsigned	bad = r.bad;
			unsigned	commit;
			int			offset;

#ifdef SETOPS_BULK_COPY
			mbar_wait(&bars[i % TILE_BUFFERS], (i / TILE_BUFFERS) & 1);
#endif
			commit = tile_serial<Key, Op, Duplicates, TileShape<Key>, Sync>(
				buf[i % TILE_BUFFERS].keys, r, s_start_a, s_start_b, s_taken[i & 1].before,
				results, src, bad);
			if (bad)
				atomicOr(&p.results->unsorted, (int) bad);
			/* source indices become positions in the inputs (~ for B) */
			if (ValueWord)
			{
#pragma unroll
				for (int k = 0; k < VT; ++k)
					src[k] = src[k] < r.b_base ? r.a0 + src[k] - r.a_start :
						~(r.b0 + src[k] - r.b_start);
			}
			/* its barrier ends every read of this tile's keys */
			offset = block_exclusive_sum<NT, Sync>(__popc(commit), &total, s_warp);
			if (threadIdx.x == 0)
			{
				tile_publish(p.descriptors, cur, cur == 0 ? TILE_P : TILE_A, total);
				s_total[i & 1] = total;
			}
			compact_to_shared(commit, results, src, offset, buf[i % TILE_BUFFERS].out.keys,
							  buf[i % TILE_BUFFERS].out.src, ValueWord != 0);
		}

		/* the previous tile's prefix, this tile's compaction */
		__syncthreads();
		if (!lead && prev >= 0)
		{
			const Buffer &pb = buf[(i + TILE_BUFFERS - 1) % TILE_BUFFERS];

			store_tile<NT, ValueWord>(pb.out.keys, pb.out.src, prev_total, p.out, s_prefix,
									  p.a_vals, p.b_vals, p.value_words, p.out_vals);
			if (prev == p.num_tiles - 1 && threadIdx.x == 0)
				p.results->total = s_prefix + prev_total;
		}
		/*
		 * The store's reads of its buffer and of s_prefix done before the
		 * lead warp, in the next iteration, copies a new tile into that
		 * buffer and writes s_prefix again.  With only the barrier at the
		 * top of the loop between them, racecheck reported both as WAR
		 * hazards once blocks took many tiles; with this one it reports
		 * none (test/bench/NOTES.md).
		 */
		__syncthreads();
		if (cur >= p.num_tiles)
			break;
		prev = cur;
		prev_total = total;
	}
}

template <typename Key, SetopsOp Op, bool Duplicates, int ValueWord>
static cudaError_t
launch_tiles(const SetopLaunch *l, const ScratchLayout &lay, cudaStream_t stream)
{
	const int	NV = tile_slots<Key>();
	const bool	IsMerge = Op == SETOPS_OP_MERGE;
	char	   *scratch = (char *) l->scratch;
	TileParams<Key> p;
	int			nb_parts = lay.num_tiles + 1;

	p.a = (const Key *) l->a;
	p.na = l->na;
	p.b = (const Key *) l->b;
	p.nb = l->nb;
	p.boundaries = (const int *) (scratch + lay.boundaries);
	p.num_tiles = lay.num_tiles;
	p.out = (Key *) l->out;
	p.a_vals = l->a_vals;
	p.b_vals = l->b_vals;
	p.value_words = ValueWord ? l->val_stride / ValueWord : 0;
	p.out_vals = l->out_vals;
	p.descriptors = (TileWord *) (scratch + lay.descriptors);
	p.counter = (int *) (scratch + lay.counter);
	p.results = (SetopResults *) (scratch + lay.results);

	size_t		smem = TILE_BUFFERS * sizeof(TileBuffer<Key, ValueWord>);
	static ResidentCache resident;
	int			most = 0,
				grid;
	cudaError_t err = launch_partition<Key, Duplicates, IsMerge>(
		p.a, p.na, p.b, p.nb, NV, nb_parts, (int *) (scratch + lay.boundaries), (int *) scratch,
		(int) (lay.zeroed / sizeof(int)), (Key *) (scratch + lay.samples), stream);

	if (err == cudaSuccess)
		err = resident_blocks(setop_stream_kernel<Key, Op, Duplicates, ValueWord>,
							  TileShape<Key>::NT + 32, smem, &resident, &most);
	if (err != cudaSuccess)
		return err;
	/* as many blocks as stay resident at once, no more than tiles */
	grid = most < lay.num_tiles ? most : lay.num_tiles;
	err = launch_dependent(setop_stream_kernel<Key, Op, Duplicates, ValueWord>, grid > 0 ? grid : 1,
						   TileShape<Key>::NT + 32, smem, stream, p);
	if (err != cudaSuccess)
		resident_forget(&resident);
	return err;
}

}								/* namespace setops */

using namespace setops;

size_t
setop_scratch_bytes(SetopsKeyType key_type, int na, int nb)
{
	return setop_layout(key_type, na, nb).bytes;
}

SetopResults *
setop_results(void *scratch)
{
	return (SetopResults *) scratch;
}

cudaError_t
setop_enqueue(const SetopLaunch *l, cudaStream_t stream)
{
	ScratchLayout lay = setop_layout(l->key_type, l->na, l->nb);

	if (l->count_mode != SETOPS_GPU_COUNT_NONE)
		return count_enqueue(l, stream);
	if (lay.num_tiles == 0 || skew_applies(l))
		return skew_enqueue(l, &lay, stream);
	return for_key(l->key_type, [&](auto key) {
		typedef typename decltype(key)::type Key;

		return for_op(l->op, [&](auto op) {
			constexpr SetopsOp Op = decltype(op)::value;

			/* merges carry no values */
			return for_layout<Op != SETOPS_OP_MERGE>(
				l->duplicates, l->a_vals, l->val_stride, [&](auto duplicates, auto word) {
					return launch_tiles<Key, Op, decltype(duplicates)::value, decltype(word)::value>(
						l, lay, stream);
				});
		});
	});
}
