/*
 * device.cu
 *	  CUDA initialisation, device enumeration and error handling.
 *
 * Initialisation is lazy: the first call that needs a device does it, in
 * the backend that makes the call (never in the postmaster or _PG_init).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "gpu_internal.h"

SetopsGpuInterruptFn gpu_interrupt_fn = NULL;

static bool init_done = false;
static int	device_count = 0;
static char init_error[SETOPS_GPU_ERRLEN];
/* per device: bumped when a reset frees every allocation on it */
static uint64_t context_epoch[GPU_MAX_DEVICES];

/* CUDA's current device is per host thread: so is this copy of it */
static __thread int current_device = 0;

extern "C" uint64_t
setops_gpu_context_epoch(void)
{
	return context_epoch[current_device] + 1;
}

extern "C" uint64_t
setops_gpu_device_epoch(int index)
{
	return index >= 0 && index < GPU_MAX_DEVICES ? context_epoch[index] + 1 : 0;
}

int
gpu_current_device(void)
{
	return current_device;
}

cudaError_t
gpu_set_device(int device)
{
	cudaError_t err = cudaSetDevice(device);

	if (err == cudaSuccess)
		current_device = device;
	return err;
}

/*
 * Let kernels on device read memory of the other devices directly (over
 * NVLink or PCIe) where the platform allows; elsewhere copies go through
 * cudaMemcpyPeer.  At start each device enables its own way to the others
 * (once each, so that no call meets "already enabled": the sanitizers
 * report it); after a reset, both ways of the reset device (the others'
 * way to it went with its context).
 */
static void
enable_peers(int device, bool both_ways)
{
	int			other;

	for (other = 0; other < device_count; other++)
	{
		int			can = 0;

		if (other == device)
			continue;
		if (cudaDeviceCanAccessPeer(&can, device, other) == cudaSuccess && can)
		{
			cudaSetDevice(device);
			cudaDeviceEnablePeerAccess(other, 0);
			if (both_ways)
			{
				cudaSetDevice(other);
				cudaDeviceEnablePeerAccess(device, 0);
			}
		}
	}
	cudaGetLastError();			/* "already enabled" is no error here */
	cudaSetDevice(current_device);
}

extern "C" SetopsGpuStatus
setops_gpu_use_device(int index, char *errbuf, size_t errlen)
{
	return setops_gpu_use_stream(index, 0, errbuf, errlen);
}

extern "C" SetopsGpuStatus
setops_gpu_use_stream(int index, int stream, char *errbuf, size_t errlen)
{
	cudaError_t err;

	if (!gpu_ensure_init(errbuf, errlen))
		return SETOPS_GPU_UNAVAILABLE;
	if (index < 0 || index >= device_count)
	{
		snprintf(errbuf, errlen, "no device %d", index);
		return SETOPS_GPU_UNAVAILABLE;
	}
	err = gpu_set_device(index);
	if (err != cudaSuccess)
		return gpu_status_from(err, "selecting the device", errbuf, errlen);
	if (stream <= 0 || stream >= GPU_MAX_STREAMS)
		gpu_pool_select(index);
	else
		gpu_pool_select(GPU_STREAM_POOL + index * (GPU_MAX_STREAMS - 1) + stream - 1);
	return SETOPS_GPU_OK;
}

extern "C" void
setops_gpu_set_interrupt_callback(SetopsGpuInterruptFn fn)
{
	gpu_interrupt_fn = fn;
}

/* the contexts' scheduling flag (cudaSetDeviceFlags, before they exist) */
static unsigned int schedule_flag = cudaDeviceScheduleAuto;

extern "C" void
setops_gpu_set_wait(SetopsGpuWait wait)
{
	schedule_flag = wait == SETOPS_GPU_WAIT_BLOCK ? cudaDeviceScheduleBlockingSync :
		wait == SETOPS_GPU_WAIT_YIELD ? cudaDeviceScheduleYield :
		wait == SETOPS_GPU_WAIT_SPIN ? cudaDeviceScheduleSpin : cudaDeviceScheduleAuto;
}

/*
 * CUDA starts helper threads while it creates a context; threads inherit
 * the creating thread's signal mask.  With every signal blocked around
 * initialisation, PostgreSQL's signals (cancel, termination, latch
 * wake-ups) always reach the backend's own thread.
 */
