/*
 * service_batch.c
 *	  Batches through the GPU service: many pairs in one request, and
 *	  reductions whose runs stay on the device between rounds.
 *
 * A batch request carries whole pairs: as many as fit the slot, A's keys
 * end to end, B's likewise (a shared B once), the pairs' starts and
 * lengths, and room for the outputs at their bound.  The worker runs them
 * in one segmented launch (engine/gpu/batch_kernel.cu).
 *
 * Reductions, whose runs stay on the device between rounds, are in
 * service_stage.c.
 *
 * With setops.service_emulate and no GPU the worker answers with the CPU
 * engine, through the same requests.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "setops.h"
#include "service/service.h"
#include "engine/cpu/engine.h"

/* ---- the backend's side ---- */

/* Arena bytes of pairs [first, last) of batch. */
static Size
batch_request_bytes(const SetopsBatch *batch, int64 first, int64 last, bool want_pos,
					int64 *a_keys, int64 *b_keys, int64 *bound)
{
	size_t		ks = setops_key_size(batch->type);
	int64		i,
				npairs = last - first;

	*a_keys = *b_keys = *bound = 0;
	for (i = first; i < last; i++)
	{
		*a_keys += batch->as.lengths[i];
		if (!batch->b_shared)
			*b_keys += batch->bs.lengths[i];
		*bound += setop_output_bound(batch->op, batch->as.lengths[i], batch->bs.lengths[i]);
	}
	if (batch->b_shared)
		*b_keys = batch->bs.lengths[first];
	return SERVICE_ALIGN(*a_keys * ks) + SERVICE_ALIGN(*b_keys * ks) + SERVICE_ALIGN(npairs * 4 * sizeof(int64)) +
		SERVICE_ALIGN((*bound + SETOPS_CPU_OUTPUT_SLACK) * ks) + SERVICE_ALIGN(npairs * sizeof(int64)) +
		(want_pos ? SERVICE_ALIGN((*bound + SETOPS_CPU_OUTPUT_SLACK) * sizeof(int64)) : 0);
}

SetopsGpuStatus
setops_service_batch(const SetopsBatch *batch, int64 first, int64 *next, void *out,
					 int64 *out_lengths, int64 *out_pos, int64 *n,
					 char *errbuf, size_t errlen)
{
	size_t		ks = setops_key_size(batch->type);
	bool		want_pos = out_pos != NULL;
	int64		last = first,
				step = 1,
				a_keys,
				b_keys,
				bound,
				i,
				k;
	ServiceSlot *slot;
	char	   *base;
	int64	   *pairs;
	SetopsGpuStatus status;

	*next = first;
	*n = 0;
	if (!service_client_up(errbuf, errlen))
		return SETOPS_GPU_UNAVAILABLE;
	/* as many pairs as fit: grow the step while it fits, halve it when not */
	while (last < batch->as.nsegs && step > 0)
	{
		int64		try = Min(last + step, batch->as.nsegs);

		if (batch_request_bytes(batch, first, try, want_pos, &a_keys, &b_keys, &bound) <=
			setops_service->slot_bytes && bound < INT_MAX / 2 && a_keys < INT_MAX / 2 &&
			b_keys < INT_MAX / 2)
		{
			last = try;
			step *= 2;
		}
		else
			step /= 2;
	}
	if (last == first)
		return SETOPS_GPU_OK;	/* the first pair alone does not fit */
	(void) batch_request_bytes(batch, first, last, want_pos, &a_keys, &b_keys, &bound);

	slot = service_claim_slot();
	base = service_slot_data(slot);
	slot->kind = REQ_BATCH;
	slot->a_cached = slot->b_cached = false;
	slot->op = batch->op;
	slot->key_type = batch->type;
	slot->na = a_keys;
	slot->nb = b_keys;
	slot->npairs = last - first;
	slot->b_shared = batch->b_shared;
	slot->want_pos = want_pos;
	slot->off_a = 0;
	slot->off_b = SERVICE_ALIGN(a_keys * ks);
	slot->off_av = slot->off_b + SERVICE_ALIGN(b_keys * ks);
	slot->off_out = slot->off_av + SERVICE_ALIGN(slot->npairs * 4 * sizeof(int64));
	slot->off_outv = slot->off_out + SERVICE_ALIGN((bound + SETOPS_CPU_OUTPUT_SLACK) * ks);
	slot->off_bv = slot->off_outv + SERVICE_ALIGN(slot->npairs * sizeof(int64));

	/* the one pass over the inputs: into the arena, end to end */
	pairs = (int64 *) (base + slot->off_av);
	k = 0;
	for (i = first; i < last; i++)
	{
		int64		j = i - first;

		pairs[j] = k;
		pairs[slot->npairs + j] = batch->as.lengths[i];
		memcpy(base + k * ks, (const char *) batch->a + batch->as.starts[i] * ks,
			   batch->as.lengths[i] * ks);
		k += batch->as.lengths[i];
	}
	k = 0;
	for (i = first; i < last; i++)
	{
		int64		j = i - first;

		if (batch->b_shared)
		{
			pairs[2 * slot->npairs + j] = 0;
			pairs[3 * slot->npairs + j] = batch->bs.lengths[i];
			continue;
		}
		pairs[2 * slot->npairs + j] = k;
		pairs[3 * slot->npairs + j] = batch->bs.lengths[i];
		memcpy(base + slot->off_b + k * ks, (const char *) batch->b + batch->bs.starts[i] * ks,
			   batch->bs.lengths[i] * ks);
		k += batch->bs.lengths[i];
	}
	if (batch->b_shared)
		setops_copy(base + slot->off_b, (const char *) batch->b + batch->bs.starts[first] * ks,
					b_keys * ks);

	status = service_submit(slot, errbuf, errlen);
	if (status == SETOPS_GPU_OK && (slot->out_count < 0 || slot->out_count > bound))
	{
		snprintf(errbuf, errlen, "internal error: %lld outputs from a bound of %lld",
				 (long long) slot->out_count, (long long) bound);
		status = SETOPS_GPU_ERROR;
	}
	if (status == SETOPS_GPU_OK)
	{
		setops_last.upload_ms += slot->ms_upload;
		setops_last.kernel_ms += slot->ms_kernel;
		setops_last.download_ms += slot->ms_download;
		*n = slot->out_count;
		setops_copy(out, base + slot->off_out, slot->out_count * ks);
		memcpy(out_lengths + first, base + slot->off_outv, slot->npairs * sizeof(int64));
		if (want_pos)
			setops_copy(out_pos, base + slot->off_bv, slot->out_count * sizeof(int64));
		*next = last;
	}
	service_release_slot();
	return status;
}

