/*
 * batch_kernel.cu
 *	  Segmented multiset kernels: many pairs (A_i, B_i) in one launch.
 *
 * Work is split element-wise, not pair-wise (the splitSegdOnElems idea of
 * Data Parallel Haskell's segment descriptors): pair i's work is its
 * na_i + nb_i elements, the pairs' work is laid end to end, and each tile
 * takes the same NV elements of it wherever the pairs begin and end.  A
 * long pair spans many tiles; a tile may hold the tail of one pair, many
 * whole small pairs and the head of another.
 *
 *   1. batch_partition_kernel: for each tile boundary, the pair it falls
 *      in (binary search over the pairs' work starts) and the Balanced Path
 *      split of that pair on the boundary's diagonal (partition.cuh), so no
 *      key-rank pair straddles two tiles.
 *   2. batch_tile_kernel: the tile's piece of each of its pairs goes to
 *      shared memory (A's piece then B's, pair after pair); each thread
 *      finds its start (the pair holding its first element, then a
 *      Balanced Path search within that pair's piece), and runs the serial
 *      set operation over its slots, crossing into the next pair when one
 *      is exhausted.  Outputs are compacted within the tile by a block scan
 *      and across tiles by decoupled look-back (lookback.cuh), as for a
 *      single pair.  The thread that begins a pair records where that
 *      pair's output begins, so the same pass yields every pair's output
 *      offset, and the lengths are their differences.
 *   3. probe_tile_kernel, for intersection and difference when every pair
 *      has the same B (each row against one constant): the work is A's
 *      elements only.  Each key looks up its count in B (a binary search,
 *      first over a sample of B in shared memory) and is kept by its rank
 *      in its run: the r-th copy in A_i pairs with the r-th copy in B.
 *
 * Pairs are given by their starts into the A and B buffers, which need not
 * be prefix sums (a reduction's round pairs runs 2k and 2k+1 of one
 * buffer; a shared B has every start 0).  Empty pairs are left out by the
 * host: every pair here holds at least one element of work.
 */
#include <cub/block/block_scan.cuh>
#include <stdint.h>

#include "gpu_internal.h"
#include "partition.cuh"
#include "lookback.cuh"
#include "compact.cuh"
#include "instances.cuh"

