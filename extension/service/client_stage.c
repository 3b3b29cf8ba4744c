/*
 * client_stage.c
 *	  Staged reductions through the GPU service, the backend's side: runs held on the device
 *	  while every round of a reduction runs there, and streams that put an
 *	  aggregate's rows there as they come.
 *
 * A reduction (the aggregates' final function) is larger than a slot as a
 * rule, and its rounds would move everything through the arena each time:
 * instead the backend stages the runs on the device (REQ_STAGE_PUT, each
 * piece appended to what is there, the stage growing as needed), the
 * worker runs every round there (REQ_REDUCE) and the result comes back in
 * pieces (REQ_STAGE_GET).  The stage belongs to the slot; it is freed
 * after the last piece is read, when the slot serves anything else, or
 * when its backend gives up.
 *
 * Both directions go through the slot's arena in two halves: while the
 * worker moves one half to or from the device, the backend fills or
 * empties the other, so the copies in host memory and the DMA overlap.
 *
 * A stream keeps a slot from one call to the next: an aggregate whose
 * state grows large puts each row on the device as the transition receives
 * it, rather than appending it to host memory and copying everything
 * towards the device in the final function.  Its slot is this backend's
 * one stream slot (client.c), given back when the stream closes,
 * its memory context goes, or the transaction aborts.  The rows are then
 * only on the device: what the CPU engine needs is read back from there
 * (setops_service_stream_fetch).
 *
 * The worker's side is worker_stage.c.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "setops.h"
#include "service/client.h"
#include "engine/cpu/engine.h"

/* ---- the backend's side ---- */

/*
 * Puts through one slot in two halves: the backend fills one while the
 * worker sends the other to the stage; at most one put is in flight.
 */
typedef struct StagePipe
{
	ServiceSlot *slot;
	SetopsKeyType type;
	size_t		ks;
	Size		half_bytes;
	int64		half_keys;
	int64		hint;			/* keys the stage is first sized for */
	int			filling;		/* the half being filled, 0 or 1 */
	int64		fill;			/* keys in it */
	bool		in_flight;		/* the other half is with the worker */
	int64		in_flight_n;	/* its keys */
	int64		sent;			/* keys handed to the worker, in flight included */
	/*
	 * A put that failed leaves its keys in its half (unsent_n of them, just
	 * before those being filled) and the pipe broken: what was put can
	 * still be read back if the stage is intact, nothing more put.
	 */
	bool		broken;
	int64		unsent_n;
	double		wait_ms;		/* waiting for puts in flight */
} StagePipe;

static Size
half_bytes(void)
{
	return TYPEALIGN_DOWN(64, setops_service->slot_bytes / 2);
}

static char *
pipe_half(const StagePipe *p, int half)
{
	return service_slot_data(p->slot) + half * p->half_bytes;
}

static void
pipe_init(StagePipe *p, ServiceSlot *slot, SetopsKeyType type, int64 hint)
{
	memset(p, 0, sizeof(*p));
	p->slot = slot;
	p->type = type;
	p->ks = setops_key_size(type);
	p->half_bytes = half_bytes();
	p->half_keys = (int64) (p->half_bytes / p->ks);
	p->hint = hint;
}

/* Wait for the put in flight, if any; the slot is then ours to write. */
static SetopsGpuStatus
pipe_wait(StagePipe *p, char *errbuf, size_t errlen)
{
	SetopsGpuStatus status;
	double		t0;

	if (!p->in_flight)
		return SETOPS_GPU_OK;
	p->in_flight = false;
	t0 = setops_now_ms();
	status = service_wait(p->slot, errbuf, errlen);
	p->wait_ms += setops_now_ms() - t0;
	if (status == SETOPS_GPU_OK)
		pg_atomic_write_u32(&p->slot->state, SLOT_CLAIMED);
	else
	{
		p->broken = true;
		p->sent -= p->in_flight_n;
		p->unsent_n = p->in_flight_n;
	}
	return status;
}

