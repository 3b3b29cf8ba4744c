/*
 * tile_load.cuh
 *	  One tile of a two-input operation, up to its serial step: the tile's
 *	  A and B intervals from the partition, copied into shared memory
 *	  (bulk_copy.cuh: one thread's bulk copies on sm_90), and each thread's
 *	  key-rank slots run through the serial set operation, which checks the
 *	  keys' order as it reads them.  Shared by the kernels that build
 *	  results (setop_kernel.cu) and those that only count (count_kernel.cu);
 *	  what follows the serial step (compaction, or a sum) is theirs.
 */
#ifndef SETOPS_TILE_LOAD_CUH
#define SETOPS_TILE_LOAD_CUH

#include <stdint.h>
#include <type_traits>

#include "gpu_internal.h"
#include "partition.cuh"
#include "bulk_copy.cuh"
#include "serial_setops.cuh"
#include "../common/tile_geometry.h"
#include "lookback.cuh"

namespace setops
{

/* Tile shapes (threads, key-rank slots per thread): SETOPS_NT32 etc. come
 * from engine/common/tile_geometry.h, which the SQL suites read too. */

/*
 * The barrier among the threads that work on a tile: the whole block, or
 * (with a look-back warp beside them, setop_kernel.cu) named barrier 1 of
 * the first NT threads, which the other warp never waits on.
 */
struct BlockSync
{
	static __device__ __forceinline__ void sync(void)
	{
		__syncthreads();
	}
};

template <int NT>
struct WorkerSync
{
	static __device__ __forceinline__ void sync(void)
	{
		asm volatile("bar.sync 1, %0;\n" :: "n"(NT) : "memory");
	}
};

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
 * The vectors that hold an interval [lo, hi) of an input of n keys: from
 * v0, whole ones (inside the input) up to v_whole, and all of them up to v1.
 * Only a tile that reaches the input's end has v_whole < v1.
 */
struct IntervalVectors
{
	int			v0,
				v_whole,
				v1;
};

template <int VN>
__device__ __forceinline__ IntervalVectors
interval_vectors(int lo, int hi, int n)
{
	IntervalVectors v;

	v.v0 = lo / VN;
	v.v1 = hi > lo ? (hi + VN - 1) / VN : v.v0;
	v.v_whole = max(v.v0, min(v.v1, n / VN));
	return v;
}

/* The loaded part of each input: the interval and its sentinel. */
__device__ __forceinline__ int
tile_a_hi(const TileRange &r)
{
	return r.a_cnt + r.ext > 0 ? r.a1 + r.ext : r.a0;
}

__device__ __forceinline__ int
tile_b_hi(const TileRange &r)
{
	return r.b_cnt + r.ext > 0 ? r.b1 + r.ext : r.b0;
}

#ifdef SETOPS_BULK_COPY
/*
 * One thread: the tile's intervals (sentinels included) into keys, in the
 * layout of TileRange.  Whole vectors go by two bulk copies counted on bar;
 * the keys of an input's last, partial vector by plain loads and stores,
 * which the block sees after its next barrier.  Keys past an input's end
 * are left as they are: no comparison reads them.
 */
template <typename Key, typename Shape>
__device__ __forceinline__ void
tile_copy_issue(const Key *a, int na, const Key *b, int nb, const TileRange &r, Key *keys,
				uint64_t *bar)
{
	const int	VN = Shape::VN;
	IntervalVectors va = interval_vectors<VN>(r.a0, tile_a_hi(r), na);
	IntervalVectors vb = interval_vectors<VN>(r.b0, tile_b_hi(r), nb);
	unsigned	a_bytes = (unsigned) (va.v_whole - va.v0) * 16;
	unsigned	b_bytes = (unsigned) (vb.v_whole - vb.v0) * 16;
	Key		   *b_keys = keys + r.b_base;

	mbar_arrive_expect(bar, a_bytes + b_bytes);
	if (a_bytes)
		bulk_copy_to_shared(keys, a + (size_t) va.v0 * VN, a_bytes, bar);
	if (b_bytes)
		bulk_copy_to_shared(b_keys, b + (size_t) vb.v0 * VN, b_bytes, bar);
	for (int i = va.v_whole * VN; i < min(va.v1 * VN, na); i++)
		keys[i - va.v0 * VN] = a[i];
	for (int i = vb.v_whole * VN; i < min(vb.v1 * VN, nb); i++)
		b_keys[i - vb.v0 * VN] = b[i];
}
#else
/*
 * Before sm_90: the same intervals into the same layout by `threads`
 * threads (this one is `thread` of them), 16 bytes a copy, and the partial vector key by key (a 16-byte copy would
 * read past the input).
 */
template <typename Key, typename Shape>
__device__ __forceinline__ void
tile_copy_threads(const Key *a, int na, const Key *b, int nb, const TileRange &r, Key *keys,
				  int thread, int threads)
{
	const int	VN = Shape::VN;
	IntervalVectors va = interval_vectors<VN>(r.a0, tile_a_hi(r), na);
	IntervalVectors vb = interval_vectors<VN>(r.b0, tile_b_hi(r), nb);
	int			a_vecs = va.v1 - va.v0;
	int			b_vecs = vb.v1 - vb.v0;

	for (int q = thread; q < a_vecs + b_vecs; q += threads)
	{
		bool		from_a = q < a_vecs;
		int			gv = from_a ? va.v0 + q : vb.v0 + q - a_vecs;
		int			left = (from_a ? na : nb) - gv * VN;	/* >= 1: the vector holds a loaded key */
		Key		   *dst = keys + (from_a ? q : r.b_base / VN + q - a_vecs) * VN;
		const Key  *src = (from_a ? a : b) + (size_t) gv * VN;

		if (left >= VN)
			copy_async16(dst, src);
		else
			for (int e = 0; e < left; e++)
				copy_async_key<Key>(dst + e, src + e);
	}
}
#endif

/*
 * Start copying a tile into keys, from the tile's NT threads.  On
 * sm_90 thread 0 issues bulk copies counted on bar (the buffer's last
 * readers must have passed a barrier since); before, every thread issues
 * its share and commits it as a group.
 */
template <typename Key, typename Shape>
__device__ __forceinline__ void
tile_copy_start(const Key *a, int na, const Key *b, int nb, const TileRange &r, Key *keys,
				uint64_t *bar)
{
#ifdef SETOPS_BULK_COPY
	if (threadIdx.x == 0)
	{
		fence_proxy_async_shared();
		tile_copy_issue<Key, Shape>(a, na, b, nb, r, keys, bar);
	}
#else
	tile_copy_threads<Key, Shape>(a, na, b, nb, r, keys, threadIdx.x, Shape::NT);
	copy_async_commit();
#endif
}

/*
 * Wait for a tile started by tile_copy_start: its phase of bar (sm_90),
 * or all but the Pending most recent of this thread's groups.  A block
 * barrier must follow before the keys are read (the partial vector's
 * stores, and before sm_90 the other threads' copies).
 */
template <int Pending>
__device__ __forceinline__ void
tile_copy_wait(uint64_t *bar, unsigned parity)
{
#ifdef SETOPS_BULK_COPY
	mbar_wait(bar, parity);
#else
	copy_async_wait<Pending>();
#endif
}

/*
 * No tile to start: before sm_90 an empty group keeps each thread's group
 * count in step with the tiles, for tile_copy_wait's Pending.
 */
__device__ __forceinline__ void
tile_copy_skip(void)
{
#ifndef SETOPS_BULK_COPY
	copy_async_commit();
#endif
}

/* A block's copy barriers, initialised by thread 0 before a block barrier. */
__device__ __forceinline__ void
tile_copy_init(uint64_t *bars, int n)
{
#ifdef SETOPS_BULK_COPY
	if (threadIdx.x == 0)
	{
		for (int i = 0; i < n; i++)
			mbar_init(&bars[i]);
		mbar_init_fence();
	}
#endif
}

/*
 * The key before each interval (a[a0 - 1], b[b0 - 1]), for the order check
 * of the tile's first keys (by thread 0): read by one thread (reader)
 * while the tile is on its way.
 */
template <typename Key>
struct TileBefore
{
	Key			a,
				b;
};

template <typename Key>
__device__ __forceinline__ TileBefore<Key>
tile_before(const Key *a, const Key *b, const TileRange &r, bool reader)
{
	TileBefore<Key> t;

	t.a = reader && r.a_cnt > 0 && r.a0 > 0 ? a[r.a0 - 1] : Key(0);
	t.b = reader && r.b_cnt > 0 && r.b0 > 0 ? b[r.b0 - 1] : Key(0);
	return t;
}

/*
 * A thread's share of a loaded tile, as indices into keys: its start in
 * each interval (a shared-memory Balanced Path search on its diagonal) and
 * its stop (the next thread's start).
 */
struct ThreadRange
{
	int			ai,
				bi,
				a_stop,
				b_stop,
				a_end,			/* the tile's intervals end here */
				b_end;
};

/*
 * Each thread's range; contains a barrier.  The order check of the tile is
 * shared between this and the walk (serial_setops.cuh): the walk compares
 * every key it reads with the one it read before on the same side, so what
 * is left here is the pair just before each thread's first key of each
 * interval (for thread 0, the key before the tile).  bad collects the
 * flags.
 */
template <typename Key, bool Duplicates, bool IsMerge, typename Shape, typename Sync>
__device__ __forceinline__ ThreadRange
tile_thread_range(const Key *keys, const TileRange &r, int *s_start_a, int *s_start_b,
				  const TileBefore<Key> &before, unsigned &bad)
{
	const int	NT = Shape::NT;
	const int	VT = Shape::VT;
	int			tid = threadIdx.x;
	ThreadRange t;

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
	Sync::sync();

	t.ai = r.a_start + s_start_a[tid];
	t.bi = r.b_start + s_start_b[tid];
	t.a_stop = r.a_start + s_start_a[tid + 1];
	t.b_stop = r.b_start + s_start_b[tid + 1];
	t.a_end = r.a_start + r.a_cnt;
	t.b_end = r.b_start + r.b_cnt;

	if (t.ai < t.a_end &&
		keys[t.ai] < (t.ai > r.a_start ? keys[t.ai - 1] :
					  tid == 0 && r.a0 > 0 ? before.a : keys[t.ai]))
		bad |= 1;
	if (t.bi < t.b_end &&
		keys[t.bi] < (t.bi > r.b_start ? keys[t.bi - 1] :
					  tid == 0 && r.b0 > 0 ? before.b : keys[t.bi]))
		bad |= 2;
	return t;
}

/*
 * After the walk: a walk of sorted keys ends exactly where the next thread
 * starts (Balanced Path splits never cut a key-rank pair, and the walk
 * takes a pair in one slot); any other end, or a start past the next
 * thread's, can only come from keys out of order.
 */
__device__ __forceinline__ unsigned
walk_end_flags(const ThreadRange &t, int ai, int bi)
{
	return ai != t.a_stop || bi != t.b_stop ? 4u : 0u;
}

/*
 * Each thread's walk of the loaded tile (serial_setops.cuh): its range,
 * then walk(range_check, ai, bi, range, watch) with range_check a
 * compile-time bool (the tile loaded no sentinel), the keys' order checked
 * on the way (bad).  Returns what the walk returns.  Contains a barrier.
 */
template <typename Key, bool Duplicates, bool IsMerge, typename Shape, typename Sync, typename Walk>
__device__ __forceinline__ auto
tile_walk(const Key *keys, const TileRange &r, int *s_start_a, int *s_start_b,
		  const TileBefore<Key> &before, unsigned &bad, Walk &&walk)
{
	ThreadRange t = tile_thread_range<Key, Duplicates, IsMerge, Shape, Sync>(
		keys, r, s_start_a, s_start_b, before, bad);
	int			ai = t.ai,
				bi = t.bi;
	OrderWatch<Key> w = order_watch_start(keys, ai, bi);
	auto		result = r.ext ? walk(std::false_type(), ai, bi, t, w) :
		walk(std::true_type(), ai, bi, t, w);

	bad |= w.down() | walk_end_flags(t, ai, bi);
	return result;
}

/*
 * Each thread's key-rank slots through the serial set operation.  Returns
 * the commit mask; results / src as serial_setop gives them.
 */
template <typename Key, SetopsOp Op, bool Duplicates, typename Shape = TileShape<Key>,
		  typename Sync = BlockSync>
__device__ __forceinline__ unsigned
tile_serial(const Key *keys, const TileRange &r, int *s_start_a, int *s_start_b,
			const TileBefore<Key> &before, Key (&results)[Shape::VT], int (&src)[Shape::VT],
			unsigned &bad)
{
	return tile_walk<Key, Duplicates, Op == SETOPS_OP_MERGE, Shape, Sync>(
		keys, r, s_start_a, s_start_b, before, bad,
		[&](auto range_check, int &ai, int &bi, const ThreadRange &t, OrderWatch<Key> &w)
		{
			return serial_setop<Op, Shape::VT, decltype(range_check)::value>(
				keys, ai, t.a_end, bi, t.b_end, t.a_stop + t.b_stop, results, src, w);
		});
}

/* The same walk counting matches instead of committing slots. */
template <typename Key, bool Duplicates, typename Shape>
__device__ __forceinline__ int
tile_count(const Key *keys, const TileRange &r, int *s_start_a, int *s_start_b,
		   const TileBefore<Key> &before, unsigned &bad)
{
	return tile_walk<Key, Duplicates, false, Shape, BlockSync>(
		keys, r, s_start_a, s_start_b, before, bad,
		[&](auto range_check, int &ai, int &bi, const ThreadRange &t, OrderWatch<Key> &w)
		{
			return serial_count<Shape::VT, decltype(range_check)::value>(
				keys, ai, t.a_end, bi, t.b_end, t.a_stop + t.b_stop, w);
		});
}

}								/* namespace setops */

#endif							/* SETOPS_TILE_LOAD_CUH */
