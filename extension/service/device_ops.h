/*
 * device_ops.h
 *	  The operations a device offers the GPU service's worker: devices and
 *	  their figures, buffers on them, and the operations on keys there.
 *
 * Two devices stand behind the same table: the GPUs (gpu_device.c, the
 * engine/gpu interface as it is) and the CPU engine standing in for one
 * (emulated_device.c, setops.service_emulate on a machine without a GPU:
 * its "device memory" is the worker's own).  The worker picks one at start
 * and never asks again which it has: the transport (slots, chunks, waits,
 * cancels, the cache, staged reductions) is the same code either way, and
 * so tested on machines without a GPU.
 *
 * Signatures are engine/gpu/setops_gpu.h's: statuses, never ERRORs.
 */
#ifndef SETOPS_SERVICE_DEVICE_OPS_H
#define SETOPS_SERVICE_DEVICE_OPS_H

#include <stdbool.h>

#include "engine/gpu/setops_gpu.h"

typedef struct DeviceOps
{
	const char *name;			/* for the worker's LOG lines */
	/*
	 * Buffers are the worker's memory: no device memory to share out (the
	 * cache's default size is then fixed, not a share of it).
	 */
	bool		host_memory;

	/* devices */
	int			(*count) (char *errbuf, size_t errlen);
	SetopsGpuStatus (*info) (int index, SetopsGpuDeviceInfo *info, char *errbuf, size_t errlen);
	SetopsGpuStatus (*use) (int index, char *errbuf, size_t errlen);
	/* the same, on a stream of its own (an executor thread's) */
	SetopsGpuStatus (*use_stream) (int index, int stream, char *errbuf, size_t errlen);
	uint64_t	(*epoch) (void);	/* changes when buffers were lost (a reset) */
	uint64_t	(*device_epoch) (int index);	/* the same, of a device not made current */
	SetopsGpuStatus (*register_host) (void *host, size_t bytes, char *errbuf, size_t errlen);
	void		(*set_interrupt_callback) (SetopsGpuInterruptFn fn);

	/* buffers on the current device */
	SetopsGpuStatus (*buffer_alloc) (size_t bytes, void **p, char *errbuf, size_t errlen);
	void		(*buffer_free) (void *p);
	SetopsGpuStatus (*buffer_read) (const void *p, size_t offset, void *host, size_t bytes,
									char *errbuf, size_t errlen);
	SetopsGpuStatus (*buffer_write) (void *p, size_t offset, const void *host, size_t bytes,
									 char *errbuf, size_t errlen);
	/* the same queued, and the wait for every write queued (setops_gpu.h) */
	SetopsGpuStatus (*buffer_write_queued) (void *p, size_t offset, const void *host,
											size_t bytes, char *errbuf, size_t errlen);
	SetopsGpuStatus (*buffer_writes_wait) (char *errbuf, size_t errlen);
	SetopsGpuStatus (*buffer_copy_peer) (void *dst, int dst_device, const void *src,
										 int src_device, size_t bytes,
										 char *errbuf, size_t errlen);
	SetopsGpuStatus (*keys_first_unsorted) (SetopsKeyType key_type, const void *p, int64_t n,
											int64_t *pos, char *errbuf, size_t errlen);

	/* operations */
	SetopsGpuStatus (*setop) (SetopsGpuSetopArgs *args, char *errbuf, size_t errlen);
	void		(*count_many) (SetopsGpuSetopArgs **args, int n, SetopsGpuStatus *statuses,
							   char (*errbufs)[SETOPS_GPU_ERRLEN]);
	/* the same in steps: started, then polled, then answered (setops_gpu.h) */
	SetopsGpuStatus (*count_start) (SetopsGpuSetopArgs **args, int n, char *errbuf, size_t errlen);
	int			(*stream_done) (char *errbuf, size_t errlen);
	void		(*stream_wait) (void);
	void		(*count_finish) (SetopsGpuSetopArgs **args, int n, SetopsGpuStatus *statuses,
								 char (*errbufs)[SETOPS_GPU_ERRLEN]);
	SetopsGpuStatus (*setop_devices) (SetopsGpuSetopArgs *args, int nparts, const int *devices,
									  const double *weights, char *errbuf, size_t errlen);
	SetopsGpuStatus (*setop_batch) (SetopsGpuBatchArgs *args, char *errbuf, size_t errlen);
	SetopsGpuStatus (*count_batch) (SetopsGpuBatchArgs *args, int count_mode, char *errbuf,
									size_t errlen);
	SetopsGpuStatus (*reduce) (SetopsOp op, SetopsKeyType key_type, void *cur, void *spare,
							   const int64_t *lengths, int64_t nruns, int *result_in_spare,
							   int64_t *n, char *errbuf, size_t errlen);
	SetopsGpuStatus (*sort) (SetopsKeyType key_type, void *keys, int64_t *n, int distinct,
							 char *errbuf, size_t errlen);
} DeviceOps;

extern const DeviceOps setops_gpu_device;		/* gpu_device.c */
extern const DeviceOps setops_emulated_device;	/* emulated_device.c */

#endif							/* SETOPS_SERVICE_DEVICE_OPS_H */
