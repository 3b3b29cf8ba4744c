/*
 * tile_load.cuh
 *	  One tile of a two-input operation, up to its serial step: the tile's
 *	  A and B intervals from the partition, loaded into shared memory with
 *	  their order checked on the way, and each thread's key-rank slots run
 *	  through the serial set operation.  Shared by the kernels that build
 *	  results (setop_kernel.cu) and those that only count (count_kernel.cu);
 *	  what follows the serial step (compaction, or a sum) is theirs.
 */
#ifndef SETOPS_TILE_LOAD_CUH
#define SETOPS_TILE_LOAD_CUH

#include <stdint.h>

#include "gpu_internal.h"
#include "partition.cuh"
#include "serial_setops.cuh"
#include "lookback.cuh"

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

/* 16-byte loads: the vector of each key type, and its keys */
template <typename Key> struct TileVector;
template <> struct TileVector<int32_t>
{
	typedef int4 Vec;
	static const int VN = 4;
};
template <> struct TileVector<int64_t>
{
	typedef longlong2 Vec;
	static const int VN = 2;
};

/* A tile of NT threads with VT key-rank slots each. */
template <typename Key, int NT_, int VT_>
struct TileShapeOf : TileVector<Key>
{
	static const int NT = NT_;
	static const int VT = VT_;
};

/* The operations' tiles. */
template <typename Key> struct TileShape;
template <> struct TileShape<int32_t> : TileShapeOf<int32_t, SETOPS_NT32, SETOPS_VT32> {};
template <> struct TileShape<int64_t> : TileShapeOf<int64_t, SETOPS_NT64, SETOPS_VT64> {};

/*
 * Key-rank slots per tile, and the shared keys a tile loads (with slack
 * for its sentinels and the vector alignment of both intervals).  The
 * functions below take the shape as a parameter (default TileShape): a
 * kernel that does less per slot may take larger tiles.
 */
template <typename Key, typename Shape = TileShape<Key>>
__host__ __device__ constexpr int
tile_slots()
{
	return Shape::NT * Shape::VT;
}

template <typename Key, typename Shape = TileShape<Key>>
__host__ __device__ constexpr int
tile_shared_keys()
{
	return tile_slots<Key, Shape>() + 4 * Shape::VN;
}

/* A launch of tiles over A and B that builds outputs (setop_kernel.cu,
 * skew_kernel.cu): inputs, boundaries, outputs, look-back state. */
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

/*
 * Where a tile's intervals lie: A[a0, a1) and B[b0, b1), and where they
 * land in shared memory (A's first key at a_start, B's at b_start).  With
 * a sentinel (ext), one more key of each input follows its interval.
 * bad collects order breaks: bit 0 A, bit 1 B, bit 2 partitions that do
 * not tile the inputs (only unsorted input gives those).
 */
struct TileRange
{
	int			a0,
				a1,
				b0,
				b1;
	int			a_cnt,
				b_cnt;
	int			star0;
	int			a_start,
				b_base,
				b_start;
	bool		ext;
	unsigned	bad;
};

/* The tile's range from its two boundaries (partition.cuh). */
template <typename Key, typename Shape = TileShape<Key>>
__device__ __forceinline__ TileRange
tile_range(const int *boundaries, int tile, int na, int nb)
{
	const int	VN = Shape::VN;
	const int	NV = tile_slots<Key, Shape>();
	TileRange	r;
	int			d0 = tile * NV;
	int			d1 = min(d0 + NV, na + nb);
	int			bp0 = boundaries[tile];
	int			bp1 = boundaries[tile + 1];

	r.a0 = boundary_a(bp0);
	r.a1 = boundary_a(bp1);
	r.star0 = boundary_star(bp0);
	r.b0 = d0 - r.a0 + r.star0;
	r.b1 = d1 - r.a1 + boundary_star(bp1);
	r.a_cnt = r.a1 - r.a0;
	r.b_cnt = r.b1 - r.b0;
	r.bad = 0;

	/*
	 * Sorted input always gives intervals that tile the arrays; anything
	 * else can only come from unsorted input.  Such a tile loads nothing,
	 * outputs nothing and reports it (the caller then finds the exact
	 * position and raises the error).
	 */
	if (r.a_cnt < 0 || r.b_cnt < 0 || r.a_cnt + r.b_cnt > NV + 1 || r.a0 < 0 || r.b0 < 0 ||
		r.a1 > na || r.b1 > nb)
	{
		r.a_cnt = r.b_cnt = 0;
		r.bad = 4;
	}

	/*
	 * Shared layout: each interval is loaded in whole 16-byte vectors from
	 * aligned addresses, so it lands at its offset within a vector: A's
	 * first key at a_start = a0 % VN, B's at b_start = b_base + b0 % VN,
	 * b_base being the first vector after A.
	 */
	r.ext = r.bad == 0 && r.a1 < na && r.b1 < nb;
	r.a_start = r.a0 & (VN - 1);
	r.b_base = (r.a_start + r.a_cnt + r.ext + VN - 1) & ~(VN - 1);
	r.b_start = r.b_base + (r.b0 & (VN - 1));
	return r;
}

