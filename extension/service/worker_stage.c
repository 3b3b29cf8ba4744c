/*
 * worker_stage.c
 *	  Staged reductions through the GPU service, the worker's side: each
 *	  slot's stage on the device (REQ_STAGE_PUT appends, REQ_REDUCE runs
 *	  every round there, REQ_STAGE_GET reads the result back), as
 *	  client_stage.c describes.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "setops.h"
#include "service/worker.h"
#include "service/device_ops.h"

/* ---- the worker's side ---- */

/* A slot's staged reduction: buffers on the device (device_ops.h). */
typedef struct SlotStage
{
	bool		used;
	int			device;
	uint64		epoch;			/* of the device context that holds the buffers */
	SetopsKeyType type;
	int64		total;			/* keys staged */
	int64		capacity;		/* keys cur holds (one more is allocated) */
	void	   *cur;
	void	   *spare;
	void	   *result;			/* cur or spare */
	int64		n;
	bool		reduced;
} SlotStage;

static SlotStage *stages = NULL;

void
service_stage_init(void)
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
	if (st->epoch == service_device->epoch() &&
		service_device->use(st->device, errbuf, sizeof(errbuf)) == SETOPS_GPU_OK)
	{
		if (st->cur)
			service_device->buffer_free(st->cur);
		if (st->spare)
			service_device->buffer_free(st->spare);
	}
	memset(st, 0, sizeof(*st));
}

/* A buffer of keys + 1 keys for st. */
static SetopsGpuStatus
stage_alloc(SlotStage *st, int64 keys, void **p, char *errbuf, size_t errlen)
{
	return service_device->buffer_alloc((keys + 1) * setops_key_size(st->type), p, errbuf, errlen);
}

/* Room for need keys in cur, at least doubling; cur is intact on failure. */
static SetopsGpuStatus
stage_grow(SlotStage *st, int64 need, char *errbuf, size_t errlen)
{
	int64		cap = Max(need, 2 * st->capacity);
	size_t		ks = setops_key_size(st->type);
	void	   *p = NULL;
	SetopsGpuStatus status;

	status = stage_alloc(st, cap, &p, errbuf, errlen);
	if (status == SETOPS_GPU_OK && st->total > 0)
		status = service_device->buffer_copy_peer(p, st->device, st->cur, st->device,
												  st->total * ks, errbuf, errlen);
	if (status != SETOPS_GPU_OK)
	{
		if (p)
			service_device->buffer_free(p);
		return status;
	}
	service_device->buffer_free(st->cur);
	st->cur = p;
	st->capacity = cap;
	return SETOPS_GPU_OK;
}

/* REQ_STAGE_PUT, REQ_REDUCE and REQ_STAGE_GET. */
SetopsGpuStatus
service_stage_request(ServiceSlot *slot, int slot_index, char *errbuf, size_t errlen)
{
	const ServiceStageRequest *r = &slot->req.stage;
	SlotStage  *st = &stages[slot_index];
	char	   *base = service_slot_data(slot);
	size_t		ks = setops_key_size(r->key_type);
	SetopsGpuStatus status = SETOPS_GPU_OK;
	bool		keep = false;	/* a failure that left the stage intact */

	/* a stage from an earlier device context is gone with it */
	if (st->used && st->epoch != service_device->epoch())
		memset(st, 0, sizeof(*st));

	if (slot->kind == REQ_STAGE_PUT)
	{
		/* the first piece makes the stage, sized by the hint in put_total */
		if (r->offset == 0)
		{
			service_stage_done(slot_index);
			st->used = true;
			st->type = r->key_type;
			st->capacity = Max(r->total, r->n);
			st->device = 0;
			st->epoch = service_device->epoch();
			status = service_device->use(0, errbuf, errlen);
			if (status == SETOPS_GPU_OK)
				status = stage_alloc(st, st->capacity, &st->cur, errbuf, errlen);
		}
		/* pieces come in order, each appended */
		if (status == SETOPS_GPU_OK &&
			(!st->used || st->reduced || r->offset != st->total))
		{
			snprintf(errbuf, errlen, "internal error: a staged piece out of place");
			status = SETOPS_GPU_ERROR;
		}
		if (status == SETOPS_GPU_OK)
			status = service_device->use(st->device, errbuf, errlen);
		if (status == SETOPS_GPU_OK && st->total + r->n > st->capacity)
		{
			status = stage_grow(st, st->total + r->n, errbuf, errlen);
			keep = status != SETOPS_GPU_OK;
		}
		if (status == SETOPS_GPU_OK)
			status = service_device->buffer_write(st->cur, st->total * ks, base + r->off_keys,
												  r->n * ks, errbuf, errlen);
		if (status == SETOPS_GPU_OK)
			st->total += r->n;
	}
	else if (slot->kind == REQ_REDUCE)
	{
		int64	   *lengths = (int64 *) (base + r->off_keys);
		int64		total = 0,
					i;

		for (i = 0; i < r->nruns; i++)
			total += lengths[i];
		if (!st->used || st->reduced || total != st->total || r->nruns < 1)
		{
			snprintf(errbuf, errlen, "internal error: no staged runs to reduce");
			status = SETOPS_GPU_ERROR;
		}
		else
		{
			int			in_spare = 0;
			double		t0 = setops_now_ms();

			status = service_device->use(st->device, errbuf, errlen);
			/* the rounds' second buffer; without it the staged runs can still be read */
			if (status == SETOPS_GPU_OK && st->spare == NULL)
			{
				status = stage_alloc(st, st->total, &st->spare, errbuf, errlen);
				keep = status != SETOPS_GPU_OK;
			}
			if (status == SETOPS_GPU_OK)
				status = service_device->reduce(r->op, st->type, st->cur, st->spare, lengths,
												r->nruns, &in_spare, &st->n, errbuf, errlen);
			st->result = in_spare ? st->spare : st->cur;
			slot->ms_kernel = setops_now_ms() - t0;
		}
		st->reduced = status == SETOPS_GPU_OK;
		slot->out_count = st->n;
	}
	else
	{
		/* REQ_STAGE_GET: the result once reduced, else the staged keys */
		int64		n = st->reduced ? st->n : st->total;
		const void *from = st->reduced ? st->result : st->cur;

		if (!st->used || r->offset + r->n > n || (r->raw && st->reduced))
		{
			snprintf(errbuf, errlen, "internal error: no staged keys to read");
			status = SETOPS_GPU_ERROR;
		}
		else
		{
			status = service_device->use(st->device, errbuf, errlen);
			if (status == SETOPS_GPU_OK)
				status = service_device->buffer_read(from, r->offset * ks,
													 base + r->off_keys, r->n * ks,
													 errbuf, errlen);
		}
		if (r->release)
			service_stage_done(slot_index);
	}
	if (status != SETOPS_GPU_OK && !keep)
		service_stage_done(slot_index);
	return status;
}
