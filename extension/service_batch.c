/*
 * service_batch.c
 *	  Batches through the GPU service: many pairs in one request, and
 *	  reductions whose runs stay on the device between rounds.
 *
 * A batch request carries whole pairs: as many as fit the slot, A's keys
 * end to end, B's likewise (a shared B once), the pairs' starts and
 * lengths, and room for the outputs at their bound.  The worker runs them
 * in one segmented launch (gpu/batch_kernel.cu).
 *
 * A reduction (the aggregates' final function) is larger than a slot as a
 * rule, and its rounds would move everything through the arena each time:
 * instead the backend stages the runs on the device in slot-sized pieces
 * (REQ_STAGE_PUT), the worker runs every round there (REQ_REDUCE) and the
 * result comes back in pieces (REQ_STAGE_GET).  The stage belongs to the
 * slot; it is freed after the last piece is read, when the slot serves
 * anything else, or when its backend gives up.
 *
 * With setops.service_emulate and no GPU the worker answers with the CPU
 * engine, through the same requests.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "setops.h"
#include "service.h"
#include "cpu/engine.h"

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
		memcpy(base + slot->off_b, (const char *) batch->b + batch->bs.starts[first] * ks,
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
		memcpy(out, base + slot->off_out, slot->out_count * ks);
		memcpy(out_lengths + first, base + slot->off_outv, slot->npairs * sizeof(int64));
		if (want_pos)
			memcpy(out_pos, base + slot->off_bv, slot->out_count * sizeof(int64));
		*next = last;
	}
	service_release_slot();
	return status;
}

bool
setops_service_reduce_fits(SetopsKeyType type, int64 total, int64 nruns)
{
	return setops_service != NULL && total < INT_MAX / 2 &&
		(Size) nruns * sizeof(int64) <= setops_service->slot_bytes;
}

SetopsGpuStatus
setops_service_reduce(SetopsOp op, SetopsKeyType type, const void *keys,
					  const int64 *lengths, int64 nruns, int64 total,
					  void *(*alloc) (int64 n, void *arg), void *arg, void **result,
					  int64 *n, char *errbuf, size_t errlen)
{
	size_t		ks = setops_key_size(type);
	int64		per_piece,
				off = 0;
	ServiceSlot *slot;
	char	   *base;
	SetopsGpuStatus status = SETOPS_GPU_OK;
	char	   *res = NULL;
	double		t0;

	*result = NULL;
	*n = 0;
	if (!service_client_up(errbuf, errlen))
		return SETOPS_GPU_UNAVAILABLE;
	per_piece = (int64) (setops_service->slot_bytes / ks);
	slot = service_claim_slot();
	base = service_slot_data(slot);
	slot->a_cached = slot->b_cached = false;
	slot->op = op;
	slot->key_type = type;

	/* the runs, in pieces (an empty state still makes its stage) */
	t0 = setops_now_ms();
	do
	{
		int64		m = Min(per_piece, total - off);

		slot->kind = REQ_STAGE_PUT;
		slot->put_offset = off;
		slot->put_total = total;
		slot->na = m;
		memcpy(base, (const char *) keys + off * ks, m * ks);
		status = service_submit(slot, errbuf, errlen);
		if (status != SETOPS_GPU_OK)
			goto done;
		off += m;
		pg_atomic_write_u32(&slot->state, SLOT_CLAIMED);
		CHECK_FOR_INTERRUPTS();
	} while (off < total);

	setops_last.upload_ms += setops_now_ms() - t0;

	/* every round on the device */
	slot->kind = REQ_REDUCE;
	slot->npairs = nruns;
	slot->put_total = total;
	memcpy(base, lengths, nruns * sizeof(int64));
	status = service_submit(slot, errbuf, errlen);
	if (status != SETOPS_GPU_OK)
		goto done;
	setops_last.kernel_ms += slot->ms_kernel;
	*n = slot->out_count;
	if (*n < 0 || *n > total)
	{
		snprintf(errbuf, errlen, "internal error: a reduction of %lld keys gave %lld",
				 (long long) total, (long long) *n);
		status = SETOPS_GPU_ERROR;
		goto done;
	}
	pg_atomic_write_u32(&slot->state, SLOT_CLAIMED);

	/* the result, in pieces, straight into its buffer; the last frees the stage */
	t0 = setops_now_ms();
	res = alloc(*n, arg);
	off = 0;
	do
	{
		int64		m = Min(per_piece, *n - off);

		slot->kind = REQ_STAGE_GET;
		slot->put_offset = off;
		slot->na = m;
		slot->stage_release = off + m >= *n;
		status = service_submit(slot, errbuf, errlen);
		if (status != SETOPS_GPU_OK)
			goto done;
		memcpy(res + off * ks, base, m * ks);
		off += m;
		pg_atomic_write_u32(&slot->state, SLOT_CLAIMED);
		CHECK_FOR_INTERRUPTS();
	} while (off < *n);
	setops_last.download_ms += setops_now_ms() - t0;
	*result = res;
	res = NULL;

