/*
 * device_buffers.cu
 *	  Device buffers that outlive a call: the GPU service keeps stored
 *	  arrays in them (its device cache), written piece by piece from the
 *	  pinned transfer arena and checked for order once, on the device.
 *
 * Entries come from the device's stream-ordered pool (cudaMallocAsync on
 * the main pool's stream): a cache miss of many rows allocates a buffer a
 * row without a trip to the driver each (cudaMalloc took most of the
 * time of putting 100,000 rows), and the pool keeps no memory unused past
 * a synchronisation (its release threshold stays 0), so freed memory goes
 * back to the device (setops_devices() shows it free again).  Every
 * caller writes a new buffer on that same stream and waits for it before
 * any other stream reads it.
 */
#include <stdio.h>

#include "gpu_internal.h"

extern "C" SetopsGpuStatus
setops_gpu_buffer_alloc(size_t bytes, void **dev, char *errbuf, size_t errlen)
{
	cudaError_t err;

	SetopsGpuStatus status;
	GpuPool    *pool;

	*dev = NULL;
	if (!gpu_ensure_init(errbuf, errlen))
		return SETOPS_GPU_UNAVAILABLE;
	pool = gpu_pool_get(0, &status, errbuf, errlen);
	if (pool == NULL)
		return status;
	err = cudaMallocAsync(dev, bytes > 0 ? bytes : 1, pool->stream);
	if (err != cudaSuccess)
	{
		*dev = NULL;
		return gpu_fail(err, "allocating a device cache entry", errbuf, errlen);
	}
	return SETOPS_GPU_OK;
}

/* (ordered after everything queued on the main pool's stream; no other reads it by then) */
extern "C" void
setops_gpu_buffer_free(void *dev)
{
	char		errbuf[SETOPS_GPU_ERRLEN];
	SetopsGpuStatus status;
	GpuPool    *pool;

	if (dev == NULL)
		return;
	pool = gpu_pool_get(0, &status, errbuf, sizeof(errbuf));
	/* (no pool: freed at once, the device waited for) */
	if (pool == NULL ? cudaFree(dev) != cudaSuccess : cudaFreeAsync(dev, pool->stream) != cudaSuccess)
		gpu_recover();
}

extern "C" SetopsGpuStatus
setops_gpu_buffer_write_queued(void *dev, size_t offset, const void *host, size_t bytes,
							   char *errbuf, size_t errlen)
{
	SetopsGpuStatus status;
	GpuPool    *pool = gpu_pool_get(0, &status, errbuf, errlen);

	if (pool == NULL)
		return status;
	CHECK_CUDA(gpu_upload(pool, (char *) dev + offset, host, bytes), "writing a device cache entry");
	return SETOPS_GPU_OK;
}

extern "C" SetopsGpuStatus
setops_gpu_buffer_writes_wait(char *errbuf, size_t errlen)
{
	SetopsGpuStatus status;
	GpuPool    *pool = gpu_pool_get(0, &status, errbuf, errlen);

	if (pool == NULL)
		return status;
	CHECK_CUDA(cudaStreamSynchronize(pool->stream), "writing device cache entries");
	return SETOPS_GPU_OK;
}

extern "C" SetopsGpuStatus
setops_gpu_buffer_write(void *dev, size_t offset, const void *host, size_t bytes,
						char *errbuf, size_t errlen)
{
	SetopsGpuStatus status = setops_gpu_buffer_write_queued(dev, offset, host, bytes,
															errbuf, errlen);

	return status == SETOPS_GPU_OK ? setops_gpu_buffer_writes_wait(errbuf, errlen) : status;
}

extern "C" SetopsGpuStatus
setops_gpu_buffer_read(const void *dev, size_t offset, void *host, size_t bytes,
					   char *errbuf, size_t errlen)
{
	SetopsGpuStatus status;
	GpuPool    *pool = gpu_pool_get(0, &status, errbuf, errlen);

	if (pool == NULL)
		return status;
	CHECK_CUDA(gpu_download(pool, host, (const char *) dev + offset, bytes), "reading a device buffer");
	return SETOPS_GPU_OK;
}

