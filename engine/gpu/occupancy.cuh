/*
 * occupancy.cuh
 *	  How many blocks of a kernel stay resident at once on the current
 *	  device, and its multiprocessors: asked once a device, not at every
 *	  launch.  Under load the service launches tens of thousands of times
 *	  a second, and the occupancy query and cudaFuncSetAttribute each cost
 *	  the launching thread microseconds.
 */
#ifndef SETOPS_GPU_OCCUPANCY_CUH
#define SETOPS_GPU_OCCUPANCY_CUH

#include <stdint.h>

#include <atomic>

#include "gpu_internal.h"

namespace setops
{

/* One kernel instance's answer per device: a static of its launcher. */
struct ResidentCache
{
	std::atomic<int> blocks[GPU_MAX_DEVICES];
	/* the context it was asked in: a reset drops the function attribute set then */
	std::atomic<uint64_t> epoch[GPU_MAX_DEVICES];
};

/* The current device's multiprocessors (asked once a device). */
static inline cudaError_t
device_sms(int *sms)
{
	static std::atomic<int> known[GPU_MAX_DEVICES];
	int			device = gpu_current_device();
	cudaError_t err;

	*sms = known[device].load(std::memory_order_relaxed);
	if (*sms > 0)
		return cudaSuccess;
	err = cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, device);
	if (err == cudaSuccess)
		known[device].store(*sms, std::memory_order_relaxed);
	return err;
}

/*
 * The blocks of kernel, block threads and smem bytes of dynamic shared
 * memory each, resident at once on the current device.  Dynamic shared
 * memory is allowed first (a function attribute of the context: needed
 * beyond 48 KB of static and dynamic together, asked for whenever there is
 * any, as it costs nothing once cached).  Threads that ask at once each
 * ask the runtime; all get the same answer.
 */
template <typename Kernel>
static cudaError_t
resident_blocks(Kernel kernel, int block, size_t smem, ResidentCache *cache, int *blocks)
{
	int			device = gpu_current_device(),
				per_sm = 0,
				sms = 0;
	uint64_t	epoch = setops_gpu_context_epoch();
	cudaError_t err = cudaSuccess;

	if (cache->epoch[device].load(std::memory_order_acquire) == epoch)
	{
		*blocks = cache->blocks[device].load(std::memory_order_relaxed);
		if (*blocks > 0)
			return cudaSuccess;
	}
	if (smem > 0)
		err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem);
	if (err == cudaSuccess)
		err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, smem);
	if (err == cudaSuccess)
		err = device_sms(&sms);
	if (err != cudaSuccess)
		return err;
	*blocks = per_sm * sms;
	cache->blocks[device].store(*blocks, std::memory_order_relaxed);
	cache->epoch[device].store(epoch, std::memory_order_release);
	return cudaSuccess;
}

/*
 * After a launch that failed: its answer is asked again at the next one.
 * (Two threads recovering from one fault at once can leave an answer
 * cached in a context that a second reset then dropped, with the
 * attribute set in it; the launch fails, and the next one sets it again.)
 */
static inline void
resident_forget(ResidentCache *cache)
{
	cache->blocks[gpu_current_device()].store(0, std::memory_order_relaxed);
}

}								/* namespace setops */

#endif							/* SETOPS_GPU_OCCUPANCY_CUH */
