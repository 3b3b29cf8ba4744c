/*
 * client_batch.c
 *	  Batches through the GPU service, the backend's side: many pairs in
 *	  one request.
 *
 * A batch request carries whole pairs: as many as fit the slot, A's keys
 * end to end, B's likewise (a shared B once), the pairs' starts and
 * lengths, and room for the outputs at their bound.  The worker runs them
 * in one segmented launch (worker_batch.c).  A count batch is laid out
 * alike, with room for one answer a pair instead of outputs.  Reductions, whose runs stay
 * on the device between rounds, are in client_stage.c.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "setops.h"
#include "service/client.h"
#include "engine/cpu/engine.h"

/* ---- the backend's side ---- */

/*
 * Arena bytes of pairs [first, last) of batch: their keys, descriptors and
 * answers (a count a pair when counts, else the outputs at their bound and
 * their lengths).
 */
static Size
batch_request_bytes(const SetopsBatch *batch, int64 first, int64 last, bool counts,
					bool want_pos, int64 *a_keys, int64 *b_keys, int64 *bound)
{
	size_t		ks = setops_key_size(batch->type);
	int64		i,
				npairs = last - first;
	Size		bytes;

	*a_keys = *b_keys = *bound = 0;
	for (i = first; i < last; i++)
	{
		*a_keys += batch->as.lengths[i];
		if (!batch->b_shared)
			*b_keys += batch->bs.lengths[i];
		if (!counts)
			*bound += setop_output_bound(batch->op, batch->as.lengths[i], batch->bs.lengths[i]);
	}
	if (batch->b_shared)
		*b_keys = batch->bs.lengths[first];
	/*
	 * Every row's keys are counted, stored rows too: a request covers the
	 * same pairs whichever of them go by identity (asked again after a miss).
	 */
	bytes = SERVICE_ALIGN(*a_keys * ks) + SERVICE_ALIGN(*b_keys * ks) +
		SERVICE_ALIGN(npairs * 4 * sizeof(int64)) + SERVICE_ALIGN(npairs * sizeof(int64));
	if (batch->a_rows)
		bytes += SERVICE_ALIGN(npairs * sizeof(ServiceCachedRow));
	if (!counts)
		bytes += SERVICE_ALIGN((*bound + SETOPS_CPU_OUTPUT_SLACK) * ks) +
			(want_pos ? SERVICE_ALIGN((*bound + SETOPS_CPU_OUTPUT_SLACK) * sizeof(int64)) : 0);
	return bytes;
}

/*
 * The pairs from first on that fit one request (one launch's indices
 * too): the end of them, first when the first pair alone does not fit.
 */
static int64
batch_pairs_fitting(const SetopsBatch *batch, int64 first, bool counts, bool want_pos)
{
	int64		last = first,
				step = 1,
				a_keys,
				b_keys,
				bound;

	/* grow the step while it fits, halve it when not */
	while (last < batch->as.nsegs && step > 0)
	{
		int64		try = Min(last + step, batch->as.nsegs);

		if (batch_request_bytes(batch, first, try, counts, want_pos, &a_keys, &b_keys, &bound) <=
			setops_service->slot_bytes && bound < INT_MAX / 2 && a_keys < INT_MAX / 2 &&
			b_keys < INT_MAX / 2)
		{
			last = try;
			step *= 2;
		}
		else
			step /= 2;
	}
	return last;
}

static ServiceSlot *batch_request_layout(ServiceSlot *slot, const SetopsBatch *batch,
										 ServiceRequestKind kind, int64 first, int64 last,
										 bool want_pos, int64 *bound);

/*
 * Claim a slot and lay out in it, as a request of kind (REQ_BATCH or
 * REQ_COUNT_BATCH), the pairs from first on that fit (up to *last): the
 * one pass over the inputs, into the arena end to end (a shared B once).
 * The caller sets the rest of the request.  NULL when nothing is sent:
 * *status UNAVAILABLE without a service, OK when the first pair alone does
 * not fit (*last == first).
 */
static ServiceSlot *
batch_request_start(const SetopsBatch *batch, ServiceRequestKind kind, int64 first,
					bool want_pos, int64 *last, int64 *bound, SetopsGpuStatus *status,
					char *errbuf, size_t errlen)
{
	*last = first;
	*status = SETOPS_GPU_OK;
	if (!service_client_up(errbuf, errlen))
	{
		*status = SETOPS_GPU_UNAVAILABLE;
		return NULL;
	}
	*last = batch_pairs_fitting(batch, first, kind == REQ_COUNT_BATCH, want_pos);
	if (*last == first)
		return NULL;
	return batch_request_layout(service_claim_slot(), batch, kind, first, *last, want_pos,
								bound);
}