bool
gpu_ensure_init(char *errbuf, size_t errlen)
{
	if (!init_done)
	{
		sigset_t	all,
					old;
		cudaError_t err;

		init_done = true;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		err = cudaGetDeviceCount(&device_count);
		if (device_count > GPU_MAX_DEVICES)
			device_count = GPU_MAX_DEVICES;
		/* a context on every device now, device 0 current */
		for (int d = device_count - 1; err == cudaSuccess && d >= 0; d--)
		{
			err = cudaSetDevice(d);
			if (err == cudaSuccess)
				err = cudaSetDeviceFlags(schedule_flag);
			if (err == cudaSuccess)
				err = cudaFree(0);
		}
		if (err == cudaSuccess)
		{
			current_device = 0;
			for (int d = 0; d < device_count; d++)
				enable_peers(d, false);
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);

		if (err != cudaSuccess)
		{
			snprintf(init_error, sizeof(init_error), "CUDA initialisation failed: %s (%s)",
					 cudaGetErrorString(err), cudaGetErrorName(err));
			device_count = 0;
			cudaGetLastError();
		}
		else if (device_count == 0)
			snprintf(init_error, sizeof(init_error), "no CUDA device found");
	}
	if (device_count == 0)
	{
		snprintf(errbuf, errlen, "%s", init_error);
		return false;
	}
	return true;
}

extern "C" int
setops_gpu_device_count(char *errbuf, size_t errlen)
{
	return gpu_ensure_init(errbuf, errlen) ? device_count : 0;
}

extern "C" SetopsGpuStatus
setops_gpu_device_info(int index, SetopsGpuDeviceInfo *info, char *errbuf, size_t errlen)
{
	cudaDeviceProp prop;
	cudaError_t err;
	size_t		free_bytes = 0,
				total_bytes = 0;
	int			current = 0;

	if (!gpu_ensure_init(errbuf, errlen))
		return SETOPS_GPU_UNAVAILABLE;
	if (index < 0 || index >= device_count)
	{
		snprintf(errbuf, errlen, "no device %d", index);
		return SETOPS_GPU_UNAVAILABLE;
	}
	err = cudaGetDeviceProperties(&prop, index);
	if (err != cudaSuccess)
		return gpu_status_from(err, "cudaGetDeviceProperties", errbuf, errlen);
	cudaGetDevice(&current);
	err = cudaSetDevice(index);
	if (err == cudaSuccess)
		err = cudaMemGetInfo(&free_bytes, &total_bytes);
	cudaSetDevice(current);
	if (err != cudaSuccess)
		return gpu_status_from(err, "cudaMemGetInfo", errbuf, errlen);

	memset(info, 0, sizeof(*info));
	info->index = index;
	snprintf(info->name, sizeof(info->name), "%s", prop.name);
	info->total_memory = (int64_t) total_bytes;
	info->free_memory = (int64_t) free_bytes;
	info->multiprocessors = prop.multiProcessorCount;
	info->cc_major = prop.major;
	info->cc_minor = prop.minor;
	return SETOPS_GPU_OK;
}

/*
 * A failed call may leave a sticky error (a kernel fault, say): the context
 * is then unusable until the device is reset.  Non-sticky errors (out of
 * memory, bad arguments) clear with cudaGetLastError; a sticky one still
 * shows in cudaDeviceSynchronize, and then the device is reset and the
 * context recreated (signals blocked, as at initialisation).  The pools
 * on that device died with the old context.
 */
void
gpu_recover(void)
{
	cudaError_t sticky;

	cudaGetLastError();
	sticky = cudaDeviceSynchronize();
	if (sticky != cudaSuccess)
	{
		sigset_t	all,
					old;
		cudaError_t err;

		gpu_pool_forget();
		context_epoch[current_device]++;
		gpu_forget_registered();
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		cudaDeviceReset();
		err = cudaSetDevice(current_device);
		if (err == cudaSuccess)
			err = cudaSetDeviceFlags(schedule_flag);
		if (err == cudaSuccess)
			err = cudaFree(0);
		if (err == cudaSuccess)
			enable_peers(current_device, true);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		cudaGetLastError();

		/*
		 * Some platforms (seen on the lent H100/H200 machines) refuse a new
		 * context in a process whose context faulted, until it exits.  Then
		 * this process stops using the GPU: auto answers on the CPU, gpu
		 * mode reports why.
		 */
		if (err != cudaSuccess)
		{
			device_count = 0;
			snprintf(init_error, sizeof(init_error),
					 "the GPU context was lost after a device fault (%s) and the driver "
					 "refuses a new one in this process (%s); a new process gets a new one",
					 cudaGetErrorName(sticky), cudaGetErrorName(err));
		}
	}
}

SetopsGpuStatus
gpu_status_from(cudaError_t err, const char *what, char *errbuf, size_t errlen)
{
	snprintf(errbuf, errlen, "%s: %s (%s)", what, cudaGetErrorString(err),
			 cudaGetErrorName(err));
	if (err == cudaErrorMemoryAllocation)
		return SETOPS_GPU_OUT_OF_MEMORY;
	return SETOPS_GPU_ERROR;
}

SetopsGpuStatus
gpu_fail(cudaError_t err, const char *what, char *errbuf, size_t errlen)
{
	SetopsGpuStatus status = gpu_status_from(err, what, errbuf, errlen);

	gpu_recover();
	return status;
}
