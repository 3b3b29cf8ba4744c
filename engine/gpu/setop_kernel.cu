/*
 * setop_kernel.cu
 *	  The multiset tile kernel and its launch.
 *
 * One pass over the inputs, one write of the outputs:
 *   1. partition_kernel: Balanced Path split at every tile boundary
 *      (partition.cuh);
 *   2. setop_tile_kernel, per tile of NV = NT * VT key-rank slots (+-1):
 *      load the tile's A and B intervals into shared memory, plus one more
 *      element of each when there is one (a sentinel that spares range
 *      checks), checking their order on the way; find each thread's start
 *      by a shared-memory Balanced Path search; run the serial set
 *      operation (serial_setops.cuh) to a commit mask; scan the counts in
 *      the block; take the tile's output offset from the tiles before it by
 *      decoupled look-back (lookback.cuh); compact and store the outputs
 *      (and gather values, for pairs) straight to their final place
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

template <typename Key, SetopsOp Op, bool Duplicates, int ValueWord>
__global__ void __launch_bounds__(TileShape<Key>::NT)
setop_tile_kernel(TileParams<Key> p)
{
	const int	NT = TileShape<Key>::NT;
	const int	VT = TileShape<Key>::VT;
	const int	NV = NT * VT;
	typedef cub::BlockScan<int, NT> Scan;
	struct Compacted
	{
		Key			keys[NV];
		int			src[NV];
	};
	union __align__(16) Shared
	{
		Key			keys[tile_shared_keys<Key>()];
		Compacted	out;
	};
	__shared__ Shared s;
	/* apart from the keys: the scan's own barrier then orders every
	 * thread's last read of the keys before the first compacted write */
	__shared__ typename Scan::TempStorage scan_storage;
	__shared__ int s_start_a[NT + 1];
	__shared__ int s_start_b[NT + 1];
	__shared__ int s_slot;

	int			tid = threadIdx.x;
	int			tile = tile_index(p.counter, &s_slot);
	TileRange	r = tile_range<Key>(p.boundaries, tile, p.na, p.nb);

	tile_load<Key>(p.a, p.na, p.b, p.nb, r, s.keys);
	if (r.bad)
		atomicOr(&p.results->unsorted, (int) r.bad);

	Key			results[VT];
	int			src[VT];
	unsigned	commit = tile_serial<Key, Op, Duplicates>(s.keys, r, s_start_a, s_start_b,
														  results, src);

	/* source indices become positions in the inputs (~ for B) */
	if (ValueWord)
	{
#pragma unroll
		for (int i = 0; i < VT; ++i)
			src[i] = src[i] < r.b_base ? r.a0 + src[i] - r.a_start : ~(r.b0 + src[i] - r.b_start);
	}

	int			offset;
	int			tile_total;
	__shared__ int s_prefix;
	int			prefix = tile_compact<NT, VT>(commit, results, src, ValueWord != 0, scan_storage,
											  p.descriptors, tile, s.out.keys, s.out.src,
											  &s_prefix, &offset, &tile_total);

	store_tile<NT, ValueWord>(s.out.keys, s.out.src, tile_total, p.out, prefix, p.a_vals,
							  p.b_vals, p.value_words, p.out_vals);
	if (tile == p.num_tiles - 1 && tid == 0)
		p.results->total = prefix + tile_total;
}

template <typename Key, SetopsOp Op, bool Duplicates, int ValueWord>
static cudaError_t
launch_tiles(const SetopLaunch *l, const ScratchLayout &lay, cudaStream_t stream)
{
	const int	NT = TileShape<Key>::NT;
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
		p.a, p.na, p.b, p.nb, NV, nb_parts, (int *) (scratch + lay.boundaries));
	setop_tile_kernel<Key, Op, Duplicates, ValueWord><<<lay.num_tiles, NT, 0, stream>>>(p);
	return cudaGetLastError();
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
	/* results and tile counter at 0, descriptors at X */
	err = cudaMemsetAsync(l->scratch, 0, lay.zeroed, stream);
	if (err != cudaSuccess || lay.num_tiles == 0)
		return err;
	if (skew_applies(l))
		return skew_enqueue(l, (TileWord *) ((char *) l->scratch + lay.descriptors),
							(int *) ((char *) l->scratch + lay.counter), lay.num_tiles, stream);
	if (l->key_type == SETOPS_KEY_INT64)
		return dispatch_op<int64_t>(l, lay, stream);
	return dispatch_op<int32_t>(l, lay, stream);
}
