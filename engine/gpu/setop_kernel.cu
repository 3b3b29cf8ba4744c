/*
 * setop_kernel.cu
 *	  The multiset tile kernel and its launch.
 *
 * One pass over the inputs, one write of the outputs:
 *   1. partition_kernel: Balanced Path split at every tile boundary
 *      (partition.cuh), clearing the launch's scratch on the way;
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

namespace setops
{

/*
 * Scratch layout: the small results and the tile counter first (at a fixed
 * place, so callers can read them back), then the tile descriptors (these
 * three are zeroed before each launch), then the tile boundaries.
 */
struct ScratchLayout
{
	size_t		results;
	size_t		counter;
	size_t		descriptors;
	size_t		boundaries;
	size_t		zeroed;			/* bytes from 0 to clear */
	size_t		bytes;
	int			num_tiles;
};

static ScratchLayout
scratch_layout(SetopsKeyType key_type, int na, int nb)
{
	ScratchLayout s;
	int			nv = key_type == SETOPS_KEY_INT64 ? tile_slots<int64_t>() : tile_slots<int32_t>();
	int64_t		total = (int64_t) na + nb;

	s.num_tiles = (int) ((total + nv - 1) / nv);
	s.results = 0;
	s.counter = sizeof(SetopResults);
	s.descriptors = GPU_ALIGN(s.counter + sizeof(int));
	s.boundaries = s.descriptors + GPU_ALIGN((size_t) s.num_tiles * sizeof(TileWord));
	s.zeroed = s.boundaries;
	s.bytes = s.boundaries + GPU_ALIGN((size_t) (s.num_tiles + 1) * sizeof(int));
	return s;
}

/*
 * Persistent blocks, one tile after another in the order of a global tile
 * counter, each stage's latency covered by the next stage's work:
 *
 *   iteration i:  take tile n = i + 1's index and start copying it;
 *                 compute tile c = i (walk, scan, publish its count,
 *                 compact its outputs in place of its keys);
 *                 finish tile p = i - 1 (its look-back, its store).
 *
 * So the copy of a tile lands while the tile before it computes, and a
 * tile's look-back runs one tile of work after its own count went out,
 * when its predecessors have long published theirs (measured on an H100
 * against one tile a block: test/bench/NOTES.md).  Three buffers turn
 * around: the next tile's keys, this tile's keys (then outputs), and the
 * previous tile's outputs waiting for their store.
 *
 * Deadlock cannot arise: a tile is taken only by a running block, and a
 * look-back waits only on tiles taken before it, each of which its block
 * computes before it looks back at anything later.
 */
#define TILE_BUFFERS 3

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

