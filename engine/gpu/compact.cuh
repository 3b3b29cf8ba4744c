/*
 * compact.cuh
 *	  Compaction of a tile's outputs: each thread's committed registers go
 *	  to shared memory at the thread's scanned offset, then the whole tile
 *	  is stored to its final place with coalesced writes.
 *
 * Values of pairs are gathered here, after compaction, by source index:
 * src >= 0 is a position in A's values, ~src one in B's.  Values move in
 * words of Word bytes, value_words words per element.
 */
#ifndef SETOPS_COMPACT_CUH
#define SETOPS_COMPACT_CUH

#include <cub/block/block_scan.cuh>
#include <stdint.h>

#include "lookback.cuh"

namespace setops
{

template <int VT, typename Key>
__device__ __forceinline__ void
compact_to_shared(unsigned commit, const Key (&results)[VT], const int (&src)[VT],
				  int offset, Key *s_keys, int *s_src, bool with_src)
{
#pragma unroll
	for (int i = 0; i < VT; ++i)
		if (commit & (1u << i))
		{
			s_keys[offset] = results[i];
			if (with_src)
				s_src[offset] = src[i];
			++offset;
		}
}

/*
 * Where a tile's outputs go, and their compaction: the block scan of the
 * threads' commit counts, the tile's place among all outputs by decoupled
 * look-back (one warp; the others compact meanwhile), each thread's
 * committed registers into s_keys / s_src.  Returns the tile's first
 * output position; *offset is this thread's first within the tile,
 * *tile_total the tile's count.  Ends with a barrier, after which the
 * compacted tile is in shared memory.  scan_storage must not alias
 * s_keys: the scan's own barrier is what orders every thread's last read
 * of the tile's inputs before the first compacted write.
 */
template <int NT, int VT, typename Key>
__device__ __forceinline__ int
tile_compact(unsigned commit, const Key (&results)[VT], const int (&src)[VT], bool with_src,
			 typename cub::BlockScan<int, NT>::TempStorage &scan_storage,
			 TileWord *descriptors, int tile, Key *s_keys, int *s_src, int *s_prefix,
			 int *offset, int *tile_total)
{
	cub::BlockScan<int, NT>(scan_storage).ExclusiveSum(__popc(commit), *offset, *tile_total);
	if (threadIdx.x < 32)
	{
		long long	prefix = tile_exclusive_prefix(descriptors, tile, *tile_total);

		if (threadIdx.x == 0)
			*s_prefix = (int) prefix;
	}
	compact_to_shared(commit, results, src, *offset, s_keys, s_src, with_src);
	__syncthreads();
	return *s_prefix;
}

/*
 * Exclusive sum of v over the first NT threads (a multiple of 32), with
 * their own barrier (Sync, tile_load.cuh): a warp scan, the warps' sums
 * through s_warp, *total the sum of all.  The barrier inside also orders
 * every caller's reads before it ahead of any shared write after it.
 */
template <int NT, typename Sync>
__device__ __forceinline__ int
block_exclusive_sum(int v, int *total, int *s_warp)
{
	const unsigned full = 0xffffffffu;
	int			lane = threadIdx.x & 31;
	int			warp = threadIdx.x >> 5;
	int			x = v;
	int			before = 0;

#pragma unroll
	for (int o = 1; o < 32; o <<= 1)
	{
		int			y = __shfl_up_sync(full, x, o);

		if (lane >= o)
			x += y;
	}
	if (lane == 31)
		s_warp[warp] = x;
	Sync::sync();
	*total = 0;
#pragma unroll
	for (int w = 0; w < NT / 32; ++w)
	{
		int			t = s_warp[w];

		before += w < warp ? t : 0;
		*total += t;
	}
	return before + x - v;
}

template <int NT, typename T>
__device__ __forceinline__ void
store_shared_to_global(const T *s, int count, T *out)
{
	for (int i = threadIdx.x; i < count; i += NT)
		out[i] = s[i];
}

template <int NT, typename Word>
__device__ __forceinline__ void
gather_values(const int *s_src, int count, const Word *a_vals, const Word *b_vals,
			  int value_words, Word *out_vals)
{
	for (int i = threadIdx.x; i < count * value_words; i += NT)
	{
		int			e = i / value_words;
		int			w = i - e * value_words;
		int			g = s_src[e];
		const Word *from = g >= 0 ? a_vals + (size_t) g * value_words
			: b_vals + (size_t) (~g) * value_words;

		out_vals[i] = from[w];
	}
}

/*
 * A compacted tile (tile_compact) to its place from prefix on: its keys,
 * and for pairs (ValueWord 8, 4 or 1: the word the values move in; 0:
 * keys only) their values gathered by source.
 */
template <int NT, int ValueWord, typename Key>
__device__ __forceinline__ void
store_tile(const Key *s_keys, const int *s_src, int count, Key *out, int prefix,
		   const void *a_vals, const void *b_vals, int value_words, void *out_vals)
{
	store_shared_to_global<NT>(s_keys, count, out + prefix);
	if (ValueWord == 8)
		gather_values<NT>(s_src, count, (const uint64_t *) a_vals, (const uint64_t *) b_vals,
						  value_words, (uint64_t *) out_vals + (size_t) prefix * value_words);
	else if (ValueWord == 4)
		gather_values<NT>(s_src, count, (const uint32_t *) a_vals, (const uint32_t *) b_vals,
						  value_words, (uint32_t *) out_vals + (size_t) prefix * value_words);
	else if (ValueWord == 1)
		gather_values<NT>(s_src, count, (const uint8_t *) a_vals, (const uint8_t *) b_vals,
						  value_words, (uint8_t *) out_vals + (size_t) prefix * value_words);
}

}								/* namespace setops */

#endif							/* SETOPS_COMPACT_CUH */