/* Lay out pairs [first, last) of batch in slot as batch_request_start does. */
static ServiceSlot *
batch_request_layout(ServiceSlot *slot, const SetopsBatch *batch, ServiceRequestKind kind,
					 int64 first, int64 last, bool want_pos, int64 *bound)
{
	size_t		ks = setops_key_size(batch->type);
	int64		a_keys,
				b_keys,
				i,
				k;
	ServiceBatchRequest *r;
	char	   *base;
	int64	   *pairs;

	(void) batch_request_bytes(batch, first, last, kind == REQ_COUNT_BATCH, want_pos, &a_keys,
							   &b_keys, bound);
	base = service_slot_data(slot);
	slot->kind = kind;
	r = &slot->req.batch;
	memset(r, 0, sizeof(*r));
	r->op = batch->op;
	r->key_type = batch->type;
	r->na = a_keys;
	r->nb = b_keys;
	r->npairs = last - first;
	r->b_shared = batch->b_shared;
	r->want_pos = want_pos;
	r->off_a = 0;
	r->off_b = SERVICE_ALIGN(a_keys * ks);
	r->off_pairs = r->off_b + SERVICE_ALIGN(b_keys * ks);
	r->off_lengths = r->off_pairs + SERVICE_ALIGN(r->npairs * 4 * sizeof(int64));
	r->off_out = r->off_lengths + SERVICE_ALIGN(r->npairs * sizeof(int64));
	r->off_pos = r->off_out + SERVICE_ALIGN((*bound + SETOPS_CPU_OUTPUT_SLACK) * ks);
	/* (a count batch has no outputs: its cached rows go there) */
	r->off_cached = r->off_out;

	pairs = (int64 *) (base + r->off_pairs);
	k = 0;
	for (i = first; i < last; i++)
	{
		int64		j = i - first;
		const SetopsKeys *row = batch->a_rows ? batch->a_rows[i] : NULL;

		pairs[j] = k;
		pairs[r->npairs + j] = batch->as.lengths[i];
		if (row && batch->a_identity[i])
		{
			ServiceCachedRow *c = (ServiceCachedRow *) (base + r->off_cached) + r->ncached++;

			c->pair = j;
			c->key = *row->cache_key;
			c->missing = false;
			pairs[j] = 0;
			continue;
		}
		if (row && row->form != SETOPS_KEYS_PLAIN)
			elog(ERROR, "setops: a stored row of a count batch sent unread");
		/* a stored row its order check answered (exec/batch.c) crosses empty */
		if (row && row->sorted_known && row->first_unsorted >= 0)
		{
			pairs[r->npairs + j] = 0;
			continue;
		}
		memcpy(base + k * ks, row ? row->data : (const char *) batch->a + batch->as.starts[i] * ks,
			   pairs[r->npairs + j] * ks);
		k += pairs[r->npairs + j];
	}
	r->na = k;
	k = 0;
	for (i = first; i < last; i++)
	{
		int64		j = i - first;

		if (batch->b_shared)
		{
			pairs[2 * r->npairs + j] = 0;
			pairs[3 * r->npairs + j] = batch->bs.lengths[i];
			continue;
		}
		pairs[2 * r->npairs + j] = k;
		pairs[3 * r->npairs + j] = batch->bs.lengths[i];
		memcpy(base + r->off_b + k * ks, (const char *) batch->b + batch->bs.starts[i] * ks,
			   batch->bs.lengths[i] * ks);
		k += batch->bs.lengths[i];
	}
	if (batch->b_shared)
		setops_copy(base + r->off_b, (const char *) batch->b + batch->bs.starts[first] * ks,
					b_keys * ks);
	return slot;
}

/* A batch's timings, added to the call's. */
static void
batch_add_times(const ServiceSlot *slot)
{
	setops_last.upload_ms += slot->ms_upload;
	setops_last.kernel_ms += slot->ms_kernel;
	setops_last.download_ms += slot->ms_download;
}

SetopsGpuStatus
setops_service_batch(const SetopsBatch *batch, int64 first, int64 *next, void *out,
					 int64 *out_lengths, int64 *out_pos, int64 *n,
					 char *errbuf, size_t errlen)
{
	const ServiceBatchRequest *r;
	size_t		ks = setops_key_size(batch->type);
	bool		want_pos = out_pos != NULL;
	int64		last,
				bound;
	ServiceSlot *slot;
	char	   *base;
	SetopsGpuStatus status;

	*next = first;
	*n = 0;
	slot = batch_request_start(batch, REQ_BATCH, first, want_pos, &last, &bound, &status,
							   errbuf, errlen);
	if (slot == NULL)
		return status;
	base = service_slot_data(slot);
	r = &slot->req.batch;
	status = service_submit(slot, errbuf, errlen);
	if (status == SETOPS_GPU_OK && (slot->out_count < 0 || slot->out_count > bound))
	{
		snprintf(errbuf, errlen, "internal error: %lld outputs from a bound of %lld",
				 (long long) slot->out_count, (long long) bound);
		status = SETOPS_GPU_ERROR;
	}
	if (status == SETOPS_GPU_OK)
	{
		batch_add_times(slot);
		*n = slot->out_count;
		setops_copy(out, base + r->off_out, slot->out_count * ks);
		memcpy(out_lengths + first, base + r->off_lengths, r->npairs * sizeof(int64));
		if (want_pos)
			setops_copy(out_pos, base + r->off_pos, slot->out_count * sizeof(int64));
		*next = last;
	}
	service_release_slot();
	return status;
}