template <typename Key, SetopsOp Op, bool Duplicates, int ValueWord>
__global__ void __launch_bounds__(TileShape<Key>::NT)
setop_stream_kernel(TileParams<Key> p)
{
	const int	NT = TileShape<Key>::NT;
	const int	VT = TileShape<Key>::VT;
	typedef TileBuffer<Key, ValueWord> Buffer;
	extern __shared__ __align__(128) unsigned char s_dynamic[];
	Buffer	   *buf = (Buffer *) s_dynamic;
	__shared__ __align__(8) uint64_t bars[TILE_BUFFERS];
	__shared__ int s_warp[NT / 32];
	__shared__ int s_start_a[NT + 1];
	__shared__ int s_start_b[NT + 1];
	__shared__ int s_tile[2];	/* tile indices taken, alternately: see below */
	__shared__ int s_prefix;
	int			tid = threadIdx.x;
	int			cur,
				prev = -1,
				prev_total = 0,
				prev_buf = 0;
	TileRange	r;
	TileBefore<Key> before;

	tile_copy_init(bars, TILE_BUFFERS);
	grid_wait_previous();		/* the partition, and the zeroed scratch */
	if (tid == 0)
		s_tile[0] = atomicAdd(p.counter, 1);
	__syncthreads();
	cur = s_tile[0];
	if (cur < p.num_tiles)
	{
		r = tile_range<Key>(p.boundaries, cur, p.na, p.nb);
		tile_copy_start<Key, TileShape<Key>>(p.a, p.na, p.b, p.nb, r, buf[0].keys, &bars[0]);
		before = tile_before(p.a, p.b, r);
	}
	else
		tile_copy_skip();

	for (int i = 0;; i++)
	{
		int			b_cur = i % TILE_BUFFERS;
		int			b_next = (i + 1) % TILE_BUFFERS;
		int			next;
		TileRange	rn = r;
		TileBefore<Key> before_next = before;
		int			total = 0;

		/*
		 * The next tile: its buffer's last reads (two tiles ago's store)
		 * are behind this barrier, and so are those of the index slot it
		 * takes (read an iteration ago: the slot read last is the other).
		 */
		if (tid == 0)
			s_tile[(i + 1) & 1] = cur < p.num_tiles ? atomicAdd(p.counter, 1) : p.num_tiles;
		__syncthreads();
		next = s_tile[(i + 1) & 1];
		if (next < p.num_tiles)
		{
			rn = tile_range<Key>(p.boundaries, next, p.na, p.nb);
			tile_copy_start<Key, TileShape<Key>>(p.a, p.na, p.b, p.nb, rn, buf[b_next].keys,
												 &bars[b_next]);
			before_next = tile_before(p.a, p.b, rn);
		}
		else
			tile_copy_skip();

		/* this tile: counted, its count published, its outputs compacted */
		if (cur < p.num_tiles)
		{
			Key			results[VT];
			int			src[VT];
			unsigned	bad = r.bad;
			unsigned	commit;
			int			offset;

			tile_copy_wait<1>(&bars[b_cur], (i / TILE_BUFFERS) & 1);
			__syncthreads();
			commit = tile_serial<Key, Op, Duplicates>(buf[b_cur].keys, r, s_start_a, s_start_b,
													  before, results, src, bad);
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
			offset = block_exclusive_sum<NT, BlockSync>(__popc(commit), &total, s_warp);
			if (tid == 0)
				tile_publish(p.descriptors, cur, cur == 0 ? TILE_P : TILE_A, total);
			compact_to_shared(commit, results, src, offset, buf[b_cur].out.keys,
							  buf[b_cur].out.src, ValueWord != 0);
		}

		/* the previous tile: its place among all outputs, and its store */
		if (prev >= 0)
		{
			if (tid < 32)
			{
				long long	before_tiles = prev == 0 ? 0 :
					tile_predecessors_sum(p.descriptors, prev);

				if (tid == 0)
				{
					if (prev > 0)
						tile_publish(p.descriptors, prev, TILE_P, before_tiles + prev_total);
					s_prefix = (int) before_tiles;
				}
			}
			__syncthreads();
			store_tile<NT, ValueWord>(buf[prev_buf].out.keys, buf[prev_buf].out.src, prev_total,
									  p.out, s_prefix, p.a_vals, p.b_vals, p.value_words,
									  p.out_vals);
			if (prev == p.num_tiles - 1 && tid == 0)
				p.results->total = s_prefix + prev_total;
		}
		if (cur >= p.num_tiles)
			break;
		prev = cur;
		prev_total = total;
		prev_buf = b_cur;
		cur = next;
		r = rn;
		before = before_next;
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

	partition_kernel<Key, Duplicates, IsMerge><<<(nb_parts + 127) / 128, 128, 0, stream>>>(
		p.a, p.na, p.b, p.nb, NV, nb_parts, (int *) (scratch + lay.boundaries), (int *) scratch,
		(int) (lay.zeroed / sizeof(int)));

	size_t		smem = TILE_BUFFERS * sizeof(TileBuffer<Key, ValueWord>);
	int			per_sm = 0,
				sms = 0,
				grid;
	cudaError_t err = cudaGetLastError();

	if (err == cudaSuccess)
		err = cudaFuncSetAttribute(setop_stream_kernel<Key, Op, Duplicates, ValueWord>,
								   cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem);
	if (err == cudaSuccess)
		err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
			&per_sm, setop_stream_kernel<Key, Op, Duplicates, ValueWord>, TileShape<Key>::NT, smem);
	if (err == cudaSuccess)
		err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, gpu_current_device());
	if (err != cudaSuccess)
		return err;
	/* as many blocks as stay resident at once, no more than tiles */
	grid = per_sm * sms < lay.num_tiles ? per_sm * sms : lay.num_tiles;
	return launch_dependent(setop_stream_kernel<Key, Op, Duplicates, ValueWord>, grid > 0 ? grid : 1,
							TileShape<Key>::NT, smem, stream, p);
}