done:
	service_release_slot();
	return status;
}

/* ---- the worker's side ---- */

/* A slot's staged reduction: device buffers, or worker memory when emulating. */
typedef struct SlotStage
{
	bool		used;
	bool		emulated;
	int			device;
	uint64		epoch;			/* of the device context that holds the buffers */
	SetopsKeyType type;
	int64		total;
	void	   *cur;
	void	   *spare;
	void	   *result;			/* cur, spare, or (emulated) the CPU's answer */
	int64		n;
	bool		reduced;
	MemoryContext cxt;			/* emulated: holds the buffers */
} SlotStage;

static SlotStage *stages = NULL;

void
service_batch_init(void)
{
	stages = MemoryContextAllocZero(TopMemoryContext, sizeof(SlotStage) * setops_service->nslots);
}

/*
 * Stages whose slot is free again: their backend gave up between requests
 * (an ERROR or a cancel after a piece), so nobody will read them.  A stage
 * in use keeps its slot claimed from its first piece to its last.
 */
void
service_stage_sweep(void)
{
	int			i;

	for (i = 0; i < setops_service->nslots; i++)
		if (stages[i].used &&
			pg_atomic_read_u32(&setops_service->slots[i].state) == SLOT_FREE)
			service_stage_done(i);
}

void
service_stage_done(int slot_index)
{
	SlotStage  *st = &stages[slot_index];
	char		errbuf[SETOPS_GPU_ERRLEN];

	if (!st->used)
		return;
	if (st->emulated)
		MemoryContextDelete(st->cxt);
	else if (st->epoch == setops_gpu_context_epoch() &&
			 setops_gpu_use_device(st->device, errbuf, sizeof(errbuf)) == SETOPS_GPU_OK)
	{
		setops_gpu_buffer_free(st->cur);
		setops_gpu_buffer_free(st->spare);
	}
	memset(st, 0, sizeof(*st));
}

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

