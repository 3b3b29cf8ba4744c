/*
 * device_funcs.c
 *	  setops_devices(): the GPUs this backend can use.
 *
 * Zero rows without a GPU (or in a build without CUDA), never an error.
 * Calling it initialises CUDA in this backend.
 */
#include "postgres.h"

#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "setops.h"
#include "../gpu/setops_gpu.h"

PG_FUNCTION_INFO_V1(setops_devices);

Datum
setops_devices(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char		errbuf[SETOPS_GPU_ERRLEN];
	int			count,
				i;

	InitMaterializedSRF(fcinfo, 0);
	count = setops_gpu_device_count(errbuf, sizeof(errbuf));
	if (count == 0)
		ereport(DEBUG1, (errmsg("setops_devices: no GPU: %s", errbuf)));
	for (i = 0; i < count; i++)
	{
		SetopsGpuDeviceInfo info;
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};

		if (setops_gpu_device_info(i, &info, errbuf, sizeof(errbuf)) != SETOPS_GPU_OK)
		{
			ereport(DEBUG1, (errmsg("setops_devices: device %d skipped: %s", i, errbuf)));
			continue;
		}
		values[0] = Int32GetDatum(info.index);
		values[1] = CStringGetTextDatum(info.name);
		values[2] = Int64GetDatum(info.total_memory);
		values[3] = Int64GetDatum(info.free_memory);
		values[4] = Int32GetDatum(info.multiprocessors);
		values[5] = CStringGetTextDatum(psprintf("%d.%d", info.cc_major, info.cc_minor));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
