/*
 * gpu_stub.c
 *	  The GPU interface in a build without CUDA (make WITH_CUDA=no, or no
 *	  nvcc found): no devices, every call answers UNAVAILABLE.
 */
#include <stdio.h>

#include "setops_gpu.h"

static const char *no_cuda = "setops was built without CUDA (WITH_CUDA=no or no nvcc found)";

int
setops_gpu_device_count(char *errbuf, size_t errlen)
{
	snprintf(errbuf, errlen, "%s", no_cuda);
	return 0;
}

SetopsGpuStatus
setops_gpu_device_info(int index, SetopsGpuDeviceInfo *info, char *errbuf, size_t errlen)
{
	(void) index;
	(void) info;
	snprintf(errbuf, errlen, "%s", no_cuda);
	return SETOPS_GPU_UNAVAILABLE;
}

void
setops_gpu_set_wait(SetopsGpuWait wait)
{
	(void) wait;
}

void
setops_gpu_set_interrupt_callback(SetopsGpuInterruptFn fn)
{
	(void) fn;
}

SetopsGpuStatus
setops_gpu_setop(SetopsGpuSetopArgs *args, char *errbuf, size_t errlen)
{
	(void) args;
	snprintf(errbuf, errlen, "%s", no_cuda);
	return SETOPS_GPU_UNAVAILABLE;
}

void
setops_gpu_count_many(SetopsGpuSetopArgs **args, int n, SetopsGpuStatus *statuses,
					  char (*errbufs)[SETOPS_GPU_ERRLEN])
{
	int			i;

	(void) args;
	for (i = 0; i < n; i++)
	{
		statuses[i] = SETOPS_GPU_UNAVAILABLE;
		snprintf(errbufs[i], SETOPS_GPU_ERRLEN, "%s", no_cuda);
	}
}

SetopsGpuStatus
setops_gpu_count_many_start(SetopsGpuSetopArgs **args, int n, char *errbuf, size_t errlen)
{
	(void) args;
	(void) n;
	snprintf(errbuf, errlen, "%s", no_cuda);
	return SETOPS_GPU_UNAVAILABLE;
}

int
setops_gpu_stream_done(char *errbuf, size_t errlen)
{
	snprintf(errbuf, errlen, "%s", no_cuda);
	return -1;
}

void
setops_gpu_stream_wait(void)
{
}

void
setops_gpu_count_many_finish(SetopsGpuSetopArgs **args, int n, SetopsGpuStatus *statuses,
							 char (*errbufs)[SETOPS_GPU_ERRLEN])
{
	setops_gpu_count_many(args, n, statuses, errbufs);
}

SetopsGpuStatus
setops_gpu_sort(SetopsKeyType key_type, void *keys, int64_t *n, int distinct,
				char *errbuf, size_t errlen)
{
	(void) key_type;
	(void) keys;
	(void) n;
	(void) distinct;
	snprintf(errbuf, errlen, "%s", no_cuda);
	return SETOPS_GPU_UNAVAILABLE;
}

int64_t
setops_gpu_pool_bytes(void)
{
	return 0;
}

int
setops_gpu_count_tile_keys(SetopsKeyType key_type)
{
	(void) key_type;
	return 0;
}

SetopsGpuStatus
setops_gpu_register_host(void *host, size_t bytes, char *errbuf, size_t errlen)
{
	(void) host;
	(void) bytes;
	snprintf(errbuf, errlen, "%s", no_cuda);
	return SETOPS_GPU_UNAVAILABLE;
}

SetopsGpuStatus
setops_gpu_buffer_alloc(size_t bytes, void **dev, char *errbuf, size_t errlen)
{
	(void) bytes;
	*dev = NULL;
	snprintf(errbuf, errlen, "%s", no_cuda);
	return SETOPS_GPU_UNAVAILABLE;
}

void
setops_gpu_buffer_free(void *dev)
{
	(void) dev;
}