/* The smallest i in [1, n) with keys[i] < keys[i - 1], into *first (n: none). */
template <typename Key>
__global__ void
first_descent_kernel(const Key *keys, long long n, unsigned long long *first)
{
	long long	i = (long long) blockIdx.x * blockDim.x + threadIdx.x + 1;
	long long	stride = (long long) gridDim.x * blockDim.x;

	for (; i < n; i += stride)
		if (keys[i] < keys[i - 1])
		{
			atomicMin(first, (unsigned long long) i);
			return;				/* later ones of this thread are larger */
		}
}

extern "C" SetopsGpuStatus
setops_gpu_keys_first_unsorted(SetopsKeyType key_type, const void *dev, int64_t n, int64_t *pos,
							   char *errbuf, size_t errlen)
{
	SetopsGpuStatus status;
	GpuPool    *pool = gpu_pool_get(0, &status, errbuf, errlen);
	unsigned long long *first_dev;
	unsigned long long *first;
	int			blocks;

	*pos = -1;
	if (pool == NULL)
		return status;
	if (n < 2)
		return SETOPS_GPU_OK;
	/* the answer comes back through the pinned block's tail */
	first = (unsigned long long *) ((char *) pool->pinned + GPU_PINNED_BYTES - 64);
	*first = (unsigned long long) n;
	CHECK_CUDA(cudaMallocAsync((void **) &first_dev, sizeof(*first_dev), pool->stream),
			   "allocating the order flag");
	CHECK_CUDA(cudaMemcpyAsync(first_dev, first, sizeof(*first), cudaMemcpyHostToDevice,
							   pool->stream), "setting the order flag");
	blocks = (int) ((n + 255) / 256 < 132 * 16 ? (n + 255) / 256 : 132 * 16);
	if (key_type == SETOPS_KEY_INT64)
		first_descent_kernel<int64_t><<<blocks, 256, 0, pool->stream>>>((const int64_t *) dev, n, first_dev);
	else
		first_descent_kernel<int32_t><<<blocks, 256, 0, pool->stream>>>((const int32_t *) dev, n, first_dev);
	CHECK_CUDA(cudaGetLastError(), "launching the order check");
	CHECK_CUDA(cudaMemcpyAsync(first, first_dev, sizeof(*first), cudaMemcpyDeviceToHost,
							   pool->stream), "reading the order flag");
	CHECK_CUDA(cudaFreeAsync(first_dev, pool->stream), "freeing the order flag");
	CHECK_CUDA(cudaStreamSynchronize(pool->stream), "checking the order");
	if (*first < (unsigned long long) n)
		*pos = (int64_t) *first;
	return SETOPS_GPU_OK;
}

/*
 * Copy bytes from a buffer on src_device to one on dst_device (this
 * thread's device, whose pool's stream carries the copy).
 */
extern "C" SetopsGpuStatus
setops_gpu_buffer_copy_peer(void *dst, int dst_device, const void *src, int src_device,
							size_t bytes, char *errbuf, size_t errlen)
{
	SetopsGpuStatus status;
	GpuPool    *pool;

	if (!gpu_ensure_init(errbuf, errlen))
		return SETOPS_GPU_UNAVAILABLE;
	/*
	 * On the destination's own stream, and waited for: the pools' streams
	 * do not wait for the legacy stream that cudaMemcpyPeer orders with.
	 */
	pool = gpu_pool_get(0, &status, errbuf, errlen);
	if (pool == NULL)
		return status;
	CHECK_CUDA(cudaMemcpyPeerAsync(dst, dst_device, src, src_device, bytes, pool->stream),
			   "copying a cached array between devices");
	CHECK_CUDA(cudaStreamSynchronize(pool->stream), "copying a cached array between devices");
	return SETOPS_GPU_OK;
}
