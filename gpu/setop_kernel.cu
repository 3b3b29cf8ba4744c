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
 */
#include <cub/block/block_scan.cuh>
#include <stdint.h>

#include "gpu_internal.h"
#include "partition.cuh"
#include "serial_setops.cuh"
#include "lookback.cuh"
#include "compact.cuh"

namespace setops
{

/* Tile shapes (threads, key-rank slots per thread), chosen by a sweep on an
 * H200 (test/gpu/kernel_bench built with -DSETOPS_NT32=... etc.). */
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

template <typename Key> struct TileShape;
template <> struct TileShape<int32_t>
{
	static const int NT = SETOPS_NT32;
	static const int VT = SETOPS_VT32;
	typedef int4 Vec;			/* 16-byte loads */
	static const int VN = 4;
};
template <> struct TileShape<int64_t>
{
	static const int NT = SETOPS_NT64;
	static const int VT = SETOPS_VT64;
	typedef longlong2 Vec;
	static const int VN = 2;
};

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
	int			nv = key_type == SETOPS_KEY_INT64 ?
		TileShape<int64_t>::NT * TileShape<int64_t>::VT :
		TileShape<int32_t>::NT * TileShape<int32_t>::VT;
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

template <typename Key>
struct TileParams
{
	const Key  *a;
	int			na;
	const Key  *b;
	int			nb;
	const int  *boundaries;
	int			num_tiles;
	Key		   *out;
	const void *a_vals;
	const void *b_vals;
	int			value_words;
	void	   *out_vals;
	TileWord   *descriptors;
	int		   *counter;
	SetopResults *results;
};

template <typename Key, SetopsOp Op, bool Duplicates, int ValueWord>
__global__ void __launch_bounds__(TileShape<Key>::NT)
setop_tile_kernel(TileParams<Key> p)
{
	const int	NT = TileShape<Key>::NT;
	const int	VT = TileShape<Key>::VT;
	const int	NV = NT * VT;
	const int	VN = TileShape<Key>::VN;
	const bool	IsMerge = Op == SETOPS_OP_MERGE;
	typedef typename TileShape<Key>::Vec Vec;
	typedef cub::BlockScan<int, NT> Scan;
	struct Compacted
	{
		Key			keys[NV];
		int			src[NV];
	};
	union __align__(16) Shared
	{
		Key			keys[NV + 4 * VN];
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
	int			d0 = tile * NV;
	int			d1 = min(d0 + NV, p.na + p.nb);
	int			bp0 = p.boundaries[tile];
	int			bp1 = p.boundaries[tile + 1];
	int			a0 = boundary_a(bp0);
	int			a1 = boundary_a(bp1);
	int			star0 = boundary_star(bp0);
	int			b0 = d0 - a0 + star0;
	int			b1 = d1 - a1 + boundary_star(bp1);
	int			a_cnt = a1 - a0;
	int			b_cnt = b1 - b0;
	unsigned	bad = 0;

	/*
	 * Sorted input always gives intervals that tile the arrays; anything
	 * else can only come from unsorted input.  Such a tile loads nothing,
	 * outputs nothing and reports it (the caller then finds the exact
	 * position and raises the error).
	 */
	if (a_cnt < 0 || b_cnt < 0 || a_cnt + b_cnt > NV + 1 || a0 < 0 || b0 < 0 ||
		a1 > p.na || b1 > p.nb)
	{
		a_cnt = b_cnt = 0;
		bad = 4;
	}

	/*
	 * Shared layout: each interval is loaded in whole 16-byte vectors from
	 * aligned addresses, so it lands at its offset within a vector: A's
	 * first key at a_start = a0 % VN, B's at b_start = b_base + b0 % VN,
	 * b_base being the first vector after A.  With a sentinel (ext), one
	 * more key of each input follows its interval.
	 */
	bool		ext = bad == 0 && a1 < p.na && b1 < p.nb;
	int			a_start = a0 & (VN - 1);
	int			a_vec0 = a0 / VN;
	int			a_vecs = a_cnt + ext > 0 ? (a1 + ext + VN - 1) / VN - a_vec0 : 0;
	int			b_base = (a_start + a_cnt + ext + VN - 1) & ~(VN - 1);
	int			b_start = b_base + (b0 & (VN - 1));
	int			b_vec0 = b0 / VN;
	int			b_vecs = b_cnt + ext > 0 ? (b1 + ext + VN - 1) / VN - b_vec0 : 0;
	{
		const int	LV = (NV / VN + 5 + NT - 1) / NT;
		const unsigned full = 0xffffffffu;
		Vec			v[LV];
		unsigned	cross = 0;		/* vectors whose first key needs its left neighbour */
		bool		partial = false;
		bool		tail = false;

		/*
		 * All loads in flight before the first store.  Only the vector that
		 * runs past the end of its input needs element loads: such warps
		 * (one or two a tile) take a separate, warp-uniform path.
		 */
#pragma unroll
		for (int j = 0; j < LV; ++j)
		{
			int			q = tid + j * NT;
			bool		from_a = q < a_vecs;
			int			gv = from_a ? a_vec0 + q : b_vec0 + q - a_vecs;

			if (q < a_vecs + b_vecs)
			{
				if ((gv + 1) * VN <= (from_a ? p.na : p.nb))
					v[j] = __ldg((const Vec *) (from_a ? p.a : p.b) + gv);
				else
					tail = true;
			}
		}
		if (__any_sync(full, tail))
		{
#pragma unroll
			for (int j = 0; j < LV; ++j)
			{
				int			q = tid + j * NT;
				bool		from_a = q < a_vecs;
				int			gv = from_a ? a_vec0 + q : b_vec0 + q - a_vecs;
				const Key  *src = from_a ? p.a : p.b;
				int			n_src = from_a ? p.na : p.nb;

				if (q < a_vecs + b_vecs && (gv + 1) * VN > n_src)
				{
					Key			tail[VN];

#pragma unroll
					for (int e = 0; e < VN; ++e)
						tail[e] = gv * VN + e < n_src ? src[gv * VN + e] : Key(0);
					v[j] = *(Vec *) tail;
				}
			}
		}

		/*
		 * Order check, part one, in registers: the pairs inside each vector
		 * that lies wholly within its input's loaded range (sentinel
		 * included).  A vector at either end of a range is checked key by
		 * key; the pair across two vectors is checked after the barrier.
		 */
#pragma unroll
		for (int j = 0; j < LV; ++j)
		{
			int			q = tid + j * NT;
			bool		from_a = q < a_vecs;
			int			g0 = (from_a ? a_vec0 + q : b_vec0 + q - a_vecs) * VN;
			int			lo = from_a ? a0 : b0;
			int			hi = (from_a ? a1 : b1) + ext;
			const Key  *k = (const Key *) &v[j];

			if (q < a_vecs + b_vecs)
			{
				if (g0 >= lo && g0 + VN <= hi)
				{
					bool		desc = false;

#pragma unroll
					for (int e = 1; e < VN; ++e)
						desc |= k[e] < k[e - 1];
					if (desc)
						bad |= from_a ? 1 : 2;
				}
				else
					partial = true;
				if (g0 - 1 >= lo && g0 < hi)
					cross |= 1u << j;
			}
		}
		if (__any_sync(full, partial))
		{
#pragma unroll
			for (int j = 0; j < LV; ++j)
			{
				int			q = tid + j * NT;
				bool		from_a = q < a_vecs;
				int			g0 = (from_a ? a_vec0 + q : b_vec0 + q - a_vecs) * VN;
				int			lo = from_a ? a0 : b0;
				int			hi = (from_a ? a1 : b1) + ext;
				const Key  *k = (const Key *) &v[j];

				if (q < a_vecs + b_vecs && !(g0 >= lo && g0 + VN <= hi))
#pragma unroll
					for (int e = 1; e < VN; ++e)
						if (g0 + e - 1 >= lo && g0 + e < hi && k[e] < k[e - 1])
							bad |= from_a ? 1 : 2;
			}
		}

#pragma unroll
		for (int j = 0; j < LV; ++j)
		{
			int			q = tid + j * NT;

			if (q < a_vecs + b_vecs)
				((Vec *) s.keys)[q < a_vecs ? q : b_base / VN + q - a_vecs] = v[j];
		}

		/* the pairs just before the tile: this tile checks its first elements */
		if (tid == 0 && a_cnt > 0 && a0 > 0 && p.a[a0] < p.a[a0 - 1])
			bad |= 1;
		if (tid == 0 && b_cnt > 0 && b0 > 0 && p.b[b0] < p.b[b0 - 1])
			bad |= 2;
		__syncthreads();

		/* order check, part two: the pair across each vector boundary */
#pragma unroll
		for (int j = 0; j < LV; ++j)
			if (cross & (1u << j))
			{
				int			q = tid + j * NT;
				int			first = (q < a_vecs ? q : b_base / VN + q - a_vecs) * VN;

				if (s.keys[first] < s.keys[first - 1])
					bad |= q < a_vecs ? 1 : 2;
			}
	}
	if (bad)
		atomicOr(&p.results->unsorted, (int) bad);

	/* each thread's start on its diagonal, and its end: the next start */
	{
		int			count = a_cnt + b_cnt;
		int			diag = tid == 0 ? 0 : min(max(VT * tid - star0, 0), count);
		int			star;
		int			ai = split_path<Key, Duplicates, IsMerge>(s.keys + a_start, a_cnt,
															  s.keys + b_start, b_cnt,
															  diag, 2, &star);

		s_start_a[tid] = ai;
		s_start_b[tid] = diag - ai + star;
		if (tid == 0)
		{
			s_start_a[NT] = a_cnt;
			s_start_b[NT] = b_cnt;
		}
	}
	__syncthreads();

	Key			results[VT];
	int			src[VT];
	unsigned	commit;
	{
		int			ai = a_start + s_start_a[tid];
		int			bi = b_start + s_start_b[tid];
		int			end = a_start + s_start_a[tid + 1] + b_start + s_start_b[tid + 1];

		if (ext)
			commit = serial_setop<Op, VT, false>(s.keys, ai, a_start + a_cnt, bi,
												 b_start + b_cnt, end, results, src);
		else
			commit = serial_setop<Op, VT, true>(s.keys, ai, a_start + a_cnt, bi,
												b_start + b_cnt, end, results, src);
	}

	/* source indices become positions in the inputs (~ for B) */
	if (ValueWord)
	{
#pragma unroll
		for (int i = 0; i < VT; ++i)
			src[i] = src[i] < b_base ? a0 + src[i] - a_start : ~(b0 + src[i] - b_start);
	}

	int			offset;
	int			tile_total;

	Scan(scan_storage).ExclusiveSum(__popc(commit), offset, tile_total);

	__shared__ int s_prefix;
	if (tid < 32)
	{
		long long	prefix = tile_exclusive_prefix(p.descriptors, tile, tile_total);

		if (tid == 0)
			s_prefix = (int) prefix;
	}
	compact_to_shared(commit, results, src, offset, s.out.keys, s.out.src, ValueWord != 0);
	__syncthreads();

	int			prefix = s_prefix;

	store_shared_to_global<NT>(s.out.keys, tile_total, p.out + prefix);
	if (ValueWord == 8)
		gather_values<NT>(s.out.src, tile_total, (const uint64_t *) p.a_vals,
						  (const uint64_t *) p.b_vals, p.value_words,
						  (uint64_t *) p.out_vals + (size_t) prefix * p.value_words);
	else if (ValueWord == 4)
		gather_values<NT>(s.out.src, tile_total, (const uint32_t *) p.a_vals,
						  (const uint32_t *) p.b_vals, p.value_words,
						  (uint32_t *) p.out_vals + (size_t) prefix * p.value_words);
	else if (ValueWord == 1)
		gather_values<NT>(s.out.src, tile_total, (const uint8_t *) p.a_vals,
						  (const uint8_t *) p.b_vals, p.value_words,
						  (uint8_t *) p.out_vals + (size_t) prefix * p.value_words);
	if (tile == p.num_tiles - 1 && tid == 0)
		p.results->total = prefix + tile_total;
}

template <typename Key, SetopsOp Op, bool Duplicates, int ValueWord>
static cudaError_t
launch_tiles(const SetopLaunch *l, const ScratchLayout &lay, cudaStream_t stream)
{
	const int	NT = TileShape<Key>::NT;
	const int	NV = NT * TileShape<Key>::VT;
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

	/* results and tile counter at 0, descriptors at X */
	err = cudaMemsetAsync(l->scratch, 0, lay.zeroed, stream);
	if (err != cudaSuccess || lay.num_tiles == 0)
		return err;
	if (l->key_type == SETOPS_KEY_INT64)
		return dispatch_op<int64_t>(l, lay, stream);
	return dispatch_op<int32_t>(l, lay, stream);
}