namespace setops
{

template <typename Key> struct BatchShape;
template <> struct BatchShape<int32_t>
{
	static const int NT = 128;
	static const int VT = 16;
};
template <> struct BatchShape<int64_t>
{
	static const int NT = 128;
	static const int VT = 12;
};

/*
 * The last of n starts at or before e: a pair's (its work starts, in global
 * memory) or a piece's (its place in the tile, in shared memory).  Pairs
 * and pieces are never empty, so the answer holds e.
 */
__device__ __forceinline__ int
pair_of(const int *starts, int n, int e)
{
	int			lo = 0,
				hi = n;

	while (lo < hi)
	{
		int			mid = (lo + hi) >> 1;

		if (starts[mid] <= e)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

/*
 * Tiles of at least this many pieces, none longer than the second bound,
 * load a piece per group of lanes (piece_group).
 */
#define BATCH_GROUPED_PIECES 8
#define BATCH_LANE_ELEMENTS 16
#define BATCH_GROUPED_LONGEST (32 * BATCH_LANE_ELEMENTS)

/*
 * Lanes per piece for a tile whose longest piece has longest elements:
 * eight to sixteen of them a lane, from one lane (pairs of a few elements)
 * to a warp.  A power of two, so groups never straddle a warp.
 */
__device__ __forceinline__ int
piece_group(int longest)
{
	int			g = 1;

	while (g < 32 && g * BATCH_LANE_ELEMENTS < longest)
		g *= 2;
	return g;
}

template <typename Key, bool IsMerge>
__global__ void
batch_partition_kernel(BatchPairs pairs, const Key *a, const Key *b, int nv,
					   int num_boundaries, BatchBoundary *boundaries)
{
	int			i = blockIdx.x * blockDim.x + threadIdx.x;
	int			total = pairs.work_start[pairs.npairs];

	if (i < num_boundaries)
	{
		int64_t		e64 = (int64_t) i * nv;
		BatchBoundary bd;

		if (e64 >= total)
		{
			bd.pair = pairs.npairs;
			bd.ai = bd.bi = 0;
		}
		else
		{
			int			e = (int) e64;
			int			p = pair_of(pairs.work_start, pairs.npairs, e);
			int			d = e - pairs.work_start[p];
			int			na = pairs.a_len[p];
			int			nb = pairs.b_len[p];
			int			star;

			bd.pair = p;
			bd.ai = split_path<Key, true, IsMerge>(a + pairs.a_start[p], na,
												   b + pairs.b_start[p], nb, d, 4, &star);
			bd.bi = d - bd.ai + star;
			/* a starred split at the pair's very end: the next pair's start */
			if (bd.ai == na && bd.bi == nb)
			{
				bd.pair = p + 1;
				bd.ai = bd.bi = 0;
			}
		}
		boundaries[i] = bd;
	}
}

/*
 * Element x of a tile whose pieces start at s_piece (A's acnt keys of each
 * first, then B's), the first piece from lo's split on.
 */
template <typename Key>
__device__ __forceinline__ Key
batch_tile_key(const BatchPairs &pairs, const BatchBoundary &lo, const Key *a, const Key *b,
			   const int *s_piece, const int *s_acnt, int npieces, int x)
{
	int			j = npieces == 1 ? 0 : pair_of(s_piece, npieces, x);
	int			pr = lo.pair + j;
	int			off = x - s_piece[j];
	int			acnt = s_acnt[j];

	if (off < acnt)
		return a[pairs.a_start[pr] + (j == 0 ? lo.ai : 0) + off];
	return b[pairs.b_start[pr] + (j == 0 ? lo.bi : 0) + off - acnt];
}

/*
 * The end of every batch tile: the block scan of the commit counts, the
 * tile's offset by decoupled look-back, compaction through shared memory,
 * where each pair begun in this tile puts its first output (the k-th pair
 * begun by a thread is first_pair + k), the coalesced stores and, in the
 * last tile, the total.
 */
template <int NT, int VT, bool WithPos, typename Key>
__device__ __forceinline__ void
batch_tile_finish(const BatchLaunchParams &p, int tile, unsigned commit, unsigned starts,
				  int first_pair, const Key (&results)[VT], const int (&pos)[VT],
				  typename cub::BlockScan<int, NT>::TempStorage &scan_storage,
				  Key *s_keys, int *s_pos, int *s_prefix)
{
	int			tid = threadIdx.x;
	int			offset;
	int			tile_total;
	int			prefix = tile_compact<NT, VT>(commit, results, pos, WithPos, scan_storage,
											  p.descriptors, tile, s_keys, s_pos, s_prefix,
											  &offset, &tile_total);

	for (int k = first_pair; starts; starts &= starts - 1, ++k)
	{
		int			i = __ffs(starts) - 1;

		p.out_start[k] = prefix + offset + __popc(commit & ((1u << i) - 1));
	}
	store_shared_to_global<NT>(s_keys, tile_total, (Key *) p.out + prefix);
	if (WithPos)
		for (int i = tid; i < tile_total; i += NT)
			p.out_pos[prefix + i] = s_pos[i];
	if (tile == p.num_tiles - 1 && tid == 0)
		p.results->total = prefix + tile_total;
}

template <typename Key, SetopsOp Op, bool WithPos>
__global__ void __launch_bounds__(BatchShape<Key>::NT)
batch_tile_kernel(BatchLaunchParams p)
{
	const int	NT = BatchShape<Key>::NT;
	const int	VT = BatchShape<Key>::VT;
	const int	NV = NT * VT;
	const bool	IsMerge = Op == SETOPS_OP_MERGE;
	typedef cub::BlockScan<int, NT> Scan;
	struct Compacted
	{
		Key			keys[NV];
		int			pos[NV];
	};
	union Shared
	{
		Key			keys[NV + 2];
		Compacted	out;
	};
	__shared__ Shared s;
	__shared__ typename Scan::TempStorage scan_storage;
	/* the tile's pieces: where each starts in s.keys, and its A count */
	__shared__ int s_piece[NV + 3];
	__shared__ int s_acnt[NV + 2];
	__shared__ int s_tstart[NT + 1];	/* each thread's first element */
	__shared__ int s_tpiece[NT];
	__shared__ int s_tai[NT];
	__shared__ int s_slot;
	__shared__ int s_prefix;

	const Key  *a = (const Key *) p.a;
	const Key  *b = (const Key *) p.b;
	BatchPairs	pairs = p.pairs;
	int			tid = threadIdx.x;
	__shared__ int s_longest;	/* the tile's longest piece */

	if (tid == 0)
		s_longest = 0;			/* ordered by tile_index's barrier */
	int			tile = tile_index(p.counter, &s_slot);
	BatchBoundary lo = p.boundaries[tile];
	BatchBoundary hi = p.boundaries[tile + 1];
	int			total = pairs.work_start[pairs.npairs];
	int			base = lo.pair < pairs.npairs ? pairs.work_start[lo.pair] + lo.ai + lo.bi : total;
	int			end = hi.pair < pairs.npairs ? pairs.work_start[hi.pair] + hi.ai + hi.bi : total;
	int			count = end - base;
	/* the last pair with elements in this tile */
	int			last = hi.ai + hi.bi > 0 ? hi.pair : hi.pair - 1;
	int			npieces = count > 0 ? last - lo.pair + 1 : 0;
	/* a starred start: the tile begins one element after tile * NV */
	int			shift = base - tile * NV;

	/* the pieces: pair lo.pair + j from (ai, bi) on, the last one cut at hi */
	{
		int			longest = 0;

		for (int j = tid; j < npieces; j += NT)
		{
			int			pr = lo.pair + j;
			int			a0 = j == 0 ? lo.ai : 0;
			int			b0 = j == 0 ? lo.bi : 0;
			int			a1 = pr == hi.pair ? hi.ai : pairs.a_len[pr];
			int			b1 = pr == hi.pair ? hi.bi : pairs.b_len[pr];

			s_piece[j] = pairs.work_start[pr] + a0 + b0 - base;
			s_acnt[j] = a1 - a0;
			longest = max(longest, a1 - a0 + b1 - b0);
		}
		if (longest > 0)
			atomicMax(&s_longest, longest);
	}
	if (tid == 0)
		s_piece[npieces] = count;
	__syncthreads();

	/*
	 * Load.  Each thread first issues all its loads, into registers, and
	 * only then stores them: one memory round trip a tile, not one an
	 * element.  (A tile that waits on a round trip per element holds up
	 * every later tile at the look-back; when some tiles take more round
	 * trips than others, as tiles of two pieces did, the whole batch runs
	 * at their pace.)
	 *
	 * Many pieces, none long (pairs of up to a few hundred elements): a
	 * group of lanes per piece, sized so that a lane takes at most sixteen
	 * elements of the longest, so the pair's starts are looked up once per
	 * piece and lane rather than once per element.  Otherwise the block
	 * strides over the tile and each element finds its piece.  A long
	 * piece must not go to a small group: that one tile would hold up
	 * every later tile's look-back.
	 */
	if (npieces >= BATCH_GROUPED_PIECES && s_longest <= BATCH_GROUPED_LONGEST)
	{
		int			g = piece_group(s_longest);
		int			lane = tid & (g - 1);

		for (int j = tid / g; j < npieces; j += NT / g)
		{
			int			pr = lo.pair + j;
			int			x0 = s_piece[j];
			int			xb = x0 + s_acnt[j];
			int			x1 = s_piece[j + 1];
			/* element x of the piece is a[ia + x] or b[ib + x] */
			int			ia = pairs.a_start[pr] + (j == 0 ? lo.ai : 0) - x0;
			int			ib = pairs.b_start[pr] + (j == 0 ? lo.bi : 0) - xb;
			Key			v[BATCH_LANE_ELEMENTS];

#pragma unroll
			for (int k = 0; k < BATCH_LANE_ELEMENTS; ++k)
			{
				int			x = x0 + lane + k * g;

				if (x < x1)
					v[k] = x < xb ? a[ia + x] : b[ib + x];
			}
#pragma unroll
			for (int k = 0; k < BATCH_LANE_ELEMENTS; ++k)
			{
				int			x = x0 + lane + k * g;

				if (x < x1)
					s.keys[x] = v[k];
			}
		}
	}
	else
	{
		Key			v[VT];

#pragma unroll
		for (int k = 0; k < VT; ++k)
		{
			int			x = tid + k * NT;

			if (x < count)
				v[k] = batch_tile_key(pairs, lo, a, b, s_piece, s_acnt, npieces, x);
		}
#pragma unroll
		for (int k = 0; k < VT; ++k)
		{
			int			x = tid + k * NT;

			if (x < count)
				s.keys[x] = v[k];
		}
		/* a starred tile holds NV + 1 elements */
		for (int x = tid + NV; x < count; x += NT)
			s.keys[x] = batch_tile_key(pairs, lo, a, b, s_piece, s_acnt, npieces, x);
	}
	__syncthreads();

	/* each thread's start: its piece, then the split within the piece */
	{
		int			x = tid == 0 ? 0 : min(max(VT * tid - shift, 0), count);
		int			j = 0,
					ai = 0;

		if (x < count)
		{
			int			star;
			int			acnt,
						bcnt,
						d;

			j = npieces == 1 ? 0 : pair_of(s_piece, npieces, x);
			acnt = s_acnt[j];
			bcnt = s_piece[j + 1] - s_piece[j] - acnt;
			d = x - s_piece[j];
			ai = split_path<Key, true, IsMerge>(s.keys + s_piece[j], acnt,
												s.keys + s_piece[j] + acnt, bcnt, d, 2, &star);
			x = s_piece[j] + ai + (d - ai + star);
		}
		s_tstart[tid] = x;
		s_tpiece[tid] = j;
		s_tai[tid] = ai;
		if (tid == 0)
			s_tstart[NT] = count;
	}
	__syncthreads();

	Key			results[VT];
	int			pos[VT];
	unsigned	commit = 0;
	unsigned	starts = 0;		/* slot i begins a pair */
	int			first_started = -1;	/* the piece of the first pair begun */
	{
		int			j = s_tpiece[tid];
		int			stop = s_tstart[tid + 1];
		int			pstart = s_piece[j];
		int			acnt = s_acnt[j];
		int			bcnt = s_piece[j + 1] - pstart - acnt;
		int			ai = s_tai[tid];
		int			bi = s_tstart[tid] - pstart - ai;
		/* positions within the pair, for values: the piece's offsets */
		int			a_off = j == 0 ? lo.ai : 0;
		int			b_off = (j == 0 ? lo.bi : 0) + (WithPos ? pairs.a_len[lo.pair + j] : 0);

		if (s_tstart[tid] >= count)
			stop = count;		/* an idle thread: nothing below runs */
#pragma unroll
		for (int i = 0; i < VT; ++i)
		{
			if (pstart + ai + bi < stop)
			{
				unsigned	a_in,
							b_in,
							take_a,
							take_b;
				Key			x,
							y;

				if (ai == acnt && bi == bcnt)
				{
					/* this piece is done: the next pair, from its start */
					++j;
					pstart = s_piece[j];
					acnt = s_acnt[j];
					bcnt = s_piece[j + 1] - pstart - acnt;
					ai = bi = 0;
					a_off = 0;
					b_off = WithPos ? pairs.a_len[lo.pair + j] : 0;
				}
				if (ai == 0 && bi == 0 && (j > 0 || (lo.ai == 0 && lo.bi == 0)))
				{
					starts |= 1u << i;
					if (first_started < 0)
						first_started = j;
				}
				x = s.keys[pstart + ai];
				y = s.keys[pstart + acnt + bi];
				a_in = ai < acnt;
				b_in = bi < bcnt;
				take_a = a_in & ((b_in ^ 1u) | (unsigned) (x <= y));
				take_b = b_in & ((a_in ^ 1u) | (unsigned) (y <= x));
				switch (Op)
				{
					case SETOPS_OP_INTERSECT:
						results[i] = x;
						pos[i] = a_off + ai;
						commit |= (take_a & take_b) << i;
						break;
					case SETOPS_OP_DIFFERENCE:
						results[i] = x;
						pos[i] = a_off + ai;
						commit |= (take_a & (take_b ^ 1u)) << i;
						break;
					case SETOPS_OP_UNION:
					case SETOPS_OP_MERGE:
						results[i] = take_a ? x : y;
						pos[i] = take_a ? a_off + ai : b_off + bi;
						commit |= 1u << i;
						break;
					case SETOPS_OP_SYMDIFF:
						results[i] = take_a ? x : y;
						pos[i] = take_a ? a_off + ai : b_off + bi;
						commit |= (take_a ^ take_b) << i;
						break;
				}
				ai += take_a;
				bi += IsMerge ? take_a ^ 1u : take_b;
			}
		}
	}

	/* after the scan's barrier nobody reads the keys: their space compacts */
	batch_tile_finish<NT, VT, WithPos>(p, tile, commit, starts, lo.pair + first_started,
									   results, pos, scan_storage, s.out.keys, s.out.pos,
									   &s_prefix);
}

/*
 * The shared-B probe.  A's pairs lie end to end in a (a_start is the
 * prefix of a_len); a tile is NV consecutive elements of a.
 */
#define PROBE_SAMPLES 2048

/* First i in [0, n) with b[i] >= x (or n), through the sample first. */
template <typename Key>
__device__ __forceinline__ int
probe_lower(const Key *b, int nb, const Key *sample, int nsample, int stride, Key x)
{
	/* samples are b[k * stride]: the answer lies after the last sample < x */
	int			lo = 0,
				hi = nsample;

	while (lo < hi)
	{
		int			mid = (lo + hi) >> 1;

		if (sample[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	{
		int			l = lo == 0 ? 0 : (lo - 1) * stride + 1;
		int			h = lo == nsample ? nb : lo * stride;

		while (l < h)
		{
			int			mid = (l + h) >> 1;

			if (b[mid] < x)
				l = mid + 1;
			else
				h = mid;
		}
		return l;
	}
}

template <typename Key, SetopsOp Op, bool WithPos>
__global__ void __launch_bounds__(BatchShape<Key>::NT)
probe_tile_kernel(BatchLaunchParams p)
{
	const int	NT = BatchShape<Key>::NT;
	const int	VT = BatchShape<Key>::VT;
	const int	NV = NT * VT;
	typedef cub::BlockScan<int, NT> Scan;
	struct Compacted
	{
		Key			keys[NV];
		int			pos[NV];
	};
	union Shared
	{
		Key			keys[NV];
		Compacted	out;
	};
	__shared__ Shared s;
	__shared__ Key s_sample[PROBE_SAMPLES];
	__shared__ typename Scan::TempStorage scan_storage;
	__shared__ int s_slot;
	__shared__ int s_prefix;

	const Key  *a = (const Key *) p.a;
	const Key  *b = (const Key *) p.b;
	BatchPairs	pairs = p.pairs;
	int			nb = pairs.b_len[0];
	int			tid = threadIdx.x;
	int			tile = tile_index(p.counter, &s_slot);
	int			total = pairs.work_start[pairs.npairs];
	int			base = tile * NV;
	int			count = min(NV, total - base);
	int			stride = (nb + PROBE_SAMPLES - 1) / PROBE_SAMPLES;
	int			nsample = stride > 0 ? (nb + stride - 1) / stride : 0;

	for (int x = tid; x < count; x += NT)
		s.keys[x] = a[base + x];
	for (int k = tid; k < nsample; k += NT)
		s_sample[k] = b[k * stride];
	__syncthreads();

	Key			results[VT];
	int			pos[VT];
	unsigned	commit = 0;
	unsigned	starts = 0;
	int			first_started = -1;
	{
		int			x0 = tid * VT;
		int			pr = x0 < count ? pair_of(pairs.work_start, pairs.npairs, base + x0) : 0;
		int			pair_begin = pairs.work_start[pr];
		int			pair_end = pair_begin + pairs.a_len[pr];
		int			rank = 0;
		Key			prev = Key(0);

#pragma unroll
		for (int i = 0; i < VT; ++i)
		{
			int			x = x0 + i;

			if (x < count)
			{
				int			e = base + x;
				Key			key = s.keys[x];
				int			lb,
							cnt = 0;

				while (e >= pair_end)
				{
					++pr;
					pair_begin = pairs.work_start[pr];
					pair_end = pair_begin + pairs.a_len[pr];
				}
				if (e == pair_begin)
				{
					starts |= 1u << i;
					if (first_started < 0)
						first_started = pr;
					rank = 0;
				}
				else if (i > 0)
					rank = key == prev ? rank + 1 : 0;
				else if (a[e - 1] == key)
				{
					/* mid-run at the thread's first key: the run's start */
					int			l = pair_begin,
								h = e;

					while (l < h)
					{
						int			mid = (l + h) >> 1;

						if (a[mid] < key)
							l = mid + 1;
						else
							h = mid;
					}
					rank = e - l;
				}
				prev = key;
				lb = probe_lower(b, nb, s_sample, nsample, stride, key);
				if (lb < nb && b[lb] == key)
				{
					/* a first copy needs one in B; later ones, B's whole run */
					int			l = lb + 1,
								h = nb;

					while (rank > 0 && l < h)
					{
						int			mid = (l + h) >> 1;

						if (key < b[mid])
							h = mid;
						else
							l = mid + 1;
					}
					cnt = rank > 0 ? l - lb : 1;
				}
				results[i] = key;
				pos[i] = e - pair_begin;
				if (Op == SETOPS_OP_INTERSECT)
					commit |= (unsigned) (rank < cnt) << i;
				else
					commit |= (unsigned) (rank >= cnt) << i;
			}
		}
	}

	batch_tile_finish<NT, VT, WithPos>(p, tile, commit, starts, first_started, results, pos,
									   scan_storage, s.out.keys, s.out.pos, &s_prefix);
}

template <typename Key, SetopsOp Op, bool WithPos>
static cudaError_t
launch_batch(BatchLaunchParams p, bool probe, cudaStream_t stream)
{
	const int	NT = BatchShape<Key>::NT;

	if (probe)
	{
		if (Op == SETOPS_OP_INTERSECT || Op == SETOPS_OP_DIFFERENCE)
			probe_tile_kernel<Key, Op, WithPos><<<p.num_tiles, NT, 0, stream>>>(p);
		return cudaGetLastError();
	}
	batch_partition_kernel<Key, Op == SETOPS_OP_MERGE><<<(p.num_tiles + 1 + 127) / 128, 128, 0, stream>>>(
		p.pairs, (const Key *) p.a, (const Key *) p.b, NT * BatchShape<Key>::VT,
		p.num_tiles + 1, p.boundaries);
	batch_tile_kernel<Key, Op, WithPos><<<p.num_tiles, NT, 0, stream>>>(p);
	return cudaGetLastError();
}

/* The batch's scratch: tiles of the pairs' work, with look-back. */
static ScratchLayout
batch_layout(int num_tiles)
{
	return scratch_layout(num_tiles, true, sizeof(BatchBoundary), 0);
}

}								/* namespace setops */

using namespace setops;

int
batch_tile_elements(SetopsKeyType key_type)
{
	return key_type == SETOPS_KEY_INT64 ? BatchShape<int64_t>::NT * BatchShape<int64_t>::VT
		: BatchShape<int32_t>::NT * BatchShape<int32_t>::VT;
}

size_t
batch_scratch_bytes(int num_tiles)
{
	return batch_layout(num_tiles).bytes;
}

cudaError_t
batch_enqueue(SetopsOp op, SetopsKeyType key_type, bool probe, BatchLaunchParams p,
			  void *scratch, cudaStream_t stream)
{
	ScratchLayout lay = batch_layout(p.num_tiles);
	char	   *s = (char *) scratch;
	cudaError_t err;

	p.results = (SetopResults *) (s + lay.results);
	p.counter = (int *) (s + lay.counter);
	p.descriptors = (unsigned long long *) (s + lay.descriptors);
	p.boundaries = (BatchBoundary *) (s + lay.boundaries);
	err = cudaMemsetAsync(scratch, 0, lay.zeroed, stream);
	if (err != cudaSuccess || p.num_tiles == 0)
		return err;
	return for_key(key_type, [&](auto key) {
		typedef typename decltype(key)::type Key;

		return for_op(op, [&](auto op_c) {
			return for_bool(p.out_pos != NULL, [&](auto with_pos) {
				return launch_batch<Key, decltype(op_c)::value, decltype(with_pos)::value>(
					p, probe, stream);
			});
		});
	});
}
