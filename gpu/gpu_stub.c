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

void
setops_gpu_debug_inject_fault(void)
{
}

int64_t
setops_gpu_pool_bytes(void)
{
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
