/*
 * devices.c
 *	  The devices operations may run on, as setops_devices() and
 *	  setops_cache_stats() show them: the GPU service's, or none without
 *	  it.  The SQL functions ask here, not the service, so that only exec/
 *	  speaks to it.
 */
#include "postgres.h"

#include "setops.h"
#include "exec/exec.h"
#include "service/client.h"

/* Ask the service for fresh figures (free memory) before they are read. */
void
setops_devices_refresh(void)
{
	setops_service_refresh_devices();
}

/* How many devices; 0 with why in errbuf. */
int
setops_devices_count(char *errbuf, size_t errlen)
{
	return setops_service_device_count(errbuf, errlen);
}

SetopsGpuStatus
setops_devices_info(int index, SetopsGpuDeviceInfo *info, char *errbuf, size_t errlen)
{
	return setops_service_device_info(index, info, errbuf, errlen);
}

/* Each device cache's figures (stats: SETOPS_MAX_DEVICES); how many. */
int
setops_devices_cache_stats(SetopsCacheStats *stats)
{
	return setops_service_cache_stats(stats);
}

/* For the tests: faults the emulated service's device injects (setops_service_inject_faults). */
int
setops_devices_inject_faults(int device, int failures, const char *kind)
{
	return setops_service_inject_faults(device, failures, kind);
}

/* Each device's share of the GPU service's work (stats: SETOPS_MAX_DEVICES); how many. */
int
setops_devices_service_stats(SetopsServiceStats *stats)
{
	return setops_service_load_stats(stats);
}
