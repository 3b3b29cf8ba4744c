/*
 * warp_sum.cuh
 *	  The sum of a value over a full warp, in every lane.
 *
 * Every lane of the warp must call it.  32-bit values take sm_80's
 * one-instruction reduction; 64-bit ones, which it lacks, a butterfly of
 * shuffles, after which every lane holds the same sum too.
 */
#ifndef SETOPS_GPU_WARP_SUM_CUH
#define SETOPS_GPU_WARP_SUM_CUH

namespace setops
{

__device__ __forceinline__ int
warp_sum(int x)
{
	return __reduce_add_sync(0xffffffffu, x);
}

__device__ __forceinline__ unsigned
warp_sum(unsigned x)
{
	return __reduce_add_sync(0xffffffffu, x);
}

__device__ __forceinline__ long long
warp_sum(long long x)
{
#pragma unroll
	for (int offset = 16; offset > 0; offset >>= 1)
		x += __shfl_xor_sync(0xffffffffu, x, offset);
	return x;
}

}								/* namespace setops */

#endif							/* SETOPS_GPU_WARP_SUM_CUH */
