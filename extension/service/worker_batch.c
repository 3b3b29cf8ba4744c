/*
 * worker_batch.c
 *	  Batches through the GPU service, the worker's side: the pairs a
 *	  backend laid out in the arena (client_batch.c), in one segmented
 *	  launch on the device (engine/gpu/batch_kernel.cu).
 */
#include "postgres.h"

#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/memutils.h"

#include "setops.h"
#include "service/worker.h"
#include "service/device_ops.h"

/* ---- the worker's side ---- */

/*
 * The cached rows of a count batch: looked up (counted as hits or misses
 * unless a retry), and, when the cache holds every one, held on the device
 * that holds most of their bytes (*device: the batch runs there; their
 * copies pinned there, or copied there from another device) with their
 * buffers in a_dev.  False with the missing rows marked and their number
 * in slot->cache_missing when it does not (their puts hinted to that
 * device, so that the batch's rows end up together); an error status in
 * *status.  holds[] gets what was held, for service_cache_release.
 */
static bool
hold_cached_rows(ServiceSlot *slot, int *device, const void **a_dev, ServiceCacheHold *holds,
				 SetopsGpuStatus *status, char *errbuf, size_t errlen)
{
	const ServiceBatchRequest *r = &slot->req.batch;
	char	   *base = service_slot_data(slot);
	ServiceCachedRow *c = (ServiceCachedRow *) (base + r->off_cached);
	int64	   *a_len = (int64 *) (base + r->off_pairs) + r->npairs;
	ServiceCacheRef *refs = palloc(sizeof(ServiceCacheRef) * r->ncached);
	int64		held_bytes[SERVICE_MAX_DEVICES] = {0};
	int64		hits[SERVICE_MAX_DEVICES] = {0},
				misses = 0;
	int64		i;
	int			d;

	*status = SETOPS_GPU_OK;
	for (i = 0; i < r->ncached; i++)
	{
		c[i].missing = !service_cache_find(&c[i].key, &refs[i]);
		if (c[i].missing)
			misses++;
		else if (c[i].pair < 0 || c[i].pair >= r->npairs || refs[i].n != a_len[c[i].pair])
		{
			snprintf(errbuf, errlen,
					 "internal error: cached row %lld of a count batch has %lld keys, not %lld",
					 (long long) i, (long long) refs[i].n,
					 (long long) (c[i].pair >= 0 && c[i].pair < r->npairs ? a_len[c[i].pair] : -1));
			*status = SETOPS_GPU_ERROR;
		}
		else
		{
			hits[pg_rightmost_one_pos32(refs[i].devices)]++;
			for (d = 0; d < setops_service->ndevices && d < SERVICE_MAX_DEVICES; d++)
				if (refs[i].devices & (1u << d))
					held_bytes[d] += refs[i].n;
		}
	}
	/*
	 * With rows missing, those found go to the head of their LRU lists, so
	 * that the misses' puts do not evict them before the request is asked
	 * again (else holding them does it).
	 */
	for (i = 0; i < r->ncached && misses > 0; i++)
		if (!c[i].missing)
			service_cache_touch(&refs[i]);
	/* (a backend's retry after sending what was missing is not counted again) */
	if (!r->cache_retry)
		service_cache_count(hits, misses);
	slot->cache_missing += misses;
	*device = 0;
	for (d = 1; d < setops_service->ndevices && d < SERVICE_MAX_DEVICES; d++)
		if (held_bytes[d] > held_bytes[*device])
			*device = d;
	/* (the puts of a batch's rows go where their first goes: a few hints) */
	for (i = 0, d = 0; i < r->ncached && slot->cache_missing > 0 && d < 8; i++)
		if (c[i].missing)
		{
			service_cache_hint(&c[i].key, *device);
			d++;
		}
	/*
	 * The rows already on the device held (pinned) first, then the others
	 * copied there: making room for a copy cannot evict a row not yet held.
	 */
	for (int pass = 0; pass < 2; pass++)
		for (i = 0; i < r->ncached && slot->cache_missing == 0 && *status == SETOPS_GPU_OK; i++)
		{
			if (holds[i].pinned || holds[i].temp != NULL ||
				(pass == 0 && !service_cache_on(&refs[i], *device)))
				continue;
			*status = service_cache_hold(&refs[i], *device, &holds[i], &a_dev[c[i].pair],
										 errbuf, errlen);
		}
	pfree(refs);
	return slot->cache_missing == 0 && *status == SETOPS_GPU_OK;
}