/* Runtime choice -> template instance. */
template <typename Key, SetopsOp Op>
static cudaError_t
dispatch_values(const SetopLaunch *l, const ScratchLayout &lay, cudaStream_t stream)
{
	if (l->a_vals == NULL)
		return l->duplicates ? launch_tiles<Key, Op, true, 0>(l, lay, stream)
			: launch_tiles<Key, Op, false, 0>(l, lay, stream);
	if (l->val_stride % 8 == 0)
		return launch_tiles<Key, Op, true, 8>(l, lay, stream);
	if (l->val_stride % 4 == 0)
		return launch_tiles<Key, Op, true, 4>(l, lay, stream);
	return launch_tiles<Key, Op, true, 1>(l, lay, stream);
}

template <typename Key>
static cudaError_t
dispatch_op(const SetopLaunch *l, const ScratchLayout &lay, cudaStream_t stream)
{
	switch (l->op)
	{
		case SETOPS_OP_INTERSECT:
			return dispatch_values<Key, SETOPS_OP_INTERSECT>(l, lay, stream);
		case SETOPS_OP_UNION:
			return dispatch_values<Key, SETOPS_OP_UNION>(l, lay, stream);
		case SETOPS_OP_DIFFERENCE:
			return dispatch_values<Key, SETOPS_OP_DIFFERENCE>(l, lay, stream);
		case SETOPS_OP_SYMDIFF:
			return dispatch_values<Key, SETOPS_OP_SYMDIFF>(l, lay, stream);
		case SETOPS_OP_MERGE:
			/* merges carry no values */
			return l->duplicates ? launch_tiles<Key, SETOPS_OP_MERGE, true, 0>(l, lay, stream)
				: launch_tiles<Key, SETOPS_OP_MERGE, false, 0>(l, lay, stream);
	}
	return cudaErrorInvalidValue;
}

}								/* namespace setops */

using namespace setops;

size_t
setop_scratch_bytes(SetopsKeyType key_type, int na, int nb)
{
	return scratch_layout(key_type, na, nb).bytes;
}

SetopResults *
setop_results(void *scratch)
{
	return (SetopResults *) scratch;
}

cudaError_t
setop_enqueue(const SetopLaunch *l, cudaStream_t stream)
{
	ScratchLayout lay = scratch_layout(l->key_type, l->na, l->nb);
	cudaError_t err;

	if (l->count_mode != SETOPS_GPU_COUNT_NONE)
		return count_enqueue(l, stream);
	if (lay.num_tiles == 0 || skew_applies(l))
	{
		/* results and tile counter at 0, descriptors at X (the partition
		 * clears them on the tile path) */
		err = cudaMemsetAsync(l->scratch, 0, lay.zeroed, stream);
		if (err != cudaSuccess || lay.num_tiles == 0)
			return err;
		return skew_enqueue(l, (TileWord *) ((char *) l->scratch + lay.descriptors),
							(int *) ((char *) l->scratch + lay.counter), lay.num_tiles, stream);
	}
	if (l->key_type == SETOPS_KEY_INT64)
		return dispatch_op<int64_t>(l, lay, stream);
	return dispatch_op<int32_t>(l, lay, stream);
}
