/*
 * client.c
 *	  A backend's side of the GPU service (protocol.h, client.h): requests through
 *	  shared memory, with the signatures of the GPU interface.
 *
 * A backend claims one slot for a whole operation and sends it in chunks
 * that fit the slot's part of the arena, split where no key-rank pair is
 * cut (the engine's Balanced Path split), so the chunks' outputs simply
 * concatenate.  Copying an input chunk into the arena is the one CPU pass
 * over it; the worker's DMA reads it from there.
 *
 * While waiting, the backend sleeps on its latch and wakes at least every
 * 100 ms: a cancel or statement_timeout raises its ERROR at once (the slot
 * is marked abandoned; the worker drops the work at its next chunk and
 * frees the slot), and a worker that stopped is noticed (the request fails
 * cleanly).  A backend that exits while waiting abandons its slot the same
 * way.
 */
#include "postgres.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/wait_event.h"

#include "setops.h"
#include "service/client.h"
#include "engine/cpu/engine.h"

static ServiceSlot *my_slot = NULL;
/*
 * A slot held across calls by a stream (an aggregate sending its rows to
 * the device as they come, client_stage.c): at most one per backend, apart
 * from my_slot, so that requests made while it streams do not take it.
 */
static ServiceSlot *stream_slot = NULL;
static uint64 stream_claims = 0;	/* identifies this backend's claims of it */
static bool exit_callback_set = false;

static bool
service_up(char *errbuf, size_t errlen)
{
	bool		ready;

	if (setops_service == NULL)
	{
		snprintf(errbuf, errlen, "setops is not in shared_preload_libraries, so the GPU service does not run");
		return false;
	}
	if (service_live(NULL))
		return true;
	/* (not ready: why, under the mutex) */
	SpinLockAcquire(&setops_service->mutex);
	ready = setops_service->ready;
	if (!ready)
		strlcpy(errbuf, setops_service->unavailable, errlen);
	SpinLockRelease(&setops_service->mutex);
	return ready;
}

/*
 * Right after the cluster starts, the worker is still creating its CUDA
 * context: wait for it (interruptibly, up to 30 s) rather than fail.
 */
void
setops_service_wait_ready(void)
{
	int			waited = 0;

	while (setops_service != NULL && waited < 30000)
	{
		if (service_live(NULL))
			return;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 10L,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		waited += 10;
	}
}

int
setops_service_device_count(char *errbuf, size_t errlen)
{
	int			n;

	if (!service_up(errbuf, errlen))
		return 0;
	/* (set before the worker is ready; the mutex only for why there are none) */
	n = setops_service->ndevices;
	if (n == 0)
	{
		SpinLockAcquire(&setops_service->mutex);
		n = setops_service->ndevices;
		if (n == 0)
			strlcpy(errbuf, setops_service->unavailable, errlen);
		SpinLockRelease(&setops_service->mutex);
	}
	return n;
}

/*
 * The CPU time the service's threads spend on a request, milliseconds, as
 * last measured (0 before the first, or without the service).
 */
double
setops_service_request_cpu_ms(void)
{
	if (setops_service == NULL)
		return 0;
	return pg_atomic_read_u64(&setops_service->request_cpu_ns) / 1e6;
}

SetopsGpuStatus
setops_service_device_info(int index, SetopsGpuDeviceInfo *info, char *errbuf, size_t errlen)
{
	if (!service_up(errbuf, errlen))
		return SETOPS_GPU_UNAVAILABLE;
	SpinLockAcquire(&setops_service->mutex);
	if (index < 0 || index >= setops_service->ndevices)
	{
		SpinLockRelease(&setops_service->mutex);
		snprintf(errbuf, errlen, "no device %d", index);
		return SETOPS_GPU_UNAVAILABLE;
	}
	*info = setops_service->devices[index];
	SpinLockRelease(&setops_service->mutex);
	return SETOPS_GPU_OK;
}

bool
setops_service_fits(Size bytes)
{
	return setops_service != NULL && bytes <= setops_service->slot_bytes;
}

/*
 * Stop waiting for a slot: whoever of the worker and this backend sees the
 * answer in last frees it (the compare-and-exchange lets only one).  A
 * slot not submitted (CLAIMED: the worker never touches it) is freed at
 * once.  Once the worker may have freed it, it is never freed from
 * CLAIMED again: another backend may have claimed it by then.
 */
static void
abandon_slot(ServiceSlot *slot)
{
	if (pg_atomic_read_u32(&slot->state) == SLOT_CLAIMED)
	{
		service_free_slot(slot);
		return;
	}
	pg_atomic_write_u32(&slot->abandoned, 1);
	pg_memory_barrier();
	if (!service_free_from(slot, SLOT_DONE))
		return;					/* the worker has it, and frees it */
	service_wake_slot_waiters();
}

/* Give back *held: free it, or leave it to the worker if it has a request. */
static void
give_back(ServiceSlot **held)
{
	if (*held != NULL)
	{
		uint32		state = pg_atomic_read_u32(&(*held)->state);

		if (state == SLOT_DONE || state == SLOT_CLAIMED)
			service_free_slot(*held);
		else
			abandon_slot(*held);
		*held = NULL;
	}
}

static void
release_slot(void)
{
	give_back(&my_slot);
}

/*
 * The stream slot is no longer held (given back, or abandoned to the
 * worker): one stream fewer in the cluster.
 */
static void
stream_slot_gone(void)
{
	stream_slot = NULL;
	pg_atomic_fetch_sub_u32(&setops_service->nstreams, 1);
}

static void
release_stream_slot(void)
{
	if (stream_slot != NULL)
	{
		give_back(&stream_slot);
		stream_slot_gone();
	}
}

/* Whether this backend counts among the slot's waiters (claim_waiting). */
static bool counted_waiting = false;

/* This backend no longer counts among the slot's waiters. */
static void
stop_waiting(void)
{
	if (counted_waiting)
	{
		pg_atomic_fetch_sub_u32(&setops_service->slot_waiters, 1);
		counted_waiting = false;
	}
}

