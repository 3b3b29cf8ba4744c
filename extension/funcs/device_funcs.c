/*
 * device_funcs.c
 *	  setops_devices(): the GPUs this backend can use.
 *
 * The devices of the cluster's GPU service, with their free memory now.
 * Zero rows without a GPU, with a NOTICE saying why (no preload, no device,
 * a build without CUDA), never an error.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "setops.h"
#include "test_hooks.h"
#include "args/args.h"
#include "exec/exec.h"

PG_FUNCTION_INFO_V1(setops_devices);
PG_FUNCTION_INFO_V1(setops_last_timing);
PG_FUNCTION_INFO_V1(setops_cache_stats);
PG_FUNCTION_INFO_V1(setops_service_stats);
PG_FUNCTION_INFO_V1(setops_auto_estimates);

Datum
setops_devices(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char		errbuf[SETOPS_GPU_ERRLEN];
	int			count,
				i;

	InitMaterializedSRF(fcinfo, 0);
	setops_devices_refresh();
	count = setops_devices_count(errbuf, sizeof(errbuf));
	if (count == 0)
		ereport(NOTICE, (errmsg("setops_devices: no GPU is available: %s", errbuf)));
	for (i = 0; i < count; i++)
	{
		SetopsGpuDeviceInfo info;
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};

		if (setops_devices_info(i, &info, errbuf, sizeof(errbuf)) != SETOPS_GPU_OK)
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

/*
 * setops_last_timing(): where the last two-argument set operation of this
 * backend (or the final reduction of an aggregate over many rows) spent
 * its time, in milliseconds.  For benchmarks: read is
 * detoasting and reading the arguments; upload, kernel and download are the
 * GPU's (zero on the CPU); decode is unpacking packed arguments (on the
 * GPU, or on the CPU before the engine); cpu is the CPU engine with its
 * order check; result is building the result (packing it, for packed);
 * streamed_rows, the rows of an aggregate that went to the GPU as they came.
 * A streamed aggregate's read is its transition calls since it streamed
 * (taking the rows), and its upload every wait for their transfers: both
 * before the final function, so not in total.
 */
Datum
setops_last_timing(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[14];
	bool		nulls[14] = {0};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "setops_last_timing: return type must be a row type");
	/* 0.4's columns; a database at 0.3 has the first 10 */
	if (tupdesc->natts != 10 && tupdesc->natts != 14)
		elog(ERROR, "setops_last_timing: return type must have 10 or 14 columns");
	tupdesc = BlessTupleDesc(tupdesc);
	values[0] = CStringGetTextDatum(setops_last.on_gpu ? "gpu" : "cpu");
	values[1] = Float8GetDatum(setops_last.read_ms);
	values[2] = Float8GetDatum(setops_last.upload_ms);
	values[3] = Float8GetDatum(setops_last.decode_ms);
	values[4] = Float8GetDatum(setops_last.kernel_ms);
	values[5] = Float8GetDatum(setops_last.download_ms);
	values[6] = Float8GetDatum(setops_last.cpu_ms);
	values[7] = Float8GetDatum(setops_last.result_ms);
	values[8] = Float8GetDatum(setops_last.total_ms);
	values[9] = Int64GetDatum(setops_last.streamed_rows);
	values[10] = Int32GetDatum(setops_last.gpu);
	nulls[10] = setops_last.gpu < 0;
	values[11] = Float8GetDatum(setops_last.queue_ms);
	values[12] = Int32GetDatum(setops_last.batched);
	values[13] = CStringGetTextDatum(setops_last.reason ? setops_last.reason : "");
	nulls[13] = setops_last.reason == NULL;
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * setops_cache_stats(): the GPU service's cache of stored arrays, one row
 * per device that holds one (none without the service).  A miss counts on
 * device 0: the array it missed has no device yet.
 */