/*
 * Load the tile's intervals (sentinels included) into keys, checking
 * their order; ends with a barrier, after which keys hold the tile and
 * r.bad this thread's share of the order check.
 */
template <typename Key, typename Shape = TileShape<Key>>
__device__ __forceinline__ void
tile_load(const Key *a, int na, const Key *b, int nb, TileRange &r, Key *keys)
{
	const int	NT = Shape::NT;
	const int	VN = Shape::VN;
	const int	LV = (tile_slots<Key, Shape>() / VN + 5 + NT - 1) / NT;
	const unsigned full = 0xffffffffu;
	typedef typename Shape::Vec Vec;
	int			tid = threadIdx.x;
	int			a_vec0 = r.a0 / VN;
	int			a_vecs = r.a_cnt + r.ext > 0 ? (r.a1 + r.ext + VN - 1) / VN - a_vec0 : 0;
	int			b_vec0 = r.b0 / VN;
	int			b_vecs = r.b_cnt + r.ext > 0 ? (r.b1 + r.ext + VN - 1) / VN - b_vec0 : 0;
	Vec			v[LV];
	unsigned	cross = 0;		/* vectors whose first key needs its left neighbour */
	bool		partial = false;
	bool		tail = false;

	/*
	 * All loads in flight before the first store.  Only the vector that
	 * runs past the end of its input needs element loads: such warps (one
	 * or two a tile) take a separate, warp-uniform path.
	 */
#pragma unroll
	for (int j = 0; j < LV; ++j)
	{
		int			q = tid + j * NT;
		bool		from_a = q < a_vecs;
		int			gv = from_a ? a_vec0 + q : b_vec0 + q - a_vecs;

		if (q < a_vecs + b_vecs)
		{
			if ((gv + 1) * VN <= (from_a ? na : nb))
				v[j] = __ldg((const Vec *) (from_a ? a : b) + gv);
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
			const Key  *src = from_a ? a : b;
			int			n_src = from_a ? na : nb;

			if (q < a_vecs + b_vecs && (gv + 1) * VN > n_src)
			{
				Key			last[VN];

#pragma unroll
				for (int e = 0; e < VN; ++e)
					last[e] = gv * VN + e < n_src ? src[gv * VN + e] : Key(0);
				v[j] = *(Vec *) last;
			}
		}
	}

	/*
	 * Order check, part one, in registers: the pairs inside each vector
	 * that lies wholly within its input's loaded range (sentinel
	 * included).  A vector at either end of a range is checked key by key;
	 * the pair across two vectors is checked after the barrier.
	 */
#pragma unroll
	for (int j = 0; j < LV; ++j)
	{
		int			q = tid + j * NT;
		bool		from_a = q < a_vecs;
		int			g0 = (from_a ? a_vec0 + q : b_vec0 + q - a_vecs) * VN;
		int			lo = from_a ? r.a0 : r.b0;
		int			hi = (from_a ? r.a1 : r.b1) + r.ext;
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
					r.bad |= from_a ? 1 : 2;
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
			int			lo = from_a ? r.a0 : r.b0;
			int			hi = (from_a ? r.a1 : r.b1) + r.ext;
			const Key  *k = (const Key *) &v[j];

			if (q < a_vecs + b_vecs && !(g0 >= lo && g0 + VN <= hi))
#pragma unroll
				for (int e = 1; e < VN; ++e)
					if (g0 + e - 1 >= lo && g0 + e < hi && k[e] < k[e - 1])
						r.bad |= from_a ? 1 : 2;
		}
	}