/* ---- the worker's side ---- */

/* REQ_BATCH: the pairs in the arena, outputs into the arena. */
void
service_run_batch(ServiceSlot *slot, bool emulate)
{
	char	   *base = service_slot_data(slot);
	int64	   *pairs = (int64 *) (base + slot->off_av);
	int64		np = slot->npairs;
	char		errbuf[SETOPS_GPU_ERRLEN] = "";
	SetopsGpuStatus status = SETOPS_GPU_OK;

	if (emulate)
	{
		SetopsSegd	as,
					bs;

		as.nsegs = bs.nsegs = np;
		as.starts = pairs;
		as.lengths = pairs + np;
		bs.starts = pairs + 2 * np;
		bs.lengths = pairs + 3 * np;
		as.total = slot->na;
		bs.total = slot->nb;
		slot->out_count = setops_cpu_setop_segmented(slot->op, slot->key_type, base + slot->off_a,
													 &as, base + slot->off_b, &bs,
													 base + slot->off_out,
													 (int64_t *) (base + slot->off_outv),
													 slot->want_pos ? (int64_t *) (base + slot->off_bv) : NULL);
	}
	else
	{
		SetopsGpuBatchArgs args;

		memset(&args, 0, sizeof(args));
		args.op = slot->op;
		args.key_type = slot->key_type;
		args.a = base + slot->off_a;
		args.a_keys = slot->na;
		args.b = base + slot->off_b;
		args.b_keys = slot->nb;
		args.npairs = np;
		args.a_start = pairs;
		args.a_len = pairs + np;
		args.b_start = pairs + 2 * np;
		args.b_len = pairs + 3 * np;
		args.b_shared = slot->b_shared;
		args.out_keys = base + slot->off_out;
		args.out_lengths = (int64_t *) (base + slot->off_outv);
		args.out_pos = slot->want_pos ? (int64_t *) (base + slot->off_bv) : NULL;
		status = setops_gpu_use_device(0, errbuf, sizeof(errbuf));
		if (status == SETOPS_GPU_OK)
			status = setops_gpu_setop_batch(&args, errbuf, sizeof(errbuf));
		slot->out_count = args.out_count;
		slot->ms_upload = args.ms_upload;
		slot->ms_kernel = args.ms_kernel;
		slot->ms_download = args.ms_download;
	}
	slot->status = status;
	strlcpy(slot->errmsg, errbuf, sizeof(slot->errmsg));
}