Datum
setops_cache_stats(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	SetopsCacheStats stats[SETOPS_MAX_DEVICES];
	int			n,
				i;

	InitMaterializedSRF(fcinfo, 0);
	n = setops_devices_cache_stats(stats);
	for (i = 0; i < n; i++)
	{
		Datum		values[7];
		bool		nulls[7] = {false, false, false, false, false, false, false};

		values[0] = Int32GetDatum(i);
		values[1] = Int64GetDatum(stats[i].capacity);
		values[2] = Int64GetDatum(stats[i].entries);
		values[3] = Int64GetDatum(stats[i].bytes);
		values[4] = Int64GetDatum(stats[i].hits);
		values[5] = Int64GetDatum(stats[i].misses);
		values[6] = Int64GetDatum(stats[i].evictions);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * setops_service_stats(): each device's share of the GPU service's work,
 * one row per device (none without the service): its streams, operations
 * queued or running now, operations run, launches (counts that waited
 * together share one), operations that shared a launch, the summed waits
 * for a stream and running times (ms), cached arrays copied to it for a
 * request, the main thread's time handing requests on and the service's
 * CPU time a request (the last two for all devices).
 */
Datum
setops_service_stats(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	SetopsServiceStats stats[SETOPS_MAX_DEVICES];
	int			n,
				i;

	InitMaterializedSRF(fcinfo, 0);
	n = setops_devices_service_stats(stats);
	for (i = 0; i < n; i++)
	{
		Datum		values[11];
		bool		nulls[11] = {0};

		values[0] = Int32GetDatum(i);
		values[1] = Int32GetDatum(stats[i].streams);
		values[2] = Int32GetDatum(stats[i].queued);
		values[3] = Int64GetDatum(stats[i].requests);
		values[4] = Int64GetDatum(stats[i].launches);
		values[5] = Int64GetDatum(stats[i].batched);
		values[6] = Float8GetDatum(stats[i].wait_ms);
		values[7] = Float8GetDatum(stats[i].run_ms);
		values[8] = Int64GetDatum(stats[i].copies);
		values[9] = Float8GetDatum(stats[i].dispatch_ms);
		values[10] = Float8GetDatum(stats[i].request_cpu_ms);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * setops_auto_estimates(): what setops.device = auto learnt in this
 * session, one row per kind of call, stored arguments or not, size class
 * and engine: calls measured, the moving averages of their time and of
 * this backend's CPU time in them.
 */
Datum
setops_auto_estimates(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			n;
	SetopsRouteEstimate *rows;

	InitMaterializedSRF(fcinfo, 0);
	rows = setops_route_estimates(&n);
	for (int i = 0; i < n; i++)
	{
		Datum		values[7];
		bool		nulls[7] = {0};

		values[0] = CStringGetTextDatum(rows[i].kind);
		values[1] = BoolGetDatum(rows[i].stored);
		values[2] = Int64GetDatum(rows[i].min_elements);
		values[3] = CStringGetTextDatum(rows[i].gpu ? "gpu" : "cpu");
		values[4] = Int64GetDatum(rows[i].calls);
		values[5] = Float8GetDatum(rows[i].ms);
		values[6] = Float8GetDatum(rows[i].cpu_ms);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(rows);
	return (Datum) 0;
}

#ifdef SETOPS_TEST_HOOKS
/*
 * setops_test_service_faults(device, failures [, kind]): the emulated GPU
 * service's device fails its next failures operations (NULL: unchanged);
 * kind any (default), shared (only shared trips of two or more counts
 * take them) or reset (the device is reset too: its memory lost).
 * Returns the number left before.  Only in builds for the tests, declared
 * by the suites that use it.
 */
PG_FUNCTION_INFO_V1(setops_test_service_faults);
Datum
setops_test_service_faults(PG_FUNCTION_ARGS)
{
	int32		failures = PG_ARGISNULL(1) ? -1 : PG_GETARG_INT32(1);
	char	   *kind = PG_NARGS() > 2 && !PG_ARGISNULL(2) ? text_to_cstring(PG_GETARG_TEXT_PP(2)) : "any";

	if (PG_ARGISNULL(0) || (!PG_ARGISNULL(1) && failures < 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("setops_test_service_faults: give a device and a number of failures of 0 or more (NULL: unchanged)")));
	PG_RETURN_INT32(setops_devices_inject_faults(PG_GETARG_INT32(0), failures, kind));
}
#endif							/* SETOPS_TEST_HOOKS */