#pragma unroll
	for (int j = 0; j < LV; ++j)
	{
		int			q = tid + j * NT;

		if (q < a_vecs + b_vecs)
			((Vec *) keys)[q < a_vecs ? q : r.b_base / VN + q - a_vecs] = v[j];
	}

	/* the pairs just before the tile: this tile checks its first elements */
	if (tid == 0 && r.a_cnt > 0 && r.a0 > 0 && a[r.a0] < a[r.a0 - 1])
		r.bad |= 1;
	if (tid == 0 && r.b_cnt > 0 && r.b0 > 0 && b[r.b0] < b[r.b0 - 1])
		r.bad |= 2;
	__syncthreads();

	/* order check, part two: the pair across each vector boundary */
#pragma unroll
	for (int j = 0; j < LV; ++j)
		if (cross & (1u << j))
		{
			int			q = tid + j * NT;
			int			first = (q < a_vecs ? q : r.b_base / VN + q - a_vecs) * VN;

			if (keys[first] < keys[first - 1])
				r.bad |= q < a_vecs ? 1 : 2;
		}
}

/*
 * The asynchronous load (sm_80 cp.async): the same intervals into the
 * same layout, copied by the copy engine straight into shared memory, so
 * that a block can have the next tile on its way while it works on this
 * one.  tile_load_async only issues the copies (the caller commits and
 * waits for them); the order is checked afterwards, in shared memory
 * (tile_check_order).  A vector that runs past the end of its input is
 * copied key by key, up to the input's end (a 16-byte copy would read past
 * it); the keys after it are never compared.
 */
__device__ __forceinline__ void
copy_async16(void *shared, const void *global)
{
	unsigned	s = (unsigned) __cvta_generic_to_shared(shared);

	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n"
				 :: "r"(s), "l"(global) : "memory");
}

/* One key (4 or 8 bytes): the end of an input, where 16 bytes would read
 * past it. */
template <typename Key>
__device__ __forceinline__ void
copy_async_key(Key *shared, const Key *global)
{
	unsigned	s = (unsigned) __cvta_generic_to_shared(shared);

	if (sizeof(Key) == 8)
		asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n"
					 :: "r"(s), "l"(global) : "memory");
	else
		asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n"
					 :: "r"(s), "l"(global) : "memory");
}