/* Hand the half being filled to the worker and switch halves. */
static SetopsGpuStatus
pipe_send(StagePipe *p, char *errbuf, size_t errlen)
{
	ServiceSlot *slot = p->slot;
	SetopsGpuStatus status = pipe_wait(p, errbuf, errlen);

	if (status != SETOPS_GPU_OK)
		return status;
	if (p->broken)
	{
		snprintf(errbuf, errlen, "internal error: a put after a failed one");
		return SETOPS_GPU_ERROR;
	}
	slot->kind = REQ_STAGE_PUT;
	memset(&slot->req.stage, 0, sizeof(slot->req.stage));
	slot->req.stage.key_type = p->type;
	slot->req.stage.offset = p->sent;
	slot->req.stage.total = p->hint;
	slot->req.stage.n = p->fill;
	slot->req.stage.off_keys = p->filling * p->half_bytes;
	status = service_submit_nowait(slot, errbuf, errlen);
	if (status != SETOPS_GPU_OK)
		return status;
	p->in_flight = true;
	p->in_flight_n = p->fill;
	p->sent += p->fill;
	p->filling ^= 1;
	p->fill = 0;
	return SETOPS_GPU_OK;
}

/* m keys were written after the fill: count them, send a full half on. */
static SetopsGpuStatus
pipe_commit(StagePipe *p, int64 m, char *errbuf, size_t errlen)
{
	p->fill += m;
	if (p->fill == p->half_keys)
		return pipe_send(p, errbuf, errlen);
	return SETOPS_GPU_OK;
}

/* Append n keys to the stage. */
static SetopsGpuStatus
pipe_put(StagePipe *p, const void *keys, int64 n, char *errbuf, size_t errlen)
{
	const char *src = keys;

	while (n > 0)
	{
		int64		m = Min(n, p->half_keys - p->fill);
		SetopsGpuStatus status;

		setops_copy(pipe_half(p, p->filling) + p->fill * p->ks, src, m * p->ks);
		src += m * p->ks;
		n -= m;
		status = pipe_commit(p, m, errbuf, errlen);
		if (status != SETOPS_GPU_OK)
			return status;
	}
	return SETOPS_GPU_OK;
}

/*
 * Room for n keys in one piece, in the half being filled (sent on first
 * when it has less); NULL with OK when n is more than a half holds.
 */
static SetopsGpuStatus
pipe_reserve(StagePipe *p, int64 n, void **room, char *errbuf, size_t errlen)
{
	*room = NULL;
	if (n > p->half_keys || n <= 0)
		return SETOPS_GPU_OK;
	if (p->broken)
	{
		snprintf(errbuf, errlen, "internal error: a put after a failed one");
		return SETOPS_GPU_ERROR;
	}
	if (p->fill + n > p->half_keys)
	{
		SetopsGpuStatus status = pipe_send(p, errbuf, errlen);

		if (status != SETOPS_GPU_OK)
			return status;
	}
	*room = pipe_half(p, p->filling) + p->fill * p->ks;
	return SETOPS_GPU_OK;
}

/* Every key put is on the stage (an empty one still makes its stage). */
static SetopsGpuStatus
pipe_flush(StagePipe *p, char *errbuf, size_t errlen)
{
	SetopsGpuStatus status = SETOPS_GPU_OK;

	if (p->fill > 0 || p->sent == 0)
		status = pipe_send(p, errbuf, errlen);
	if (status == SETOPS_GPU_OK)
		status = pipe_wait(p, errbuf, errlen);
	return status;
}

/*
 * Read n keys of the stage (the reduction's result; raw: the keys as put,
 * an error once reduced) into dst, through the two halves: the worker
 * reads the next piece while this backend copies the last one out.  The
 * last piece frees the stage.
 */
static SetopsGpuStatus
stage_get(ServiceSlot *slot, SetopsKeyType type, int64 n, bool raw, char *dst,
		  double *copy_ms, char *errbuf, size_t errlen)
{
	size_t		ks = setops_key_size(type);
	Size		hb = half_bytes();
	int64		per_piece = (int64) (hb / ks);
	int64		off = 0,
				m = Min(per_piece, n);
	int			half = 0;
	double		t0;
	SetopsGpuStatus status;

	slot->kind = REQ_STAGE_GET;
	memset(&slot->req.stage, 0, sizeof(slot->req.stage));
	slot->req.stage.raw = raw;
	slot->req.stage.key_type = type;
	slot->req.stage.offset = 0;
	slot->req.stage.n = m;
	slot->req.stage.off_keys = 0;
	slot->req.stage.release = m >= n;
	status = service_submit_nowait(slot, errbuf, errlen);
	for (;;)
	{
		int64		next_m;

		if (status != SETOPS_GPU_OK)
			return status;
		status = service_wait(slot, errbuf, errlen);
		if (status != SETOPS_GPU_OK)
			return status;
		pg_atomic_write_u32(&slot->state, SLOT_CLAIMED);
		next_m = Min(per_piece, n - off - m);
		if (next_m > 0)
		{
			slot->req.stage.offset = off + m;
			slot->req.stage.n = next_m;
			slot->req.stage.off_keys = (half ^ 1) * hb;
			slot->req.stage.release = off + m + next_m >= n;
			status = service_submit_nowait(slot, errbuf, errlen);
		}
		t0 = setops_now_ms();
		setops_copy(dst + off * ks, service_slot_data(slot) + half * hb, m * ks);
		*copy_ms += setops_now_ms() - t0;
		off += m;
		if (next_m <= 0)
			return SETOPS_GPU_OK;
		m = next_m;
		half ^= 1;
	}
}