/* REQ_STAGE_PUT, REQ_REDUCE and REQ_STAGE_GET. */
void
service_stage_request(ServiceSlot *slot, int slot_index, bool emulate)
{
	SlotStage  *st = &stages[slot_index];
	char	   *base = service_slot_data(slot);
	size_t		ks = slot->key_type == SETOPS_KEY_INT64 ? 8 : 4;
	char		errbuf[SETOPS_GPU_ERRLEN] = "";
	SetopsGpuStatus status = SETOPS_GPU_OK;

	/* a stage from an earlier device context is gone with it */
	if (st->used && !st->emulated && st->epoch != setops_gpu_context_epoch())
		memset(st, 0, sizeof(*st));

	if (slot->kind == REQ_STAGE_PUT)
	{
		if (slot->put_offset == 0)
		{
			service_stage_done(slot_index);
			st->used = true;
			st->emulated = emulate;
			st->type = slot->key_type;
			st->total = slot->put_total;
			if (emulate)
			{
				st->cxt = AllocSetContextCreate(TopMemoryContext, "setops staged reduction",
												ALLOCSET_DEFAULT_SIZES);
				st->cur = MemoryContextAllocExtended(st->cxt, (st->total + 1) * ks, MCXT_ALLOC_HUGE);
			}
			else
			{
				st->device = 0;
				st->epoch = setops_gpu_context_epoch();
				status = setops_gpu_use_device(0, errbuf, sizeof(errbuf));
				if (status == SETOPS_GPU_OK)
					status = setops_gpu_buffer_alloc((st->total + 1) * ks, &st->cur, errbuf, sizeof(errbuf));
				if (status == SETOPS_GPU_OK)
					status = setops_gpu_buffer_alloc((st->total + 1) * ks, &st->spare, errbuf, sizeof(errbuf));
			}
		}
		if (status == SETOPS_GPU_OK &&
			(!st->used || st->reduced || slot->put_offset + slot->na > st->total))
		{
			snprintf(errbuf, sizeof(errbuf), "internal error: a staged piece out of place");
			status = SETOPS_GPU_ERROR;
		}
		if (status == SETOPS_GPU_OK)
		{
			if (st->emulated)
				memcpy((char *) st->cur + slot->put_offset * ks, base, slot->na * ks);
			else
				status = setops_gpu_buffer_write(st->cur, slot->put_offset * ks, base,
												 slot->na * ks, errbuf, sizeof(errbuf));
		}
	}
	else if (slot->kind == REQ_REDUCE)
	{
		int64	   *lengths = (int64 *) base;
		int64		total = 0,
					i;

		for (i = 0; i < slot->npairs; i++)
			total += lengths[i];
		if (!st->used || st->reduced || total != st->total || slot->npairs < 1)
		{
			snprintf(errbuf, sizeof(errbuf), "internal error: no staged runs to reduce");
			status = SETOPS_GPU_ERROR;
		}
		else if (st->emulated)
		{
			MemoryContext old = MemoryContextSwitchTo(st->cxt);

			st->result = setops_reduce_on_cpu(slot->op, st->type, st->cur, lengths,
											  slot->npairs, total, &st->n);
			MemoryContextSwitchTo(old);
		}
		else
		{
			int			in_spare = 0;
			double		t0 = setops_now_ms();

			status = setops_gpu_use_device(st->device, errbuf, sizeof(errbuf));
			if (status == SETOPS_GPU_OK)
				status = setops_gpu_reduce_device(slot->op, st->type, st->cur, st->spare, lengths,
												  slot->npairs, &in_spare, &st->n,
												  errbuf, sizeof(errbuf));
			st->result = in_spare ? st->spare : st->cur;
			slot->ms_kernel = setops_now_ms() - t0;
		}
		st->reduced = status == SETOPS_GPU_OK;
		slot->out_count = st->n;
	}
	else
	{
		/* REQ_STAGE_GET */
		if (!st->used || !st->reduced || slot->put_offset + slot->na > st->n)
		{
			snprintf(errbuf, sizeof(errbuf), "internal error: no staged result to read");
			status = SETOPS_GPU_ERROR;
		}
		else if (st->emulated)
			memcpy(base, (char *) st->result + slot->put_offset * ks, slot->na * ks);
		else
		{
			status = setops_gpu_use_device(st->device, errbuf, sizeof(errbuf));
			if (status == SETOPS_GPU_OK)
				status = setops_gpu_buffer_read(st->result, slot->put_offset * ks, base,
												slot->na * ks, errbuf, sizeof(errbuf));
		}
		if (status != SETOPS_GPU_OK || slot->stage_release)
			service_stage_done(slot_index);
	}
	if (status != SETOPS_GPU_OK && slot->kind != REQ_STAGE_GET)
		service_stage_done(slot_index);
	slot->status = status;
	strlcpy(slot->errmsg, errbuf, sizeof(slot->errmsg));
}