/* The flight's slot given back (abandoned to the worker while busy). */
static void
flight_done(SetopsCountFlight *flight)
{
	if (flight->slot != NULL)
		service_release_stream_slot((ServiceSlot *) flight->slot, flight->token);
	flight->slot = NULL;
}

/*
 * A count batch's request [first, last) answered on slot: the answers into
 * answers[first, last), or, when the device cache missed rows, those
 * marked SETOPS_BATCH_MISSING (the others 0) and counted in *missing.
 */
static void
count_batch_answers(ServiceSlot *slot, int64 first, int64 last, int64 *answers, int64 *missing)
{
	const ServiceBatchRequest *r = &slot->req.batch;

	if (slot->cache_missing > 0)
	{
		const ServiceCachedRow *c = (const ServiceCachedRow *) (service_slot_data(slot) +
																r->off_cached);
		int64		i;

		/* nothing ran: the rows to send, marked */
		memset(answers + first, 0, (last - first) * sizeof(int64));
		for (i = 0; i < r->ncached; i++)
			if (c[i].missing)
			{
				answers[first + c[i].pair] = SETOPS_BATCH_MISSING;
				(*missing)++;
			}
	}
	else
	{
		batch_add_times(slot);
		memcpy(answers + first, service_slot_data(slot) + r->off_lengths,
			   (last - first) * sizeof(int64));
	}
}

/* Set the count batch's own fields of the request laid out in slot. */
static void
count_batch_request(ServiceSlot *slot, int count_mode, bool retry)
{
	slot->req.batch.count_mode = count_mode;
	slot->req.batch.cache_retry = retry;
}

SetopsGpuStatus
setops_service_count_batch(const SetopsBatch *batch, int count_mode, int64 first, bool retry,
						   int64 *next, int64 *answers, int64 *missing, char *errbuf,
						   size_t errlen)
{
	int64		last,
				bound;
	ServiceSlot *slot;
	SetopsGpuStatus status;

	*next = first;
	*missing = 0;
	slot = batch_request_start(batch, REQ_COUNT_BATCH, first, false, &last, &bound, &status,
							   errbuf, errlen);
	if (slot == NULL)
		return status;
	count_batch_request(slot, count_mode, retry);
	status = service_submit(slot, errbuf, errlen);
	if (status == SETOPS_GPU_OK)
	{
		count_batch_answers(slot, first, last, answers, missing);
		*next = last;
	}
	service_release_slot();
	return status;
}

/*
 * The first request of a count batch (pairs 0 on, as many as fit) sent
 * and not waited for, on this backend's stream slot: true with it in
 * *flight; false when none is free, there is no service, or the first
 * pair alone does not fit (ask setops_service_count_batch then).
 */
bool
setops_service_count_batch_begin(const SetopsBatch *batch, int count_mode,
								 SetopsCountFlight *flight)
{
	char		errbuf[SETOPS_GPU_ERRLEN];
	ServiceSlot *slot;
	int64		bound;

	memset(flight, 0, sizeof(*flight));
	if (!service_client_up(errbuf, sizeof(errbuf)))
		return false;
	flight->last = batch_pairs_fitting(batch, 0, true, false);
	if (flight->last == 0)
		return false;
	slot = service_claim_stream_slot(&flight->token);
	if (slot == NULL)
		return false;
	(void) batch_request_layout(slot, batch, REQ_COUNT_BATCH, 0, flight->last, false, &bound);
	count_batch_request(slot, count_mode, false);
	flight->slot = slot;
	flight->status = service_submit_nowait(slot, flight->errbuf, sizeof(flight->errbuf));
	if (flight->status != SETOPS_GPU_OK)
		flight_done(flight);
	return true;
}

/*
 * The answers of the request in flight (setops_service_count_batch's for
 * pairs [0, flight->last)), its slot given back.
 */
SetopsGpuStatus
setops_service_count_batch_end(SetopsCountFlight *flight, int64 *answers, int64 *missing,
							   char *errbuf, size_t errlen)
{
	SetopsGpuStatus status = flight->status;

	*missing = 0;
	if (flight->slot != NULL && status == SETOPS_GPU_OK)
	{
		status = service_wait((ServiceSlot *) flight->slot, errbuf, errlen);
		if (status == SETOPS_GPU_OK)
			count_batch_answers((ServiceSlot *) flight->slot, 0, flight->last, answers, missing);
	}
	else if (status != SETOPS_GPU_OK)
		strlcpy(errbuf, flight->errbuf, errlen);
	flight_done(flight);
	return status;
}

/*
 * A request in flight no longer waited for: its slot given back (the
 * worker frees it when done); also at the end of a query that stopped
 * before the answers were needed.
 */
void
setops_service_count_batch_abandon(SetopsCountFlight *flight)
{
	flight_done(flight);
}