/*
 * Reduce the staged runs (lengths, nruns, total keys) on the device, then
 * read the result into alloc(n)'s buffer.
 */
static SetopsGpuStatus
stage_reduce(ServiceSlot *slot, SetopsOp op, SetopsKeyType type, const int64 *lengths,
			 int64 nruns, int64 total, void *(*alloc) (int64 n, void *arg), void *arg,
			 void **result, int64 *n, char *errbuf, size_t errlen)
{
	SetopsGpuStatus status;
	char	   *res;
	double		t0,
				copy_ms = 0;

	slot->kind = REQ_REDUCE;
	memset(&slot->req.stage, 0, sizeof(slot->req.stage));
	slot->req.stage.op = op;
	slot->req.stage.key_type = type;
	slot->req.stage.nruns = nruns;
	slot->req.stage.total = total;
	slot->req.stage.off_keys = 0;
	memcpy(service_slot_data(slot), lengths, nruns * sizeof(int64));
	status = service_submit(slot, errbuf, errlen);
	if (status != SETOPS_GPU_OK)
		return status;
	setops_last.kernel_ms += slot->ms_kernel;
	*n = slot->out_count;
	if (*n < 0 || *n > total)
	{
		snprintf(errbuf, errlen, "internal error: a reduction of %lld keys gave %lld",
				 (long long) total, (long long) *n);
		return SETOPS_GPU_ERROR;
	}
	pg_atomic_write_u32(&slot->state, SLOT_CLAIMED);

	/* download: waiting for the pieces; result: copying them into the answer */
	t0 = setops_now_ms();
	res = alloc(*n, arg);
	status = stage_get(slot, type, *n, false, res, &copy_ms, errbuf, errlen);
	setops_last.download_ms += setops_now_ms() - t0 - copy_ms;
	setops_last.result_ms += copy_ms;
	if (status == SETOPS_GPU_OK)
		*result = res;
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
	StagePipe	p;
	SetopsGpuStatus status;
	double		t0;

	*result = NULL;
	*n = 0;
	if (!service_client_up(errbuf, errlen))
		return SETOPS_GPU_UNAVAILABLE;
	pipe_init(&p, service_claim_slot(), type, total);

	/* the runs, in pieces, sized once */
	t0 = setops_now_ms();
	status = pipe_put(&p, keys, total, errbuf, errlen);
	if (status == SETOPS_GPU_OK)
		status = pipe_flush(&p, errbuf, errlen);
	setops_last.upload_ms += setops_now_ms() - t0;

	/* every round on the device, the result straight into its buffer */
	if (status == SETOPS_GPU_OK)
		status = stage_reduce(p.slot, op, type, lengths, nruns, total, alloc, arg,
							  result, n, errbuf, errlen);
	service_release_slot();
	return status;
}

/* ---- streams ---- */

struct SetopsStageStream
{
	StagePipe	pipe;
	uint64		token;			/* this stream's claim of its slot */
	bool		open;
	MemoryContextCallback on_reset;
};

static void
stream_reset_callback(void *arg)
{
	setops_service_stream_close((SetopsStageStream *) arg);
}

