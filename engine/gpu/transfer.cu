/*
 * transfer.cu
 *	  Host <-> device copies through two pinned staging buffers.
 *
 * PostgreSQL's arrays live in pageable memory, which the DMA engine cannot
 * read; the driver would stage it itself, synchronously, measured on an
 * H200 host at about 8 GB/s up and 1.5 GB/s down.  Here the CPU copies one
 * chunk into a pinned buffer while the DMA engine moves the previous one,
 * so a copy costs about one CPU pass over the data: the one pass over each
 * input on its way to the GPU.  Memory registered as pinned (the GPU
 * service's transfer arena, where backends already wrote the inputs) is
 * copied directly.
 */
#include <string.h>

#include "gpu_internal.h"

#define STAGE_BYTES ((size_t) 8 << 20)

/*
 * Host memory registered as pinned (the GPU service's shared transfer
 * arena): copies from and to it skip the staging buffers, the DMA engine
 * reads and writes it directly.  Forgotten after a device reset.
 */
static const char *registered_base = NULL;
static size_t registered_bytes = 0;

extern "C" SetopsGpuStatus
setops_gpu_register_host(void *host, size_t bytes, char *errbuf, size_t errlen)
{
	cudaError_t err;

	if (!gpu_ensure_init(errbuf, errlen))
		return SETOPS_GPU_UNAVAILABLE;
	err = cudaHostRegister(host, bytes, cudaHostRegisterPortable);
	if (err != cudaSuccess)
	{
		SetopsGpuStatus st = gpu_status_from(err, "registering the transfer memory",
											 errbuf, errlen);

		cudaGetLastError();
		return st;
	}
	registered_base = (const char *) host;
	registered_bytes = bytes;
	return SETOPS_GPU_OK;
}

void
gpu_forget_registered(void)
{
	registered_base = NULL;
	registered_bytes = 0;
}

static bool
is_registered(const void *host, size_t bytes)
{
	const char *p = (const char *) host;

	return registered_base != NULL && p >= registered_base &&
		bytes <= registered_bytes && (size_t) (p - registered_base) <= registered_bytes - bytes;
}

cudaError_t
gpu_staging_init(GpuPool *pool)
{
	cudaError_t err = cudaSuccess;
	int			i;

	for (i = 0; i < 2 && err == cudaSuccess; i++)
	{
		err = cudaHostAlloc(&pool->stage[i], STAGE_BYTES, cudaHostAllocDefault);
		if (err == cudaSuccess)
			err = cudaEventCreateWithFlags(&pool->stage_done[i], cudaEventDisableTiming);
	}
	return err;
}

/* Queue host -> device; returns once the host memory may be reused. */
cudaError_t
gpu_upload(GpuPool *pool, void *dev, const void *host, size_t bytes)
{
	size_t		off;
	int			i = 0;
	cudaError_t err = cudaSuccess;

	/* pinned already: the caller keeps it unchanged until the call ends */
	if (is_registered(host, bytes))
		return bytes ? cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, pool->stream) :
			cudaSuccess;
	for (off = 0; off < bytes && err == cudaSuccess; off += STAGE_BYTES, i ^= 1)
	{
		size_t		n = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;

		/* buffer i is free once its previous copy has gone out */
		err = cudaEventSynchronize(pool->stage_done[i]);
		if (err != cudaSuccess)
			break;
		memcpy(pool->stage[i], (const char *) host + off, n);
		err = cudaMemcpyAsync((char *) dev + off, pool->stage[i], n,
							  cudaMemcpyHostToDevice, pool->stream);
		if (err == cudaSuccess)
			err = cudaEventRecord(pool->stage_done[i], pool->stream);
	}
	return err;
}

/* Device -> host after what is queued on the stream; returns when done. */
cudaError_t
gpu_download(GpuPool *pool, void *host, const void *dev, size_t bytes)
{
	size_t		off,
				prev_off = 0,
				prev_n = 0;
	int			i = 0;
	cudaError_t err = cudaSuccess;

	if (is_registered(host, bytes))
	{
		err = bytes ? cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, pool->stream) :
			cudaSuccess;
		return err == cudaSuccess ? cudaStreamSynchronize(pool->stream) : err;
	}
	for (off = 0; off < bytes && err == cudaSuccess; off += STAGE_BYTES, i ^= 1)
	{
		size_t		n = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;

		err = cudaMemcpyAsync(pool->stage[i], (const char *) dev + off, n,
							  cudaMemcpyDeviceToHost, pool->stream);
		if (err == cudaSuccess)
			err = cudaEventRecord(pool->stage_done[i], pool->stream);
		/* while chunk i comes over, the previous one goes to its place */
		if (err == cudaSuccess && prev_n > 0)
		{
			err = cudaEventSynchronize(pool->stage_done[i ^ 1]);
			if (err == cudaSuccess)
				memcpy((char *) host + prev_off, pool->stage[i ^ 1], prev_n);
		}
		prev_off = off;
		prev_n = n;
	}
	if (err == cudaSuccess && prev_n > 0)
	{
		err = cudaEventSynchronize(pool->stage_done[i ^ 1]);
		if (err == cudaSuccess)
			memcpy((char *) host + prev_off, pool->stage[i ^ 1], prev_n);
	}
	return err;
}