SetopsGpuStatus
setops_gpu_buffer_write(void *dev, size_t offset, const void *host, size_t bytes,
						char *errbuf, size_t errlen)
{
	(void) dev;
	(void) offset;
	(void) host;
	(void) bytes;
	snprintf(errbuf, errlen, "%s", no_cuda);
	return SETOPS_GPU_UNAVAILABLE;
}

SetopsGpuStatus
setops_gpu_buffer_write_queued(void *dev, size_t offset, const void *host, size_t bytes,
							   char *errbuf, size_t errlen)
{
	return setops_gpu_buffer_write(dev, offset, host, bytes, errbuf, errlen);
}

SetopsGpuStatus
setops_gpu_buffer_writes_wait(char *errbuf, size_t errlen)
{
	snprintf(errbuf, errlen, "%s", no_cuda);
	return SETOPS_GPU_UNAVAILABLE;
}

uint64_t
setops_gpu_context_epoch(void)
{
	return 0;
}

uint64_t
setops_gpu_device_epoch(int index)
{
	(void) index;
	return 0;
}

SetopsGpuStatus
setops_gpu_keys_first_unsorted(SetopsKeyType key_type, const void *dev, int64_t n,
							   int64_t *pos, char *errbuf, size_t errlen)
{
	(void) key_type;
	(void) dev;
	(void) n;
	*pos = -1;
	snprintf(errbuf, errlen, "%s", no_cuda);
	return SETOPS_GPU_UNAVAILABLE;
}

SetopsGpuStatus
setops_gpu_use_device(int index, char *errbuf, size_t errlen)
{
	(void) index;
	snprintf(errbuf, errlen, "%s", no_cuda);
	return SETOPS_GPU_UNAVAILABLE;
}

SetopsGpuStatus
setops_gpu_use_stream(int index, int stream, char *errbuf, size_t errlen)
{
	(void) stream;
	return setops_gpu_use_device(index, errbuf, errlen);
}

SetopsGpuStatus
setops_gpu_setop_devices(SetopsGpuSetopArgs *args, int nparts, const int *devices,
						 const double *weights, char *errbuf, size_t errlen)
{
	(void) nparts;
	(void) devices;
	(void) weights;
	return setops_gpu_setop(args, errbuf, errlen);
}

SetopsGpuStatus
setops_gpu_buffer_copy_peer(void *dst, int dst_device, const void *src, int src_device,
							size_t bytes, char *errbuf, size_t errlen)
{
	(void) dst;
	(void) dst_device;
	(void) src;
	(void) src_device;
	(void) bytes;
	snprintf(errbuf, errlen, "%s", no_cuda);
	return SETOPS_GPU_UNAVAILABLE;
}

SetopsGpuStatus
setops_gpu_buffer_read(const void *dev, size_t offset, void *host, size_t bytes,
					   char *errbuf, size_t errlen)
{
	(void) dev;
	(void) offset;
	(void) host;
	(void) bytes;
	snprintf(errbuf, errlen, "%s", no_cuda);
	return SETOPS_GPU_UNAVAILABLE;
}

SetopsGpuStatus
setops_gpu_setop_batch(SetopsGpuBatchArgs *args, char *errbuf, size_t errlen)
{
	(void) args;
	snprintf(errbuf, errlen, "%s", no_cuda);
	return SETOPS_GPU_UNAVAILABLE;
}

SetopsGpuStatus
setops_gpu_count_batch(SetopsGpuBatchArgs *args, int count_mode, char *errbuf, size_t errlen)
{
	(void) args;
	(void) count_mode;
	snprintf(errbuf, errlen, "%s", no_cuda);
	return SETOPS_GPU_UNAVAILABLE;
}

SetopsGpuStatus
setops_gpu_reduce_device(SetopsOp op, SetopsKeyType key_type, void *cur, void *spare,
						 const int64_t *lengths, int64_t nruns, int *result_in_spare,
						 int64_t *n, char *errbuf, size_t errlen)
{
	(void) op;
	(void) key_type;
	(void) cur;
	(void) spare;
	(void) lengths;
	(void) nruns;
	*result_in_spare = 0;
	*n = 0;
	snprintf(errbuf, errlen, "%s", no_cuda);
	return SETOPS_GPU_UNAVAILABLE;
}
