/*
 * sort.cu
 *	  array_sort_gpu and array_distinct_gpu on the GPU: CUB's radix sort,
 *	  then (for distinct) a flag-and-compact pass with the same single-pass
 *	  look-back machinery as the set operations: a key is kept when it
 *	  differs from its predecessor.
 */
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <stdint.h>

#include "gpu_internal.h"
#include "../common/tile_geometry.h"
#include "lookback.cuh"
#include "compact.cuh"

namespace setops
{

/* the distinct's compaction tile: engine/common/tile_geometry.h */
const int	UNIQUE_NT = SETOPS_UNIQUE_NT;
const int	UNIQUE_VT = SETOPS_UNIQUE_VT;

template <typename Key>
__global__ void __launch_bounds__(UNIQUE_NT)
unique_kernel(const Key *keys, int n, Key *out, TileWord *descriptors, int *counter,
			  int *count, int num_tiles)
{
	const int	NV = UNIQUE_NT * UNIQUE_VT;
	typedef cub::BlockLoad<Key, UNIQUE_NT, UNIQUE_VT, cub::BLOCK_LOAD_TRANSPOSE> Load;
	typedef cub::BlockScan<int, UNIQUE_NT> Scan;
	union Shared
	{
		typename Load::TempStorage load;
		typename Scan::TempStorage scan;
		Key			out[NV];
	};
	__shared__ Shared s;
	__shared__ int s_slot;
	__shared__ int s_prefix;

	int			tile = tile_index(counter, &s_slot);
	int			base = tile * NV;
	int			valid = min(NV, n - base);
	Key			items[UNIQUE_VT];
	int			dummy[UNIQUE_VT];
	unsigned	commit = 0;
	int			offset,
				tile_total;

	Load(s.load).Load(keys + base, items, valid);
	/* keep a key that differs from the one before it (the first always) */
#pragma unroll
	for (int i = 0; i < UNIQUE_VT; ++i)
	{
		int			g = base + threadIdx.x * UNIQUE_VT + i;

		dummy[i] = 0;
		if (g < n && (g == 0 || keys[g - 1] != items[i]))
			commit |= 1u << i;
	}
	__syncthreads();
	Scan(s.scan).ExclusiveSum(__popc(commit), offset, tile_total);
	__syncthreads();
	if (threadIdx.x < 32)
	{
		long long	prefix = tile_exclusive_prefix(descriptors, tile, tile_total);

		if (threadIdx.x == 0)
			s_prefix = (int) prefix;
	}
	compact_to_shared(commit, items, dummy, offset, s.out, (int *) NULL, false);
	__syncthreads();
	store_shared_to_global<UNIQUE_NT>(s.out, tile_total, out + s_prefix);
	if (tile == num_tiles - 1 && threadIdx.x == 0)
		*count = s_prefix + tile_total;
}

template <typename Key>
static size_t
radix_temp_bytes(int n)
{
	size_t		bytes = 0;

	cub::DeviceRadixSort::SortKeys((void *) NULL, bytes, (const Key *) NULL, (Key *) NULL, n);
	return bytes;
}

template <typename Key>
static cudaError_t
sort_typed(Key *keys, Key *out, int n, bool distinct, void *scratch, size_t scratch_bytes,
		   int *count_dev, cudaStream_t stream)
{
	const int	NV = UNIQUE_NT * UNIQUE_VT;
	int			num_tiles = (n + NV - 1) / NV;
	size_t		desc_bytes = GPU_ALIGN((size_t) num_tiles * sizeof(TileWord) + 2 * sizeof(int));
	char	   *temp = (char *) scratch + desc_bytes;
	size_t		temp_bytes = scratch_bytes - desc_bytes;
	cudaError_t err;

	/* sorted into out; distinct then compacts out back into keys */
	err = cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys, out, n, 0,
										 (int) sizeof(Key) * 8, stream);
	if (err != cudaSuccess || !distinct || n == 0)
		return err;
	err = cudaMemsetAsync(scratch, 0, desc_bytes, stream);
	if (err != cudaSuccess)
		return err;
	unique_kernel<Key><<<num_tiles, UNIQUE_NT, 0, stream>>>(
		out, n, keys, (TileWord *) ((char *) scratch + 2 * sizeof(int)), (int *) scratch,
		count_dev, num_tiles);
	return cudaGetLastError();
}

}								/* namespace setops */

using namespace setops;

size_t
sort_scratch_bytes(SetopsKeyType key_type, int n)
{
	const int	NV = UNIQUE_NT * UNIQUE_VT;
	size_t		desc = GPU_ALIGN((size_t) ((n + NV - 1) / NV) * sizeof(TileWord) + 2 * sizeof(int));

	return desc + GPU_ALIGN(key_type == SETOPS_KEY_INT64 ? radix_temp_bytes<int64_t>(n)
							: radix_temp_bytes<int32_t>(n));
}

cudaError_t
sort_enqueue(SetopsKeyType key_type, void *keys, void *out, int n, bool distinct,
			 void *scratch, size_t scratch_bytes, int *count_dev, cudaStream_t stream)
{
	if (key_type == SETOPS_KEY_INT64)
		return sort_typed<int64_t>((int64_t *) keys, (int64_t *) out, n, distinct, scratch,
								   scratch_bytes, count_dev, stream);
	return sort_typed<int32_t>((int32_t *) keys, (int32_t *) out, n, distinct, scratch,
							   scratch_bytes, count_dev, stream);
}
