/*
 * pool.cu
 *	  Buffers reused across calls: one device arena, one small pinned
 *	  block, two pinned staging buffers, one stream and its events.
 *
 * The arena grows to the largest call's need (rounded up to 64 MB) and is
 * then reused, so device memory does not grow across calls; it shrinks
 * when a call needs less than a quarter of a large arena, so one huge
 * operation does not pin its memory for the life of the backend.  No
 * cudaMalloc or cudaHostAlloc happens on the hot path.
 */
#include <stdio.h>
#include <string.h>

#include "gpu_internal.h"

#define ARENA_ROUND ((size_t) 64 << 20)

static GpuPool pools[GPU_MAX_POOLS];
static bool pools_ready[GPU_MAX_POOLS];
static __thread int pool_index = 0;

/* the pool this thread uses (the macro names keep the code below short) */
#define pool (pools[pool_index])
#define pool_ready (pools_ready[pool_index])

void
gpu_pool_select(int index)
{
	pool_index = index >= 0 && index < GPU_MAX_POOLS ? index : 0;
}

int
gpu_pool_selected(void)
{
	return pool_index;
}

void
gpu_pool_forget(void)
{
	int			i;

	for (i = 0; i < GPU_MAX_POOLS; i++)
		if (pools_ready[i] && pools[i].device == gpu_current_device())
		{
			pools_ready[i] = false;
			memset(&pools[i], 0, sizeof(pools[i]));
		}
}

static bool
pool_init(SetopsGpuStatus *status, char *errbuf, size_t errlen)
{
	cudaError_t err;
	int			i;

	pool.device = gpu_current_device();

	err = cudaStreamCreateWithFlags(&pool.stream, cudaStreamNonBlocking);
	for (i = 0; err == cudaSuccess && i < GPU_EVENTS; i++)
		err = cudaEventCreate(&pool.ev[i]);
	if (err == cudaSuccess)
		err = cudaHostAlloc(&pool.pinned, GPU_PINNED_BYTES, cudaHostAllocMapped);
	/* (kernels write a shared trip's answers there; without a mapping they are copied) */
	pool.pinned_dev = NULL;
	if (err == cudaSuccess && cudaHostGetDevicePointer(&pool.pinned_dev, pool.pinned, 0) != cudaSuccess)
	{
		(void) cudaGetLastError();
		pool.pinned_dev = NULL;
	}
	if (err == cudaSuccess)
		err = gpu_staging_init(&pool);
	if (err != cudaSuccess)
	{
		*status = gpu_fail(err, "creating the stream and pinned buffers", errbuf, errlen);
		return false;
	}
	pool.dev = NULL;
	pool.dev_cap = 0;
	pool_ready = true;
	return true;
}

GpuPool *
gpu_pool_get(size_t dev_bytes, SetopsGpuStatus *status, char *errbuf, size_t errlen)
{
	size_t		want = (dev_bytes + ARENA_ROUND - 1) / ARENA_ROUND * ARENA_ROUND;

	if (!pool_ready && !pool_init(status, errbuf, errlen))
		return NULL;
	if (pool.device != gpu_current_device())
	{
		snprintf(errbuf, errlen, "internal error: pool %d belongs to device %d, not %d",
				 pool_index, pool.device, gpu_current_device());
		*status = SETOPS_GPU_ERROR;
		return NULL;
	}
	if (dev_bytes == 0)
		return &pool;			/* the stream and pinned block only */
	if (want == 0)
		want = ARENA_ROUND;
	if (dev_bytes > pool.dev_cap ||
		(pool.dev_cap > 4 * ARENA_ROUND && want < pool.dev_cap / 4))
	{
		cudaError_t err;

		if (pool.dev)
		{
			cudaStreamSynchronize(pool.stream);
			cudaFree(pool.dev);
			pool.dev = NULL;
			pool.dev_cap = 0;
		}
		err = cudaMalloc(&pool.dev, want);
		if (err == cudaErrorMemoryAllocation && want > dev_bytes)
		{
			cudaGetLastError();
			want = GPU_ALIGN(dev_bytes);
			err = cudaMalloc(&pool.dev, want);
		}
		if (err != cudaSuccess)
		{
			pool.dev = NULL;
			*status = gpu_fail(err, "allocating device memory", errbuf, errlen);
			return NULL;
		}
		pool.dev_cap = want;
	}
	return &pool;
}

extern "C" int64_t
setops_gpu_pool_bytes(void)
{
	int64_t		bytes = 0;
	int			i;

	for (i = 0; i < GPU_MAX_POOLS; i++)
		if (pools_ready[i])
			bytes += (int64_t) pools[i].dev_cap;
	return bytes;
}
