/*
 * pending.cu
 *	  Placeholder for the GPU set operations until the CUDA backend lands:
 *	  every call answers UNAVAILABLE, so auto runs on the CPU engine and
 *	  gpu mode reports it.  (Removed by the CUDA backend.)
 */
#include <stdio.h>

#include "gpu_internal.h"

extern "C" SetopsGpuStatus
setops_gpu_setop(SetopsGpuSetopArgs *args, char *errbuf, size_t errlen)
{
	(void) args;
	snprintf(errbuf, errlen, "GPU set operations are not built yet");
	return SETOPS_GPU_UNAVAILABLE;
}

extern "C" SetopsGpuStatus
setops_gpu_sort(SetopsKeyType key_type, void *keys, int64_t *n, int distinct,
				char *errbuf, size_t errlen)
{
	(void) key_type;
	(void) keys;
	(void) n;
	(void) distinct;
	snprintf(errbuf, errlen, "GPU sort is not built yet");
	return SETOPS_GPU_UNAVAILABLE;
}

extern "C" void
setops_gpu_release_pools(void)
{
}

extern "C" int64_t
setops_gpu_pool_bytes(void)
{
	return 0;
}