/*
 * REQ_BATCH: the pairs in the arena, outputs into the arena.
 * REQ_COUNT_BATCH: the same pairs, only their answers back (out_lengths).
 */
SetopsGpuStatus
service_run_batch(ServiceSlot *slot, int slot_index, char *errbuf, size_t errlen)
{
	const ServiceBatchRequest *r = &slot->req.batch;
	char	   *base = service_slot_data(slot);
	int64	   *pairs = (int64 *) (base + r->off_pairs);
	int64		np = r->npairs;
	SetopsGpuBatchArgs args;
	SetopsGpuStatus status;
	const void **a_dev = NULL;
	ServiceCacheHold *holds = NULL;
	int64		i;
	int			device = 0;
	volatile bool ran = false;
	uint64		epochs[SERVICE_MAX_DEVICES];

	memset(&args, 0, sizeof(args));
	args.op = r->op;
	args.key_type = r->key_type;
	args.a = base + r->off_a;
	args.a_keys = r->na;
	args.b = base + r->off_b;
	args.b_keys = r->nb;
	args.npairs = np;
	args.a_start = pairs;
	args.a_len = pairs + np;
	args.b_start = pairs + 2 * np;
	args.b_len = pairs + 3 * np;
	args.b_shared = r->b_shared;
	args.out_lengths = (int64_t *) (base + r->off_lengths);
	if (slot->kind != REQ_COUNT_BATCH)
	{
		args.out_keys = base + r->off_out;
		args.out_pos = r->want_pos ? (int64_t *) (base + r->off_pos) : NULL;
	}
	if (slot->kind == REQ_COUNT_BATCH && r->ncached > 0)
	{
		a_dev = palloc0(sizeof(void *) * np);
		holds = palloc0(sizeof(ServiceCacheHold) * r->ncached);
	}
	/*
	 * The cached rows on the device the batch runs on, held until it ran;
	 * the holds go also when an ERROR fails the request (the emulated
	 * device's CPU engine raises one when the backend gave up, a copy
	 * between devices may too), or the rows would stay pinned, never to be
	 * evicted.
	 */
	/* (the devices' memory before the rows are held: a reset since loses them) */
	for (i = 0; i < setops_service->ndevices; i++)
		epochs[i] = service_device->device_epoch(i);
	PG_TRY();
	{
		status = SETOPS_GPU_OK;
		if (holds == NULL || hold_cached_rows(slot, &device, a_dev, holds, &status,
											  errbuf, errlen))
		{
			ran = true;
			args.a_dev = a_dev;
			status = service_device->use(device, errbuf, errlen);
			if (status == SETOPS_GPU_OK && slot->kind == REQ_COUNT_BATCH)
				status = service_device->count_batch(&args, r->count_mode, errbuf, errlen);
			else if (status == SETOPS_GPU_OK)
				status = service_device->setop_batch(&args, errbuf, errlen);
			if (status == SETOPS_GPU_OK && holds != NULL &&
				service_device->device_epoch(device) != epochs[device])
			{
				status = SETOPS_GPU_ERROR;
				snprintf(errbuf, errlen, "%s", SERVICE_RESET_MSG);
			}
		}
	}
	PG_FINALLY();
	{
		for (i = 0; holds != NULL && i < r->ncached; i++)
			service_cache_release(&holds[i]);
	}
	PG_END_TRY();
	if (a_dev)
	{
		pfree(a_dev);
		pfree(holds);
	}
	/* (rows missing: nothing ran, the backend sends them and asks again) */
	if (!ran)
		return status;
	slot->out_count = args.out_count;
	slot->ms_upload = args.ms_upload;
	slot->ms_kernel = args.ms_kernel;
	slot->ms_download = args.ms_download;
	return status;
}