SetopsStageStream *
setops_service_stream_open(SetopsKeyType type, int64 hint, MemoryContext cxt)
{
	char		errbuf[SETOPS_GPU_ERRLEN];
	SetopsStageStream *s;
	ServiceSlot *slot;

	if (!service_client_up(errbuf, sizeof(errbuf)))
		return NULL;
	s = MemoryContextAllocZero(cxt, sizeof(SetopsStageStream));
	slot = service_claim_stream_slot(&s->token);
	if (slot == NULL)
	{
		pfree(s);
		return NULL;
	}
	pipe_init(&s->pipe, slot, type, hint);
	s->open = true;
	s->on_reset.func = stream_reset_callback;
	s->on_reset.arg = s;
	MemoryContextRegisterResetCallback(cxt, &s->on_reset);
	return s;
}

/* Keys put so far, those of a failed put included. */
int64
setops_service_stream_count(const SetopsStageStream *s)
{
	return s->pipe.sent + s->pipe.unsent_n + s->pipe.fill;
}

/* Still usable: open, its slot not given up by an ERROR. */
static SetopsGpuStatus
stream_check(SetopsStageStream *s, char *errbuf, size_t errlen)
{
	if (s->open && service_holds_stream_slot(s->pipe.slot, s->token))
		return SETOPS_GPU_OK;
	snprintf(errbuf, errlen, "the stream to the GPU service was interrupted");
	return SETOPS_GPU_ERROR;
}

SetopsGpuStatus
setops_service_stream_put(SetopsStageStream *s, const void *keys, int64 n,
						  char *errbuf, size_t errlen)
{
	SetopsGpuStatus status = stream_check(s, errbuf, errlen);

	return status == SETOPS_GPU_OK ? pipe_put(&s->pipe, keys, n, errbuf, errlen) : status;
}

SetopsGpuStatus
setops_service_stream_reserve(SetopsStageStream *s, int64 n, void **room,
							  char *errbuf, size_t errlen)
{
	SetopsGpuStatus status = stream_check(s, errbuf, errlen);

	*room = NULL;
	return status == SETOPS_GPU_OK ? pipe_reserve(&s->pipe, n, room, errbuf, errlen) : status;
}

SetopsGpuStatus
setops_service_stream_commit(SetopsStageStream *s, int64 n, char *errbuf, size_t errlen)
{
	return pipe_commit(&s->pipe, n, errbuf, errlen);
}

SetopsGpuStatus
setops_service_stream_reduce(SetopsStageStream *s, SetopsOp op, const int64 *lengths,
							 int64 nruns, void *(*alloc) (int64 n, void *arg), void *arg,
							 void **result, int64 *n, char *errbuf, size_t errlen)
{
	SetopsGpuStatus status = stream_check(s, errbuf, errlen);

	*result = NULL;
	*n = 0;
	if (status == SETOPS_GPU_OK)
		status = pipe_flush(&s->pipe, errbuf, errlen);
	/* every wait for the rows' transfers, while they came and at the end */
	setops_last.upload_ms += s->pipe.wait_ms;
	if (status == SETOPS_GPU_OK)
		status = stage_reduce(s->pipe.slot, op, s->pipe.type, lengths, nruns, s->pipe.sent,
							  alloc, arg, result, n, errbuf, errlen);
	return status;
}

/*
 * Every key put so far, in order, into dst: those still in the arena
 * first (reading the stage back overwrites both halves), then the stage.
 */
SetopsGpuStatus
setops_service_stream_fetch(SetopsStageStream *s, void *dst, char *errbuf, size_t errlen)
{
	StagePipe  *p = &s->pipe;
	char	   *to = dst;
	double		copy_ms = 0;
	SetopsGpuStatus status = stream_check(s, errbuf, errlen);

	if (status != SETOPS_GPU_OK)
		return status;
	/* a put that fails here leaves its keys in the arena too */
	(void) pipe_wait(p, errbuf, errlen);
	status = stream_check(s, errbuf, errlen);
	if (status != SETOPS_GPU_OK)
		return status;
	memcpy(to + p->sent * p->ks, pipe_half(p, p->filling ^ 1), p->unsent_n * p->ks);
	memcpy(to + (p->sent + p->unsent_n) * p->ks, pipe_half(p, p->filling), p->fill * p->ks);
	if (p->sent == 0)
		return SETOPS_GPU_OK;
	return stage_get(p->slot, p->type, p->sent, true, to, &copy_ms, errbuf, errlen);
}

void
setops_service_stream_close(SetopsStageStream *s)
{
	if (!s->open)
		return;
	s->open = false;
	/* the worker frees the stage once the slot is free */
	service_release_stream_slot(s->pipe.slot, s->token);
}