static void
client_exit(int code, Datum arg)
{
	/* (a FATAL while waiting for a slot skips claim_waiting's own cleanup) */
	stop_waiting();
	if (my_slot != NULL)
		abandon_slot(my_slot);
	my_slot = NULL;
	if (stream_slot != NULL)
	{
		abandon_slot(stream_slot);
		stream_slot_gone();
	}
}

/*
 * An ERROR between a slot's requests (a cancel between chunks, say) leaves
 * it claimed: the abort gives it back.  A stream's slot is given back by
 * its owner's memory context (its reset callback), which a subtransaction
 * abort resets only if the stream belonged to it; a top-level abort gives
 * it back here too.
 */
static void
client_xact_abort(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
	{
		release_slot();
		release_stream_slot();
	}
}

static void
client_subxact_abort(SubXactEvent event, SubTransactionId my_subid,
					 SubTransactionId parent_subid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		release_slot();
}

static void
client_callbacks(void)
{
	if (!exit_callback_set)
	{
		before_shmem_exit(client_exit, (Datum) 0);
		RegisterXactCallback(client_xact_abort, NULL);
		RegisterSubXactCallback(client_subxact_abort, NULL);
		exit_callback_set = true;
	}
}

/* Claim a free slot, or NULL when all are busy. */
static ServiceSlot *
try_claim_slot(void)
{
	int			i;

	client_callbacks();
	for (i = 0; i < setops_service->nslots; i++)
	{
		ServiceSlot *slot = &setops_service->slots[(MyProcPid + i) % setops_service->nslots];
		uint32		expected = SLOT_FREE;

		/* (a read first: a failed compare-and-exchange still takes the line from its owner) */
		if (pg_atomic_read_u32(&slot->state) == SLOT_FREE &&
			pg_atomic_compare_exchange_u32(&slot->state, &expected, SLOT_CLAIMED))
		{
			pg_atomic_write_u32(&slot->abandoned, 0);
			slot->span = 1;
			return slot;
		}
	}
	return NULL;
}

/*
 * Slots claimed by claim(k), waiting while none is free: counted among the
 * slot's waiters meanwhile (service_wake_slot_waiters), each try after the
 * count; woken when one is freed, at the latest after 100 ms, and
 * interruptible.  At most tries sleeps (0: no limit); NULL after them.
 */
static ServiceSlot *
claim_waiting(ServiceSlot *(*claim) (int), int k, int tries)
{
	ServiceSlot *volatile slot = claim(k);

	if (slot == NULL)
	{
		pg_atomic_fetch_add_u32(&setops_service->slot_waiters, 1);
		counted_waiting = true;
		PG_TRY();
		{
			for (int t = 0; (slot = claim(k)) == NULL && (tries == 0 || t < tries); t++)
				(void) ConditionVariableTimedSleep(&setops_service->slot_freed, 100L,
												   PG_WAIT_EXTENSION);
		}
		PG_FINALLY();
		{
			stop_waiting();
		}
		PG_END_TRY();
		ConditionVariableCancelSleep();
	}
	my_slot = slot;
	return slot;
}

static ServiceSlot *
claim_one(int k)
{
	return try_claim_slot();
}

/* A free slot, waiting (interruptibly) while all are busy. */
static ServiceSlot *
claim_slot(void)
{
	/* (one left claimed by an ERROR outside a transaction) */
	release_slot();
	return claim_waiting(claim_one, 1, 0);
}

/*
 * The most slots one request may span: half of them, so that a large
 * request leaves room for the others.
 */
static int
max_span(void)
{
	return Max(setops_service->nslots / 2, 1);
}

/* k adjacent free slots, the first holding the request; NULL if none. */
static ServiceSlot *
try_claim_span(int k)
{
	int			start = 0;

	client_callbacks();
	while (start + k <= setops_service->nslots)
	{
		ServiceSlot *first = &setops_service->slots[start];
		int			j;

		for (j = 0; j < k; j++)
		{
			uint32		expected = SLOT_FREE;

			if (!pg_atomic_compare_exchange_u32(&first[j].state, &expected, SLOT_CLAIMED))
				break;
		}
		if (j == k)
		{
			pg_atomic_write_u32(&first->abandoned, 0);
			first->span = k;
			return first;
		}
		/* give back those taken; the next try starts past the busy one */
		for (int i = 0; i < j; i++)
			pg_atomic_write_u32(&first[i].state, SLOT_FREE);
		if (j > 0)
			service_wake_slot_waiters();
		start += j + 1;
	}
	return NULL;
}

/*
 * Slots for a request of bytes in one piece: adjacent slots, whose parts
 * of the arena are adjacent too, so that an operation larger than a slot
 * (a stored argument answered from the device cache with a large result,
 * say) still goes in one request.  NULL when it needs more than
 * max_span() slots, or no such run of slots frees up within about 200 ms
 * (under load, small requests hold most slots): the caller then goes in
 * chunks through one slot.
 */
static ServiceSlot *
claim_span(Size bytes)
{
	int			k = (int) Min((bytes + setops_service->slot_bytes - 1) / setops_service->slot_bytes,
							  (Size) INT_MAX);

	if (k <= 1)
		return claim_slot();
	if (k > max_span())
		return NULL;
	release_slot();
	return claim_waiting(try_claim_span, k, 3);
}

/* Hand the slot's request to the worker; the answer is awaited by wait_done. */
static SetopsGpuStatus
submit(ServiceSlot *slot, char *errbuf, size_t errlen)
{
	Latch	   *worker;
	uint64		generation;
	bool		ready;

	ready = service_live(&generation);
	worker = setops_service->worker_latch;
	if (!ready || worker == NULL)
	{
		snprintf(errbuf, errlen, "the setops GPU service is not running");
		return SETOPS_GPU_NO_SERVICE;
	}

	slot->owner_latch = MyLatch;
	slot->generation = generation;
	pg_write_barrier();
	pg_atomic_write_u32(&slot->state, SLOT_SUBMITTED);
	SetLatch(worker);
	return SETOPS_GPU_OK;
}

