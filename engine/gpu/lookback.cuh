/*
 * lookback.cuh
 *	  Single-pass prefix of per-tile counts by decoupled look-back
 *	  (Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled
 *	  Look-back").
 *
 * Each tile owns a descriptor word holding a status and a value:
 *   X  nothing published yet,
 *   A  the tile's own aggregate (its output count),
 *   P  the tile's inclusive prefix (outputs of all tiles up to it).
 * A tile publishes A as soon as it knows its count, then walks back over
 * its predecessors, adding aggregates until it meets a P, and publishes its
 * own P.  Status and value share one 64-bit word, so a single store
 * publishes both and a reader can never see a status with a stale value.
 *
 * Tiles take their index from an atomic counter at start, not blockIdx:
 * every predecessor of a tile then belongs to a block that is already
 * running, so waiting on it can never deadlock.
 */
#ifndef SETOPS_LOOKBACK_CUH
#define SETOPS_LOOKBACK_CUH

#include <cuda/atomic>
#include <stdint.h>

#include "warp_sum.cuh"

namespace setops
{

enum TileStatus : unsigned long long
{
	TILE_X = 0,
	TILE_A = 1,
	TILE_P = 2
};

typedef unsigned long long TileWord;

__device__ __forceinline__ void
tile_publish(TileWord *desc, int tile, TileStatus status, long long value)
{
	cuda::atomic_ref<TileWord, cuda::thread_scope_device> word(desc[tile]);

	word.store(((TileWord) value << 2) | status, cuda::memory_order_relaxed);
}

__device__ __forceinline__ TileWord
tile_read(TileWord *desc, int tile)
{
	cuda::atomic_ref<TileWord, cuda::thread_scope_device> word(desc[tile]);

	return word.load(cuda::memory_order_relaxed);
}

/* The tile index of this block, in start order; call from every thread
 * (contains a barrier). */
__device__ __forceinline__ int
tile_index(int *counter, int *shared_slot)
{
	if (threadIdx.x == 0)
		*shared_slot = atomicAdd(counter, 1);
	__syncthreads();
	return *shared_slot;
}

/*
 * The outputs of all tiles before this one (tile > 0), read from their
 * descriptors without publishing anything; call from all 32 lanes of one
 * warp.  Lane i inspects the (i+1)-th nearest predecessor, so a warp looks
 * back 32 tiles at a time, adding aggregates until it meets an inclusive
 * prefix.
 */
__device__ __forceinline__ long long
tile_predecessors_sum(TileWord *desc, int tile)
{
	const unsigned full = 0xffffffffu;
	int			lane = threadIdx.x & 31;
	long long	exclusive = 0;
	int			window = tile - 1;

	for (;;)
	{
		int			pred = window - lane;
		TileWord	w;
		unsigned	status;
		unsigned	p_mask;
		int			nearest_p;
		long long	v;
		int			spins = 0;

		/* wait until every inspected predecessor has published something */
		for (;;)
		{
			w = pred >= 0 ? tile_read(desc, pred) : (TileWord) TILE_P;
			status = (unsigned) (w & 3);
			if (!__any_sync(full, status == TILE_X))
				break;
			if (++spins > 4)
				__nanosleep(32);
		}

		/* add aggregates up to and including the nearest inclusive prefix */
		p_mask = __ballot_sync(full, status == TILE_P);
		nearest_p = p_mask ? __ffs(p_mask) - 1 : 32;
		v = lane <= nearest_p ? (long long) (w >> 2) : 0;
		exclusive += warp_sum(v);
		if (p_mask)
			return exclusive;
		window -= 32;
	}
}

/*
 * Exclusive prefix of this tile's aggregate over all earlier tiles; call
 * from all 32 lanes of one warp.  Publishes A then P for this tile.
 */
__device__ __forceinline__ long long
tile_exclusive_prefix(TileWord *desc, int tile, long long aggregate)
{
	long long	exclusive;

	if (tile == 0)
	{
		if ((threadIdx.x & 31) == 0)
			tile_publish(desc, 0, TILE_P, aggregate);
		return 0;
	}
	if ((threadIdx.x & 31) == 0)
		tile_publish(desc, tile, TILE_A, aggregate);
	exclusive = tile_predecessors_sum(desc, tile);
	if ((threadIdx.x & 31) == 0)
		tile_publish(desc, tile, TILE_P, exclusive + aggregate);
	return exclusive;
}

}								/* namespace setops */

#endif							/* SETOPS_LOOKBACK_CUH */