__device__ __forceinline__ void
copy_async_commit(void)
{
	asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* Wait until at most Pending of this thread's committed groups are open. */
template <int Pending>
__device__ __forceinline__ void
copy_async_wait(void)
{
	asm volatile("cp.async.wait_group %0;\n" :: "n"(Pending) : "memory");
}

template <typename Key, typename Shape = TileShape<Key>>
__device__ __forceinline__ void
tile_load_async(const Key *a, int na, const Key *b, int nb, const TileRange &r, Key *keys)
{
	const int	NT = Shape::NT;
	const int	VN = Shape::VN;
	int			a_vec0 = r.a0 / VN;
	int			a_vecs = r.a_cnt + r.ext > 0 ? (r.a1 + r.ext + VN - 1) / VN - a_vec0 : 0;
	int			b_vec0 = r.b0 / VN;
	int			b_vecs = r.b_cnt + r.ext > 0 ? (r.b1 + r.ext + VN - 1) / VN - b_vec0 : 0;

	for (int q = threadIdx.x; q < a_vecs + b_vecs; q += NT)
	{
		bool		from_a = q < a_vecs;
		int			gv = from_a ? a_vec0 + q : b_vec0 + q - a_vecs;
		int			left = (from_a ? na : nb) - gv * VN;	/* >= 1: the vector holds a loaded key */
		Key		   *dst = keys + (from_a ? q : r.b_base / VN + q - a_vecs) * VN;
		const Key  *src = (from_a ? a : b) + gv * VN;

		if (left >= VN)
			copy_async16(dst, src);
		else
			for (int e = 0; e < left; e++)
				copy_async_key<Key>(dst + e, src + e);
	}
}

/*
 * The order check of a tile loaded by tile_load_async, a 16-byte vector of
 * shared memory at a time: every adjacent pair of its intervals
 * (sentinels included), and the pair just before each interval (a_before
 * = a[a0 - 1], b_before = b[b0 - 1], read by the caller ahead of time;
 * used by thread 0 only).  Returns this thread's order flags.
 */
template <typename Key, typename Shape = TileShape<Key>>
__device__ __forceinline__ unsigned
tile_check_order(const TileRange &r, const Key *keys, Key a_before, Key b_before)
{
	const int	NT = Shape::NT;
	const int	VN = Shape::VN;
	typedef typename Shape::Vec Vec;
	/* the vectors holding each interval: A's from 0, B's from b_base */
	int			a_vecs = r.a_cnt + r.ext > 0 ? (r.a_start + r.a_cnt + r.ext + VN - 1) / VN : 0;
	int			b_vec0 = r.b_base / VN;
	int			b_vecs = r.b_cnt + r.ext > 0 ?
		(r.b_start + r.b_cnt + r.ext + VN - 1) / VN - b_vec0 : 0;
	unsigned	bad = 0;

	for (int q = threadIdx.x; q < a_vecs + b_vecs; q += NT)
	{
		bool		in_a = q < a_vecs;
		int			v = in_a ? q : b_vec0 + q - a_vecs;
		int			lo = in_a ? r.a_start : r.b_start;
		int			hi = lo + (in_a ? r.a_cnt : r.b_cnt) + r.ext;
		Vec			w = ((const Vec *) keys)[v];
		const Key  *k = (const Key *) &w;
		int			s0 = v * VN;
		Key			left = s0 - 1 >= lo ? keys[s0 - 1] : k[0];
		bool		desc = false;

#pragma unroll
		for (int e = 0; e < VN; ++e)
		{
			desc |= s0 + e - 1 >= lo && s0 + e < hi && k[e] < left;
			left = k[e];
		}
		if (desc)
			bad |= in_a ? 1 : 2;
	}
	if (threadIdx.x == 0 && r.a_cnt > 0 && r.a0 > 0 && keys[r.a_start] < a_before)
		bad |= 1;
	if (threadIdx.x == 0 && r.b_cnt > 0 && r.b0 > 0 && keys[r.b_start] < b_before)
		bad |= 2;
	return bad;
}

/*
 * Each thread's key-rank slots of the loaded tile through the serial set
 * operation: its start on its diagonal (a shared-memory Balanced Path
 * search), its end the next thread's start.  Returns the commit mask;
 * results / src as serial_setop gives them.  Contains a barrier.
 */
template <typename Key, SetopsOp Op, bool Duplicates, typename Shape = TileShape<Key>>
__device__ __forceinline__ unsigned
tile_serial(const Key *keys, const TileRange &r, int *s_start_a, int *s_start_b,
			Key (&results)[Shape::VT], int (&src)[Shape::VT])
{
	const int	NT = Shape::NT;
	const int	VT = Shape::VT;
	const bool	IsMerge = Op == SETOPS_OP_MERGE;
	int			tid = threadIdx.x;

	{
		int			count = r.a_cnt + r.b_cnt;
		int			diag = tid == 0 ? 0 : min(max(VT * tid - r.star0, 0), count);
		int			star;
		int			ai = split_path<Key, Duplicates, IsMerge>(keys + r.a_start, r.a_cnt,
															  keys + r.b_start, r.b_cnt,
															  diag, 2, &star);

		s_start_a[tid] = ai;
		s_start_b[tid] = diag - ai + star;
		if (tid == 0)
		{
			s_start_a[NT] = r.a_cnt;
			s_start_b[NT] = r.b_cnt;
		}
	}
	__syncthreads();

	int			ai = r.a_start + s_start_a[tid];
	int			bi = r.b_start + s_start_b[tid];
	int			end = r.a_start + s_start_a[tid + 1] + r.b_start + s_start_b[tid + 1];

	if (r.ext)
		return serial_setop<Op, VT, false>(keys, ai, r.a_start + r.a_cnt, bi,
										   r.b_start + r.b_cnt, end, results, src);
	return serial_setop<Op, VT, true>(keys, ai, r.a_start + r.a_cnt, bi,
									  r.b_start + r.b_cnt, end, results, src);
}

}								/* namespace setops */

#endif							/* SETOPS_TILE_LOAD_CUH */
