/*
 * dependent_launch.cuh
 *	  A kernel that depends on the one before it in its stream, launched so
 *	  that it starts while that one drains (programmatic dependent launch,
 *	  sm_90): its blocks are resident and past their set-up when the
 *	  partition they need is written, instead of waiting for the launch gap
 *	  after it.  The dependent waits with grid_wait_previous() before it
 *	  reads anything the previous kernel writes.
 *
 * Before sm_90 the launch is an ordinary one and the wait a no-op.
 */
#ifndef SETOPS_DEPENDENT_LAUNCH_CUH
#define SETOPS_DEPENDENT_LAUNCH_CUH

#include <cuda_runtime.h>

#include "gpu_internal.h"

namespace setops
{

/* In the dependent: everything the previous kernel wrote is visible after. */
__device__ __forceinline__ void
grid_wait_previous(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

/* In the previous kernel: its dependent may start launching now. */
__device__ __forceinline__ void
grid_release_next(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

/* kernel<<<grid, block, smem, stream>>>(args...), overlapping the kernel
 * before it where the device can. */
template <typename... Params, typename... Args>
static cudaError_t
launch_dependent(void (*kernel)(Params...), int grid, int block, size_t smem,
				 cudaStream_t stream, Args... args)
{
	cudaLaunchConfig_t config = {};
	cudaLaunchAttribute attr[1];
	int			major = 0;
	cudaError_t err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor,
											 gpu_current_device());

	if (err != cudaSuccess)
		return err;
	config.gridDim = dim3(grid);
	config.blockDim = dim3(block);
	config.dynamicSmemBytes = smem;
	config.stream = stream;
	if (major >= 9)
	{
		attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
		attr[0].val.programmaticStreamSerializationAllowed = 1;
		config.attrs = attr;
		config.numAttrs = 1;
	}
	return cudaLaunchKernelEx(&config, kernel, args...);
}

}								/* namespace setops */

#endif							/* SETOPS_DEPENDENT_LAUNCH_CUH */