/* This backend no longer holds slot (it was abandoned). */
static void
forget_slot(ServiceSlot *slot)
{
	if (slot == my_slot)
		my_slot = NULL;
	if (slot == stream_slot)
		stream_slot_gone();
}

/* Wait for the answer to the request submitted on slot. */
static SetopsGpuStatus
wait_done(ServiceSlot *slot, char *errbuf, size_t errlen)
{
	uint64		generation = slot->generation,
				now;

	PG_TRY();
	{
		while (pg_atomic_read_u32(&slot->state) != SLOT_DONE)
		{
			if (!service_live(&now) || now != generation)
				break;
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 100L,
							 PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		}
	}
	PG_CATCH();
	{
		abandon_slot(slot);
		forget_slot(slot);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (pg_atomic_read_u32(&slot->state) != SLOT_DONE)
	{
		/* the worker went away: a new one fails or frees what it finds */
		abandon_slot(slot);
		forget_slot(slot);
		snprintf(errbuf, errlen, "the setops GPU service stopped while serving this request");
		return SETOPS_GPU_ERROR;
	}
	pg_read_barrier();
	if (slot->status != SETOPS_GPU_OK)
		strlcpy(errbuf, slot->errmsg, errlen);
	return slot->status;
}

static SetopsGpuStatus
submit_and_wait(ServiceSlot *slot, char *errbuf, size_t errlen)
{
	SetopsGpuStatus status = submit(slot, errbuf, errlen);

	return status == SETOPS_GPU_OK ? wait_done(slot, errbuf, errlen) : status;
}

/* The slot machinery, for client_batch.c and client_stage.c. */
bool
service_client_up(char *errbuf, size_t errlen)
{
	return service_up(errbuf, errlen);
}

ServiceSlot *
service_claim_slot(void)
{
	return claim_slot();
}

SetopsGpuStatus
service_submit(ServiceSlot *slot, char *errbuf, size_t errlen)
{
	return submit_and_wait(slot, errbuf, errlen);
}

void
service_release_slot(void)
{
	release_slot();
}

SetopsGpuStatus
service_submit_nowait(ServiceSlot *slot, char *errbuf, size_t errlen)
{
	return submit(slot, errbuf, errlen);
}

SetopsGpuStatus
service_wait(ServiceSlot *slot, char *errbuf, size_t errlen)
{
	return wait_done(slot, errbuf, errlen);
}

/*
 * The stream's slot: NULL when this backend streams already, none is free,
 * or streams hold all but one slot of the service.  A stream holds its
 * slot while its backend makes other requests, which claim a slot of
 * their own: with every slot held by streams, those would wait forever.
 * *token identifies this claim (the same slot may be claimed again later).
 */
ServiceSlot *
service_claim_stream_slot(uint64 *token)
{
	uint32		n = pg_atomic_read_u32(&setops_service->nstreams);

	if (stream_slot != NULL)
		return NULL;
	do
	{
		if (n + 1 >= (uint32) setops_service->nslots)
			return NULL;
	} while (!pg_atomic_compare_exchange_u32(&setops_service->nstreams, &n, n + 1));
	stream_slot = try_claim_slot();
	if (stream_slot == NULL)
	{
		pg_atomic_fetch_sub_u32(&setops_service->nstreams, 1);
		return NULL;
	}
	*token = ++stream_claims;
	return stream_slot;
}

/* Does the claim token still hold slot (not given up by an ERROR)? */
bool
service_holds_stream_slot(ServiceSlot *slot, uint64 token)
{
	return slot != NULL && slot == stream_slot && token == stream_claims;
}

/* Give back the claim token's slot, if it still holds it. */
void
service_release_stream_slot(ServiceSlot *slot, uint64 token)
{
	if (service_holds_stream_slot(slot, token))
		release_stream_slot();
}

static SetopsGpuStatus
does_not_fit(Size bytes, char *errbuf, size_t errlen)
{
	snprintf(errbuf, errlen,
			 "the request needs %zu bytes in one piece and does not fit a slot of the GPU service (%zu bytes; raise setops.service_memory)",
			 (Size) bytes, setops_service ? setops_service->slot_bytes : (Size) 0);
	return SETOPS_GPU_TOO_LARGE;
}

/* Output room of a chunk of na x nb keys: a count brings back 8 bytes, no outputs. */
static int64
setop_room(const SetopsGpuSetopArgs *args, int64 na, int64 nb)
{
	return args->count_mode ? 0 : setop_output_bound(args->op, na, nb);
}

/*
 * The offsets of a chunk of na x nb keys in its slot's arena (into r), and
 * the bytes it needs; an argument by its cache key takes none.
 */
static Size
setop_layout(ServiceSetopRequest *r, const SetopsGpuSetopArgs *args, int64 na, int64 nb,
			 bool a_by_key, bool b_by_key)
{
	size_t		ks = setops_key_size(args->key_type);
	size_t		vs = args->a_vals ? (size_t) args->val_stride : 0;
	int64		room = setop_room(args, na, nb);
	Size		a_bytes = a_by_key ? 0 : args->a_packed ? args->a_packed_size : na * ks;
	Size		b_bytes = b_by_key ? 0 : args->b_packed ? args->b_packed_size : nb * ks;

	r->off_a = 0;
	r->off_b = SERVICE_ALIGN(a_bytes);
	r->off_a_vals = r->off_b + SERVICE_ALIGN(b_bytes);
	r->off_b_vals = r->off_a_vals + SERVICE_ALIGN(na * vs);
	r->off_out = r->off_b_vals + SERVICE_ALIGN(nb * vs);
	r->off_out_vals = r->off_out + SERVICE_ALIGN((room + SETOPS_CPU_OUTPUT_SLACK) * ks);
	return r->off_out_vals + (room + SETOPS_CPU_OUTPUT_SLACK) * vs;
}

/* The bytes of the whole operation in one request. */
static Size
setop_whole_bytes(const SetopsGpuSetopArgs *args, bool a_by_key, bool b_by_key)
{
	ServiceSetopRequest r;

	return setop_layout(&r, args, args->na, args->nb, a_by_key, b_by_key);
}

/*
 * One chunk a[ai, a_end) x b[bi, b_end) through the slot; outputs at k.
 * An argument with a cache key (whole, then) is sent by its key alone.
 */
static SetopsGpuStatus
run_chunk(ServiceSlot *slot, SetopsGpuSetopArgs *args, int64 ai, int64 a_end,
		  int64 bi, int64 b_end, int64 k, int64 *n,
		  const SetopsCacheKey *a_key, const SetopsCacheKey *b_key, bool retry,
		  char *errbuf, size_t errlen)
{
	ServiceSetopRequest *r = &slot->req.setop;
	const SetopsGpuSetopArgs *ans = &r->args;	/* the worker's answer */
	char	   *base = service_slot_data(slot);
	size_t		ks = setops_key_size(args->key_type);
	size_t		vs = args->a_vals ? (size_t) args->val_stride : 0;
	int64		na = a_end - ai,
				nb = b_end - bi,
				room = setop_room(args, na, nb),
				bound = args->count_mode == SETOPS_GPU_COUNT_OVERLAPS ? 1 :
				args->count_mode == SETOPS_GPU_COUNT_CONTAINS ? nb :
				args->count_mode ? Min(na, nb) : room;
	Size		a_bytes = a_key ? 0 : args->a_packed ? args->a_packed_size : na * ks;
	Size		b_bytes = b_key ? 0 : args->b_packed ? args->b_packed_size : nb * ks;
	Size		bytes;
	double		t0 = setops_now_ms();
	SetopsGpuStatus status;

	slot->kind = REQ_SETOP;
	memset(r, 0, sizeof(*r));
	slot->cache_missing = 0;
	bytes = setop_layout(r, args, na, nb, a_key != NULL, b_key != NULL);
	if (bytes > service_slot_capacity(slot))
		return does_not_fit(bytes, errbuf, errlen);
	r->a_cached = a_key != NULL;
	r->b_cached = b_key != NULL;
	if (a_key)
		r->a_key = *a_key;
	if (b_key)
		r->b_key = *b_key;
	r->cache_retry = retry;
	r->args = *args;
	service_args_unbind(&r->args);
	setops_gpu_answer_reset(&r->args);
	r->args.na = na;
	r->args.nb = nb;
	r->args.val_stride = (int) vs;
	r->a_packed = args->a_packed != NULL;
	r->b_packed = args->b_packed != NULL;
	/*
	 * A packed result, when this chunk is the whole operation and the slot
	 * holds the result's bound; else keys come back (the caller packs them).
	 */
	r->want_packed = args->out_packed != NULL &&
		ai == 0 && a_end == args->na && bi == 0 && b_end == args->nb &&
		r->off_out + args->out_packed_cap <= service_slot_capacity(slot);
	r->args.out_packed_cap = r->want_packed ? args->out_packed_cap : 0;

	/* the one CPU pass over the inputs: into the pinned arena */
	if (!a_key)
		setops_copy(base + r->off_a, args->a_packed ? args->a_packed : (const char *) args->a + ai * ks, a_bytes);
	if (!b_key)
		setops_copy(base + r->off_b, args->b_packed ? args->b_packed : (const char *) args->b + bi * ks, b_bytes);
	if (vs)
	{
		setops_copy(base + r->off_a_vals, (const char *) args->a_vals + ai * vs, na * vs);
		setops_copy(base + r->off_b_vals, (const char *) args->b_vals + bi * vs, nb * vs);
	}
	args->ms_upload += setops_now_ms() - t0;

	status = submit_and_wait(slot, errbuf, errlen);
	if (status != SETOPS_GPU_OK)
		return status;
	if (slot->cache_missing != 0)
	{
		/* the caller sends what is missing and asks again */
		*n = 0;
		pg_atomic_write_u32(&slot->state, SLOT_CLAIMED);
		return SETOPS_GPU_OK;
	}
	setops_gpu_add_times(args, ans);
	if (ans->unsorted_arg != 0)
	{
		args->unsorted_arg = ans->unsorted_arg;
		args->unsorted_pos = ans->unsorted_pos < 0 ? -1 :
			ans->unsorted_pos + (ans->unsorted_arg == 1 ? ai : bi);
		*n = 0;
		return SETOPS_GPU_OK;
	}
	if (ans->out_count < 0 || ans->out_count > bound)
	{
		snprintf(errbuf, errlen, "internal error: %lld outputs from a bound of %lld",
				 (long long) ans->out_count, (long long) bound);
		return SETOPS_GPU_ERROR;
	}
	t0 = setops_now_ms();
	if (args->count_mode)
		 /* the count is the answer */ ;
	else if (r->want_packed && ans->out_packed_size > 0)
	{
		if (ans->out_packed_size > args->out_packed_cap)
		{
			snprintf(errbuf, errlen, "internal error: a packed result of %zu bytes for %zu",
					 (size_t) ans->out_packed_size, (size_t) args->out_packed_cap);
			return SETOPS_GPU_ERROR;
		}
		setops_copy(args->out_packed, base + r->off_out, ans->out_packed_size);
		args->out_packed_size = ans->out_packed_size;
	}
	else
	{
		setops_copy((char *) args->out_keys + k * ks, base + r->off_out, ans->out_count * ks);
		if (vs)
			setops_copy((char *) args->out_vals + k * vs, base + r->off_out_vals, ans->out_count * vs);
	}
	args->ms_copy_out += setops_now_ms() - t0;
	*n = ans->out_count;
	/* the next chunk's request starts from a claimed slot again */
	pg_atomic_write_u32(&slot->state, SLOT_CLAIMED);
	return SETOPS_GPU_OK;
}

static SetopsGpuStatus
setop_chunks(ServiceSlot *slot, SetopsGpuSetopArgs *args, char *errbuf, size_t errlen)
{
	size_t		ks = setops_key_size(args->key_type);
	size_t		vs = args->a_vals ? (size_t) args->val_stride : 0;
	/* inputs plus the output bound (at most both inputs; none for a count) */
	int64		per_chunk = (int64) ((setops_service->slot_bytes - 64 * 1024) /
									 ((args->count_mode ? 1 : 2) * (ks + vs)));
	int64		k = 0;
	SetopsChunks c;

	/* packed values go whole (the slot must hold them) */
	setops_chunks_begin(&c, args->op, args->key_type, args->a, args->na, args->b, args->nb,
						args->a_packed || args->b_packed ? 0 : per_chunk);
	while (setops_chunks_next(&c) && c.disorder == 0)
	{
		int64		n;
		SetopsGpuStatus status = run_chunk(slot, args, c.ai, c.a_end, c.bi, c.b_end, k, &n,
										   NULL, NULL, false, errbuf, errlen);

		if (status != SETOPS_GPU_OK || args->unsorted_arg != 0)
			return status;
		k += n;
		if (setops_gpu_count_decided(args, k))
			break;
		CHECK_FOR_INTERRUPTS();
	}
	/* a split over unsorted input can go anywhere; order across chunks */
	if (c.disorder)
	{
		args->unsorted_arg = 1;
		args->unsorted_pos = setops_cpu_first_unsorted(args->key_type, args->a, args->na);
		if (args->unsorted_pos < 0)
		{
			args->unsorted_arg = 2;
			args->unsorted_pos = setops_cpu_first_unsorted(args->key_type, args->b, args->nb);
		}
		return SETOPS_GPU_OK;
	}
	args->out_count = k;
	return SETOPS_GPU_OK;
}

/* Clear the answer fields of args; false when the service is not up. */
static bool
answer_reset(SetopsGpuSetopArgs *args, char *errbuf, size_t errlen)
{
	setops_gpu_answer_reset(args);
	return service_up(errbuf, errlen);
}

SetopsGpuStatus
setops_service_setop(SetopsGpuSetopArgs *args, char *errbuf, size_t errlen)
{
	ServiceSlot *slot;
	SetopsGpuStatus status;
	Size		bytes;

	if (!answer_reset(args, errbuf, errlen))
		return SETOPS_GPU_UNAVAILABLE;

	/* larger than a slot: whole through a span of them if one frees up */
	bytes = setop_whole_bytes(args, false, false);
	if (bytes > setops_service->slot_bytes && (slot = claim_span(bytes)) != NULL)
	{
		int64		n = 0;

		status = run_chunk(slot, args, 0, args->na, 0, args->nb, 0, &n, NULL, NULL, false,
						   errbuf, errlen);
		if (status == SETOPS_GPU_OK && args->unsorted_arg == 0)
			args->out_count = n;
	}
	else
	{
		slot = claim_slot();
		status = setop_chunks(slot, args, errbuf, errlen);
	}
	release_slot();
	return status;
}

/* Does the service cache stored arrays? */
bool
setops_service_caches(void)
{
	bool		caches;

	if (setops_service == NULL)
		return false;
	caches = service_live(NULL) && pg_atomic_read_u32(&setops_service->caching) != 0;
	return caches;
}

/*
 * The operation in one request, the arguments with a cache key sent by it
 * alone (their args->a / args->b unused; na / nb their counts from the
 * header, at least the real ones).  *missing gets CACHE_MISSING_* of those
 * the service does not hold: nothing else is answered then.  A request
 * larger than a slot takes a span of them (claim_span); one whose other
 * argument and result bound fit no span answers TOO_LARGE: the caller then
 * sends everything, in chunks.
 */
SetopsGpuStatus
setops_service_setop_cached(SetopsGpuSetopArgs *args, const SetopsCacheKey *a_key,
							const SetopsCacheKey *b_key, bool retry, int *missing,
							char *errbuf, size_t errlen)
{
	ServiceSlot *slot;
	SetopsGpuStatus status;
	Size		bytes;
	int64		n = 0;

	*missing = 0;
	if (!answer_reset(args, errbuf, errlen))
		return SETOPS_GPU_UNAVAILABLE;
	if (args->na + args->nb > INT_MAX)
		return does_not_fit((Size) (args->na + args->nb) * 4, errbuf, errlen);

	bytes = setop_whole_bytes(args, a_key != NULL, b_key != NULL);
	slot = claim_span(bytes);
	if (slot == NULL)
		return does_not_fit(bytes, errbuf, errlen);
	status = run_chunk(slot, args, 0, args->na, 0, args->nb, 0, &n, a_key, b_key, retry,
					   errbuf, errlen);
	if (status == SETOPS_GPU_OK)
	{
		*missing = slot->cache_missing;
		if (*missing == 0)
			args->out_count = n;
	}
	release_slot();
	return status;
}

/*
 * Put the n sorted keys of a stored array into the service's cache under
 * key, in pieces of a slot.  Keys out of order are not kept: *unsorted_pos
 * gets the first descent (else -1).  UNAVAILABLE or TOO_LARGE when the
 * cache cannot hold the array.
 */
SetopsGpuStatus
setops_service_cache_put(const SetopsCacheKey *key, const void *keys, int64 n,
						 int64 *unsorted_pos, char *errbuf, size_t errlen)
{
	size_t		ks = setops_key_size(key->key_type);
	int64		per_piece,
				off = 0;
	ServiceSlot *slot;
	SetopsGpuStatus status = SETOPS_GPU_OK;

	*unsorted_pos = -1;
	if (!service_up(errbuf, errlen))
		return SETOPS_GPU_UNAVAILABLE;
	per_piece = (int64) (setops_service->slot_bytes / ks);
	slot = claim_slot();
	do
	{
		int64		m = Min(per_piece, n - off);

		slot->kind = REQ_CACHE_PUT;
		slot->req.put.key = *key;
		slot->req.put.key_type = (SetopsKeyType) key->key_type;
		slot->req.put.offset = off;
		slot->req.put.n = m;
		slot->req.put.total = n;
		slot->req.put.off_keys = 0;
		setops_copy(service_slot_data(slot), (const char *) keys + off * ks, m * ks);
		status = submit_and_wait(slot, errbuf, errlen);
		if (status != SETOPS_GPU_OK)
			break;
		if (slot->unsorted_arg != 0)
			*unsorted_pos = slot->unsorted_pos;
		off += m;
		pg_atomic_write_u32(&slot->state, SLOT_CLAIMED);
		CHECK_FOR_INTERRUPTS();
	} while (off < n);
	release_slot();
	return status;
}

/*
 * A row's keys in a REQ_CACHE_PUT_ROWS slot: each at a multiple of
 * SETOPS_GPU_ROW_ALIGN from the first, so that the service may copy them
 * to the device as they lie (device_cache.c, put_rows_together).
 */
#define ROW_ROOM(bytes) TYPEALIGN(SETOPS_GPU_ROW_ALIGN, (bytes))

/*
 * Put nrows whole stored arrays (cache_keys[i], keys[i], n[i]), whose
 * order the caller checked, into the service's cache: as many as a slot
 * holds a trip, together on one device (REQ_CACHE_PUT_ROWS); an array
 * larger than a slot goes alone, in pieces.  kept[i] says which the cache
 * holds now.
 */
SetopsGpuStatus
setops_service_cache_put_rows(SetopsKeyType key_type, int64 nrows,
							  const SetopsCacheKey *const *cache_keys, const void *const *keys,
							  const int64 *n, bool *kept, char *errbuf, size_t errlen)
{
	size_t		ks = setops_key_size(key_type);
	Size		room;
	int64		i = 0;
	ServiceSlot *slot;
	SetopsGpuStatus status = SETOPS_GPU_OK;

	memset(kept, 0, sizeof(bool) * nrows);
	if (nrows == 0)
		return SETOPS_GPU_OK;
	if (!service_up(errbuf, errlen))
		return SETOPS_GPU_UNAVAILABLE;
	room = setops_service->slot_bytes;
	while (i < nrows && status == SETOPS_GPU_OK)
	{
		Size		need = sizeof(ServiceCachePutRow) + ROW_ROOM(n[i] * ks);
		int64		m = 0,
					j;
		Size		off;
		ServiceCachePutRow *rows;

		if (need > room)
		{
			int64		pos;

			/* (alone, in pieces: the caller checked its order) */
			status = setops_service_cache_put(cache_keys[i], keys[i], n[i], &pos, errbuf, errlen);
			kept[i] = status == SETOPS_GPU_OK && pos < 0;
			if (status == SETOPS_GPU_UNAVAILABLE || status == SETOPS_GPU_TOO_LARGE)
				status = SETOPS_GPU_OK;
			i++;
			continue;
		}
		/* the rows that fit the slot: their headers first, then their keys */
		for (off = 0; i + m < nrows; m++)
		{
			Size		more = sizeof(ServiceCachePutRow) + ROW_ROOM(n[i + m] * ks);

			if (off + more > room)
				break;
			off += more;
		}
		slot = claim_slot();
		slot->kind = REQ_CACHE_PUT_ROWS;
		slot->req.put_rows.key_type = key_type;
		slot->req.put_rows.nrows = m;
		slot->req.put_rows.off_rows = 0;
		rows = (ServiceCachePutRow *) service_slot_data(slot);
		off = MAXALIGN(sizeof(ServiceCachePutRow) * m);
		for (j = 0; j < m; j++)
		{
			rows[j].key = *cache_keys[i + j];
			rows[j].n = n[i + j];
			rows[j].off_keys = off;
			rows[j].kept = false;
			setops_copy(service_slot_data(slot) + off, keys[i + j], n[i + j] * ks);
			off += ROW_ROOM(n[i + j] * ks);
		}
		Assert(off <= room);
		status = submit_and_wait(slot, errbuf, errlen);
		for (j = 0; status == SETOPS_GPU_OK && j < m; j++)
			kept[i + j] = rows[j].kept;
		release_slot();
		i += m;
		CHECK_FOR_INTERRUPTS();
	}
	return status;
}

/*
 * A writer of REQ_CACHE_PUT_ROWS requests whose rows are read straight
 * into the slot (a parallel reader's: one copy of each row fewer than
 * setops_service_cache_put_rows).  The slot, claimed at a request's first
 * room and given back once it is answered, holds the rows' headers first
 * (room for max_rows) and then their keys, each ROW_ROOM apart.
 */
struct SetopsPutWriter
{
	SetopsKeyType type;
	int			max_rows;
	ServiceSlot *slot;
	int64		nrows;			/* rows written and committed */
	Size		keys_at;		/* where the keys begin */
	Size		off;			/* the next row's keys */
	int64		pending;		/* keys of the row given room, not yet committed (-1: none) */
};

SetopsPutWriter *
setops_service_put_writer(SetopsKeyType type, int max_rows)
{
	SetopsPutWriter *w = palloc0(sizeof(SetopsPutWriter));

	w->type = type;
	w->max_rows = max_rows;
	w->keys_at = ROW_ROOM(sizeof(ServiceCachePutRow) * (Size) max_rows);
	w->off = w->keys_at;
	w->pending = -1;
	return w;
}

/* Would a row of n keys fit the request now (or, alone, an empty one)? */
bool
setops_service_put_fits(const SetopsPutWriter *w, int64 n, bool alone)
{
	Size		bytes = ROW_ROOM((Size) n * setops_key_size(w->type));
	Size		off = alone ? w->keys_at : w->off;

	return setops_service != NULL && (alone || w->nrows < w->max_rows) &&
		w->keys_at < setops_service->slot_bytes &&
		bytes <= setops_service->slot_bytes - off;
}

/*
 * Room for the keys of a row of n keys, NULL when it does not fit (send
 * first); the row counts once committed.  Claims the slot, waiting for
 * one like any request.
 */
void *
setops_service_put_room(SetopsPutWriter *w, int64 n)
{
	if (!setops_service_put_fits(w, n, false))
		return NULL;
	if (w->slot == NULL)
		w->slot = claim_slot();
	w->pending = n;
	return service_slot_data(w->slot) + w->off;
}

/* The row given room last is key's, its keys written: one of the request's. */
void
setops_service_put_commit(SetopsPutWriter *w, const SetopsCacheKey *key)
{
	ServiceCachePutRow *row = (ServiceCachePutRow *) service_slot_data(w->slot) + w->nrows;

	Assert(w->pending >= 0 && w->nrows < w->max_rows);
	row->key = *key;
	row->n = w->pending;
	row->off_keys = w->off;
	row->kept = false;
	row->put = false;
	w->off += ROW_ROOM((Size) w->pending * setops_key_size(w->type));
	w->nrows++;
	w->pending = -1;
}

/* The room given last is not used after all. */
void
setops_service_put_drop(SetopsPutWriter *w)
{
	w->pending = -1;
}

int64
setops_service_put_rows_written(const SetopsPutWriter *w)
{
	return w->nrows;
}

/*
 * Send the rows committed (none: nothing to send); kept[i] says which the
 * cache holds now.  The slot is given back.
 */
SetopsGpuStatus
setops_service_put_send(SetopsPutWriter *w, bool *kept, char *errbuf, size_t errlen)
{
	ServiceCachePutRow *rows;
	SetopsGpuStatus status;
	int64		i;

	Assert(w->pending < 0);
	if (w->nrows == 0)
		return SETOPS_GPU_OK;
	memset(kept, 0, sizeof(bool) * w->nrows);
	w->slot->kind = REQ_CACHE_PUT_ROWS;
	w->slot->req.put_rows.key_type = w->type;
	w->slot->req.put_rows.nrows = w->nrows;
	w->slot->req.put_rows.off_rows = 0;
	status = submit_and_wait(w->slot, errbuf, errlen);
	/* (not ours any more when abandoned: the service went away) */
	if (my_slot == w->slot)
	{
		rows = (ServiceCachePutRow *) service_slot_data(w->slot);
		for (i = 0; status == SETOPS_GPU_OK && i < w->nrows; i++)
			kept[i] = rows[i].kept;
		/* (given back: a reader reading its next rows keeps no one else waiting) */
		release_slot();
	}
	w->slot = NULL;
	w->nrows = 0;
	w->off = w->keys_at;
	return status;
}

/* Rows of another key type from now on (none committed). */
void
setops_service_put_retype(SetopsPutWriter *w, SetopsKeyType type)
{
	Assert(w->nrows == 0 && w->pending < 0);
	w->type = type;
}

/*
 * The slot given back (rows committed but not sent are not put); the next
 * room claims one again.
 */
void
setops_service_put_release(SetopsPutWriter *w)
{
	if (w->slot != NULL && w->slot == my_slot)
		release_slot();
	w->slot = NULL;
	w->nrows = 0;
	w->off = w->keys_at;
	w->pending = -1;
}

/* One sort request: keys[0, *n) fit one slot. */
static SetopsGpuStatus
sort_one(SetopsKeyType key_type, void *keys, int64 *n, int distinct,
		 char *errbuf, size_t errlen)
{
	size_t		ks = setops_key_size(key_type);
	ServiceSlot *slot = claim_slot();
	SetopsGpuStatus status;

	slot->kind = REQ_SORT;
	slot->req.sort.key_type = key_type;
	slot->req.sort.n = *n;
	slot->req.sort.distinct = distinct != 0;
	slot->req.sort.off_keys = 0;
	setops_copy(service_slot_data(slot), keys, *n * ks);
	status = submit_and_wait(slot, errbuf, errlen);
	if (status == SETOPS_GPU_OK)
	{
		if (slot->out_count < 0 || slot->out_count > *n)
		{
			snprintf(errbuf, errlen, "internal error: %lld sorted keys of %lld",
					 (long long) slot->out_count, (long long) *n);
			status = SETOPS_GPU_ERROR;
		}
		else
		{
			setops_copy(keys, service_slot_data(slot), slot->out_count * ks);
			*n = slot->out_count;
		}
	}
	release_slot();
	return status;
}

/*
 * Sort (distinct: and keep one copy of each key) in place.  More keys than
 * a slot holds are sorted a slot at a time, and the sorted runs merged
 * pairwise by the service's merge (distinct: union, which keeps one copy of
 * keys present in both), which goes in chunks itself.
 */
SetopsGpuStatus
setops_service_sort(SetopsKeyType key_type, void *keys, int64 *n, int distinct,
					char *errbuf, size_t errlen)
{
	size_t		ks = setops_key_size(key_type);
	int64		per_run,
				nruns,
				i;
	int64	   *start,
			   *len;
	char	   *src = keys,
			   *dst;
	SetopsGpuStatus status = SETOPS_GPU_OK;

	if (!service_up(errbuf, errlen))
		return SETOPS_GPU_UNAVAILABLE;
	if (setops_service_fits(*n * ks))
		return sort_one(key_type, keys, n, distinct, errbuf, errlen);

	per_run = (int64) (setops_service->slot_bytes / ks);
	nruns = (*n + per_run - 1) / per_run;
	start = palloc(nruns * sizeof(int64));
	len = palloc(nruns * sizeof(int64));
	for (i = 0; i < nruns && status == SETOPS_GPU_OK; i++)
	{
		start[i] = i * per_run;
		len[i] = Min(per_run, *n - start[i]);
		status = sort_one(key_type, src + start[i] * ks, &len[i], distinct, errbuf, errlen);
	}
	dst = palloc_extended((*n + SETOPS_CPU_OUTPUT_SLACK) * ks, MCXT_ALLOC_HUGE);
	while (nruns > 1 && status == SETOPS_GPU_OK)
	{
		int64		out = 0,
					m = 0;

		for (i = 0; i < nruns && status == SETOPS_GPU_OK; i += 2)
		{
			if (i + 1 == nruns)
			{
				memmove(dst + out * ks, src + start[i] * ks, len[i] * ks);
				start[m] = out;
				len[m++] = len[i];
				out += len[i];
			}
			else
			{
				SetopsGpuSetopArgs args;

				memset(&args, 0, sizeof(args));
				args.op = distinct ? SETOPS_OP_UNION : SETOPS_OP_MERGE;
				args.key_type = key_type;
				args.a = src + start[i] * ks;
				args.na = len[i];
				args.b = src + start[i + 1] * ks;
				args.nb = len[i + 1];
				args.inputs_distinct = distinct;
				args.out_keys = dst + out * ks;
				status = setops_service_setop(&args, errbuf, errlen);
				if (status == SETOPS_GPU_OK && args.unsorted_arg != 0)
				{
					snprintf(errbuf, errlen, "internal error: a sorted run came back unsorted");
					status = SETOPS_GPU_ERROR;
				}
				start[m] = out;
				len[m++] = args.out_count;
				out += args.out_count;
			}
		}
		nruns = m;
		{
			char	   *t = src;

			src = dst;
			dst = t == (char *) keys ? palloc_extended((*n + SETOPS_CPU_OUTPUT_SLACK) * ks,
													   MCXT_ALLOC_HUGE) : t;
		}
	}
	if (status == SETOPS_GPU_OK)
	{
		if (src != (char *) keys)
			memcpy(keys, src + start[0] * ks, len[0] * ks);
		else if (start[0] != 0)
			memmove(keys, src + start[0] * ks, len[0] * ks);
		*n = len[0];
	}
	return status;
}

/* Fresh device figures (free memory) from the worker. */
void
setops_service_refresh_devices(void)
{
	char		errbuf[SETOPS_GPU_ERRLEN];
	ServiceSlot *slot;

	setops_service_wait_ready();
	if (!service_up(errbuf, sizeof(errbuf)))
		return;
	slot = claim_slot();
	slot->kind = REQ_DEVICES;
	(void) submit_and_wait(slot, errbuf, sizeof(errbuf));
	release_slot();
}

/* Each cache's figures (stats: SETOPS_MAX_DEVICES of them); how many. */
int
setops_service_cache_stats(SetopsCacheStats *stats)
{
	int			n = 0;

	if (setops_service == NULL)
		return 0;
	SpinLockAcquire(&setops_service->mutex);
	if (setops_service->ready)
	{
		n = setops_service->ncaches;
		memcpy(stats, setops_service->cache, sizeof(stats[0]) * n);
	}
	SpinLockRelease(&setops_service->mutex);
	return n;
}

/* Each device's share of the work (stats: SETOPS_MAX_DEVICES of them); how many. */
int
setops_service_load_stats(SetopsServiceStats *stats)
{
	int			n = 0,
				d;

	if (setops_service == NULL)
		return 0;
	if (service_live(NULL))
		n = setops_service->ndevices;
	for (d = 0; d < n; d++)
	{
		ServiceDeviceStats *l = &setops_service->load[d];

		stats[d].streams = setops_service->streams;
		stats[d].queued = (int) pg_atomic_read_u32(&l->queued);
		stats[d].requests = (int64) pg_atomic_read_u64(&l->requests);
		stats[d].launches = (int64) pg_atomic_read_u64(&l->launches);
		stats[d].batched = (int64) pg_atomic_read_u64(&l->batched);
		stats[d].wait_ms = pg_atomic_read_u64(&l->wait_us) / 1000.0;
		stats[d].run_ms = pg_atomic_read_u64(&l->run_us) / 1000.0;
		stats[d].copies = (int64) pg_atomic_read_u64(&l->copies);
		stats[d].dispatch_ms = pg_atomic_read_u64(&setops_service->dispatch_us) / 1000.0;
		stats[d].request_cpu_ms = setops_service_request_cpu_ms();
	}
	return n;
}

/*
 * For the tests: the emulated device fails the next failures operations
 * on device (a launch, a shared trip of counts, a batch), each as a GPU
 * fault would, from the worker's threads; kind "any", "shared" (only
 * shared trips of two or more counts take them) or "reset" (the device is
 * reset too, its memory lost); failures -1 leaves them as they are.
 * Returns the number left before.  ERRORs without an emulated service: a
 * GPU is never made to fail.
 */
int
setops_service_inject_faults(int device, int failures, const char *kind)
{
	uint32		k = SERVICE_FAULT_ANY;
	pg_atomic_uint32 *left;

	if (setops_service == NULL || !setops_service_emulate)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("setops_test_service_faults: only the emulated GPU service (setops.service_emulate) takes injected faults")));
	if (device < 0 || device >= SERVICE_MAX_DEVICES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("setops_test_service_faults: device %d is not between 0 and %d",
						device, SERVICE_MAX_DEVICES - 1)));
	if (strcmp(kind, "shared") == 0)
		k = SERVICE_FAULT_SHARED;
	else if (strcmp(kind, "reset") == 0)
		k = SERVICE_FAULT_RESET;
	else if (strcmp(kind, "any") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("setops_test_service_faults: kind \"%s\" is not any, shared or reset", kind)));
	left = &setops_service->load[device].injected_faults;
	if (failures < 0)
		return (int) pg_atomic_read_u32(left);
	pg_atomic_write_u32(&setops_service->load[device].injected_kind, k);
	return (int) pg_atomic_exchange_u32(left, (uint32) failures);
}
