/*
 * worker.c
 *	  The GPU service's shared memory and its background worker.
 *
 * Registered only from shared_preload_libraries.  The worker is the one
 * process of the cluster with a CUDA context; it is started after the
 * postmaster forks it (never in the postmaster itself) and restarted by the
 * postmaster a second after it exits.  Each start bumps the generation, so
 * backends waiting on a request of an earlier worker get a clean error
 * instead of waiting forever, and the new worker fails what the old one
 * left half done.
 *
 * The main thread takes requests in slot order starting after the last one
 * taken (no slot starves).  Operations go to executor threads
 * (worker_exec.c), several a device side by side, on the device that holds
 * their cached arguments and has the least to do; the other kinds (cache
 * puts, sorts, batches, staged reductions) and operations split over every
 * device are served by the main thread itself.  A request whose backend
 * stopped waiting (cancel, timeout, exit) is dropped at the next chunk
 * boundary of the GPU work and its slot freed.
 *
 * The worker serves with one device (device_ops.h), chosen at start: the
 * GPUs, or with setops.service_emulate and none the CPU engine standing in
 * for one.  Each request kind has its handler (handlers[] below).
 */
#include "postgres.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "port/pg_bitutils.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "setops.h"
#include "service/worker.h"
#include "service/device_ops.h"
#include "engine/cpu/engine.h"
#include "engine/common/clock_ms.h"

ServiceShared *setops_service = NULL;

int			setops_service_memory_mb = 1024;
char	   *setops_device_weights = NULL;
int			setops_service_slots = -1;
bool		setops_service_emulate = false;
int			setops_service_emulate_devices = 1;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* free memory of each device when the service started: the default weights */
static int64 start_free[SERVICE_MAX_DEVICES];

/* what this worker serves with: chosen at start, see the file's header */
const DeviceOps *service_device = &setops_gpu_device;

/* the slot this thread serves, for the interrupt callback */
__thread ServiceSlot *service_serving = NULL;

/* setops.service_slots, or with -1 one for every 16 MB of the arena (8 to 64) */
static int
slot_count(void)
{
	if (setops_service_slots > 0)
		return setops_service_slots;
	return Min(Max(setops_service_memory_mb / 16, 8), 64);
}

static Size
control_bytes(void)
{
	return TYPEALIGN(8192, offsetof(ServiceShared, slots) +
					 sizeof(ServiceSlot) * slot_count());
}

static Size
arena_bytes(void)
{
	return (Size) setops_service_memory_mb * 1024 * 1024;
}

static void
service_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	/* one page of slack to page-align the arena */
	RequestAddinShmemSpace(control_bytes() + arena_bytes() + 8192);
}

static void
service_shmem_startup(void)
{
	bool		found;
	Size		slot_bytes;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	setops_service = ShmemInitStruct("setops GPU service",
									 control_bytes() + arena_bytes() + 8192, &found);
	if (!found)
	{
		int			i;

		memset(setops_service, 0, offsetof(ServiceShared, slots));
		SpinLockInit(&setops_service->mutex);
		ConditionVariableInit(&setops_service->slot_freed);
		pg_atomic_init_u32(&setops_service->slot_waiters, 0);
		pg_atomic_init_u32(&setops_service->nstreams, 0);
		pg_atomic_init_u64(&setops_service->live, 0);
		pg_atomic_init_u32(&setops_service->caching, 0);
		pg_atomic_init_u64(&setops_service->dispatch_us, 0);
		pg_atomic_init_u64(&setops_service->exec_cpu_ns, 0);
		pg_atomic_init_u64(&setops_service->request_cpu_ns, 0);
		for (i = 0; i < SERVICE_MAX_DEVICES; i++)
		{
			ServiceDeviceStats *d = &setops_service->load[i];

			pg_atomic_init_u32(&d->queued, 0);
			pg_atomic_init_u64(&d->requests, 0);
			pg_atomic_init_u64(&d->launches, 0);
			pg_atomic_init_u64(&d->batched, 0);
			pg_atomic_init_u64(&d->wait_us, 0);
			pg_atomic_init_u64(&d->run_us, 0);
			pg_atomic_init_u64(&d->copies, 0);
			pg_atomic_init_u32(&d->injected_faults, 0);
			pg_atomic_init_u32(&d->injected_kind, SERVICE_FAULT_ANY);
		}
		setops_service->nslots = slot_count();
		/* slots of whole pages, each aligned for any key or value */
		slot_bytes = (arena_bytes() / setops_service->nslots) & ~(Size) 8191;
		setops_service->slot_bytes = slot_bytes;
		setops_service->arena = (char *) TYPEALIGN(8192, (char *) setops_service + control_bytes());
		snprintf(setops_service->unavailable, sizeof(setops_service->unavailable),
				 "the setops GPU service has not started yet");
		for (i = 0; i < setops_service->nslots; i++)
		{
			ServiceSlot *slot = &setops_service->slots[i];

			memset(slot, 0, sizeof(*slot));
			pg_atomic_init_u32(&slot->state, SLOT_FREE);
			slot->span = 1;
			pg_atomic_init_u32(&slot->abandoned, 0);
		}
	}
	LWLockRelease(AddinShmemInitLock);
}

void
setops_service_register(void)
{
	BackgroundWorker worker;

	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = service_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = service_shmem_startup;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	worker.bgw_start_time = BgWorkerStart_PostmasterStart;
	worker.bgw_restart_time = 1;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "setops");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "setops_service_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "setops GPU service");
	snprintf(worker.bgw_type, BGW_MAXLEN, "setops GPU service");
	RegisterBackgroundWorker(&worker);
}

/* GPU work asks between chunks whether to go on. */
static int
serving_abandoned(void)
{
	return (service_serving != NULL && pg_atomic_read_u32(&service_serving->abandoned) != 0) ||
		ShutdownRequestPending;
}

/*
 * The CPU engine's long loops, when it is the device here: stop work
 * whose backend gave up, as the GPU's chunks do.  The ERROR fails only the
 * request (serve_slots catches it), and its stage is freed.
 */
static void
serving_cpu_interrupts(void)
{
	/* (an executor thread cannot raise an ERROR: its request runs to the end) */
	if (service_exec_thread())
		return;
	CHECK_FOR_INTERRUPTS();
	if (serving_abandoned())
		ereport(ERROR,
				(errcode(ERRCODE_QUERY_CANCELED),
				 errmsg("setops GPU service: request abandoned by its backend")));
}

static void
publish_devices(void)
{
	char		errbuf[SETOPS_GPU_ERRLEN];
	SetopsGpuDeviceInfo infos[SERVICE_MAX_DEVICES];
	int			n = service_device->count(errbuf, sizeof(errbuf));
	int			i,
				got = 0;

	for (i = 0; i < n && got < SERVICE_MAX_DEVICES; i++)
		if (service_device->info(i, &infos[got], errbuf, sizeof(errbuf)) == SETOPS_GPU_OK)
			got++;
	SpinLockAcquire(&setops_service->mutex);
	setops_service->ndevices = got;
	memcpy(setops_service->devices, infos, sizeof(infos[0]) * got);
	if (got == 0)
		strlcpy(setops_service->unavailable, errbuf, sizeof(setops_service->unavailable));
	SpinLockRelease(&setops_service->mutex);
	for (i = 0; i < got; i++)
		if (start_free[i] == 0)
			start_free[i] = infos[i].free_memory;
}

/*
 * Each device's weight: setops.device_weights ("2,1"; missing or bad
 * entries count 1, with a LOG), or its free memory at service start.
 */
void
service_device_weights(double *weights, int ndevices)
{
	const char *p = setops_device_weights;
	int			d;

	for (d = 0; d < ndevices; d++)
		weights[d] = start_free[d] > 0 ? (double) start_free[d] : 1.0;
	if (p == NULL || *p == '\0')
		return;
	for (d = 0; d < ndevices; d++)
	{
		char	   *end;
		double		w = strtod(p, &end);

		if (end == p || w <= 0)
		{
			static char *warned = NULL;

			/* once per value of the setting */
			if (warned == NULL || strcmp(warned, setops_device_weights) != 0)
			{
				ereport(LOG,
						(errmsg("setops GPU service: setops.device_weights \"%s\": device %d gets weight 1",
								setops_device_weights, d)));
				if (warned)
					pfree(warned);
				warned = MemoryContextStrdup(TopMemoryContext, setops_device_weights);
			}
			w = 1;
		}
		weights[d] = w;
		p = end;
		while (*p == ',' || *p == ' ')
			p++;
	}
}

int			setops_service_split_min_elements = 4 << 20;

/* set by handle_setop when an executor answers the request, not the handler */
static bool request_in_flight = false;

/* the device choose_device chose last */
static int	last_device = -1;

/*
 * The device for an operation: among those holding its cached arguments
 * (any, for arguments in the arena), the one with the fewest jobs queued
 * or running.  Two cached arguments held by no device together meet on a
 * device of the larger one (the smaller is copied over, once: the copy
 * stays in the cache).  Where those devices are all busy and another has
 * nothing to do, that one takes it and the arguments are copied there: a
 * hot array ends up on every device that serves it.
 *
 * With nothing queued or running on any device, the device chosen last
 * takes it, copying there the arguments it lacks when they were held
 * before and fit without evicting (service_cache_can_gather): one
 * session's calls stay on one device whose threads are still polling,
 * rather than alternate between devices where the cache spread their
 * arrays (on 2x H200, two stored 16M-key pairs counted in turns took
 * 0.123-0.131 ms a call on one device, 0.134-0.135 alternating).
 */
static int
choose_device(const ServiceCacheRef *a, const ServiceCacheRef *b)
{
	int			ndev = setops_service->ndevices;
	uint32		all = ndev >= 32 ? ~0u : (1u << ndev) - 1,
				holds_a = a ? a->devices : all,
				holds_b = b ? b->devices : all,
				candidates = holds_a & holds_b;
	int			best = -1,
				best_load = INT_MAX,
				busy = 0,
				d;

	for (d = 0; d < ndev; d++)
		busy += service_exec_load(d);
	if (busy == 0 && last_device >= 0 && last_device < ndev &&
		((candidates & (1u << last_device)) || service_cache_can_gather(a, b, last_device)))
		return last_device;
	if (candidates == 0)
		candidates = a->n >= b->n ? holds_a : holds_b;
	for (d = 0; d < ndev; d++)
		if ((candidates & (1u << d)) && service_exec_load(d) < best_load)
		{
			best = d;
			best_load = service_exec_load(d);
		}
	if (best_load >= setops_service_streams)
		for (d = 0; d < ndev; d++)
			if (service_exec_load(d) == 0)
				return last_device = d;
	return last_device = best;
}

/*
 * The handlers, one per request kind: each answers in the slot (status,
 * errmsg and the kind's results).
 */

/*
 * An operation: cached arguments looked up (the answer may be which are
 * missing), the device chosen, and the operation handed to its executors
 * (request_in_flight), with the cached keys it reads held until it is
 * done.  A large operation on keys in the arena is split over every device
 * here instead, and a large count of cached arrays over every idle device
 * (worker_split.c).
 */
static SetopsGpuStatus
handle_setop(ServiceSlot *slot, int slot_index, char *errbuf, size_t errlen)
{
	ServiceSetopRequest *r = &slot->req.setop;
	char	   *base = service_slot_data(slot);
	SetopsGpuStatus status = SETOPS_GPU_OK;
	ServiceCacheRef a_ref,
				b_ref;
	bool		count = !r->cache_retry;
	SetopsGpuSetopArgs args;
	ServiceJob *job;

	slot->cache_missing = 0;
	if (r->a_cached && !service_cache_lookup(&r->a_key, count, &a_ref))
		slot->cache_missing |= CACHE_MISSING_A;
	if (r->b_cached && !service_cache_lookup(&r->b_key, count, &b_ref))
		slot->cache_missing |= CACHE_MISSING_B;
	if (slot->cache_missing)
	{
		/* the one sent next goes where its partner is */
		if (slot->cache_missing == CACHE_MISSING_A && r->b_cached)
			service_cache_hint(&r->a_key, pg_rightmost_one_pos32(b_ref.devices));
		if (slot->cache_missing == CACHE_MISSING_B && r->a_cached)
			service_cache_hint(&r->b_key, pg_rightmost_one_pos32(a_ref.devices));
		return SETOPS_GPU_OK;
	}

	/* the request, bound to this slot's arena */
	args = r->args;
	if (r->a_cached)
		args.na = a_ref.n;
	else if (r->a_packed)
		args.a_packed = base + r->off_a;
	else
		args.a = base + r->off_a;
	if (r->b_cached)
		args.nb = b_ref.n;
	else if (r->b_packed)
		args.b_packed = base + r->off_b;
	else
		args.b = base + r->off_b;
	args.out_keys = base + r->off_out;
	if (args.val_stride > 0)
	{
		args.a_vals = base + r->off_a_vals;
		args.b_vals = base + r->off_b_vals;
		args.out_vals = base + r->off_out_vals;
	}
	if (r->want_packed)
		args.out_packed = base + r->off_out;

	if (setops_service->ndevices > 1 && setops_service_split_min_elements > 0 &&
		args.na + args.nb >= setops_service_split_min_elements && args.a && args.b &&
		!args.a_vals && !args.out_packed)
	{
		int			devices[SERVICE_MAX_DEVICES];
		double		weights[SERVICE_MAX_DEVICES];
		int			d;

		for (d = 0; d < setops_service->ndevices; d++)
			devices[d] = d;
		service_device_weights(weights, setops_service->ndevices);
		status = service_device->setop_devices(&args, setops_service->ndevices, devices, weights,
											   errbuf, errlen);
		r->args = args;
		service_args_unbind(&r->args);
		return status;
	}

	/* a large count of cached arrays, with every device idle: a part on each */
	if (r->a_cached && r->b_cached && args.count_mode != SETOPS_GPU_COUNT_NONE &&
		service_split_count(slot_index, &args, &a_ref, &b_ref, errbuf, errlen))
	{
		request_in_flight = true;
		return SETOPS_GPU_OK;
	}

	/* on its device, the cached keys held there, by an executor */
	job = service_exec_job(slot_index);
	service_exec_bind(job, choose_device(r->a_cached ? &a_ref : NULL, r->b_cached ? &b_ref : NULL));
	/* (an ERROR while holding, a copy between devices stopped, say, drops the job and its holds) */
	PG_TRY();
	{
		status = service_cache_hold_pair(r->a_cached ? &a_ref : NULL, r->b_cached ? &b_ref : NULL,
										 job->device, job->holds, &args.a_dev, &args.b_dev,
										 errbuf, errlen);
	}
	PG_CATCH();
	{
		service_exec_drop(job);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (status != SETOPS_GPU_OK)
	{
		service_exec_drop(job);
		return status;
	}
	job->args = args;
	request_in_flight = true;
	service_exec_submit(job);
	return SETOPS_GPU_OK;
}

static SetopsGpuStatus
handle_sort(ServiceSlot *slot, int slot_index, char *errbuf, size_t errlen)
{
	const ServiceSortRequest *r = &slot->req.sort;
	int64_t		n = r->n;
	SetopsGpuStatus status = service_device->use(0, errbuf, errlen);

	if (status == SETOPS_GPU_OK)
		status = service_device->sort(r->key_type, service_slot_data(slot) + r->off_keys, &n,
									  r->distinct, errbuf, errlen);
	slot->out_count = n;
	return status;
}

static SetopsGpuStatus
handle_devices(ServiceSlot *slot, int slot_index, char *errbuf, size_t errlen)
{
	publish_devices();
	return SETOPS_GPU_OK;
}

typedef SetopsGpuStatus (*RequestHandler) (ServiceSlot *slot, int slot_index,
										   char *errbuf, size_t errlen);

static const RequestHandler handlers[] = {
	[REQ_SETOP] = handle_setop,
	[REQ_SORT] = handle_sort,
	[REQ_DEVICES] = handle_devices,
	[REQ_CACHE_PUT] = service_cache_put,
	[REQ_BATCH] = service_run_batch,
	[REQ_STAGE_PUT] = service_stage_request,
	[REQ_REDUCE] = service_stage_request,
	[REQ_STAGE_GET] = service_stage_request,
	[REQ_COUNT_BATCH] = service_run_batch,
	[REQ_CACHE_PUT_ROWS] = service_cache_put_rows,
};

static void
run_request(ServiceSlot *slot, int slot_index)
{
	char		errbuf[SETOPS_GPU_ERRLEN] = "";
	SetopsGpuStatus status = SETOPS_GPU_ERROR;

	slot->out_count = 0;
	slot->unsorted_arg = 0;
	slot->unsorted_pos = -1;
	slot->cache_missing = 0;
	slot->ms_upload = slot->ms_decode = slot->ms_kernel = slot->ms_download = slot->ms_encode = 0;
	slot->out_packed_size = 0;

	/* a slot's pending cache put and stage end when it serves anything else */
	if (slot->kind != REQ_CACHE_PUT)
		service_cache_slot_done(slot_index);
	if (slot->kind != REQ_STAGE_PUT && slot->kind != REQ_REDUCE && slot->kind != REQ_STAGE_GET)
		service_stage_done(slot_index);
	if ((int) slot->kind >= 0 && (int) slot->kind < (int) lengthof(handlers) &&
		handlers[slot->kind] != NULL)
		status = handlers[slot->kind] (slot, slot_index, errbuf, sizeof(errbuf));
	else
		snprintf(errbuf, sizeof(errbuf), "internal error: request kind %d", (int) slot->kind);
	/*
	 * (a request in flight is answered by the executor that runs it, maybe
	 * already: writing here could turn its ERROR into OK)
	 */
	if (!request_in_flight)
	{
		slot->status = status;
		strlcpy(slot->errmsg, errbuf, sizeof(slot->errmsg));
	}
}

/*
 * After a device fault some drivers refuse this process a new context
 * until it exits: then exit, and let the postmaster start a worker with a
 * fresh one (the request that faulted has had its error already).
 */
static void
gpu_still_usable(void)
{
	char		errbuf[SETOPS_GPU_ERRLEN];

	if (setops_service->ndevices > 0 && service_device->count(errbuf, sizeof(errbuf)) == 0)
	{
		ereport(LOG,
				(errmsg("setops GPU service: restarting for a new GPU context: %s", errbuf)));
		proc_exit(1);
	}
}

/*
 * A request is answered (by this thread or an executor): hand the slot
 * back to its backend, or free it if the backend gave up.  The backend may give up at any moment
 * (abandon_slot: it sets abandoned, then frees the slot if it finds it
 * DONE): each side writes, then reads the other's flag behind a full
 * barrier, so at least one of the two sees that it must free the slot,
 * and the compare-and-exchange lets only one do it.
 */
uint32
service_hand_back(ServiceSlot *slot)
{
	uint32		state = SLOT_RUNNING;

	pg_write_barrier();
	if (pg_atomic_read_u32(&slot->abandoned) == 0)
	{
		pg_atomic_write_u32(&slot->state, SLOT_DONE);
		state = SLOT_DONE;
		pg_memory_barrier();
		SetLatch(slot->owner_latch);
	}
	return pg_atomic_read_u32(&slot->abandoned) != 0 ? state : SLOT_FREE;
}

/*
 * service_hand_back returns SLOT_FREE, or the state to free the slot from
 * (compare-and-exchange) when its backend gave up: executors do that
 * themselves, and the main thread wakes the backends waiting for a slot.
 */
static void
finish_slot(ServiceSlot *slot, int slot_index)
{
	uint32		state = service_hand_back(slot);

	if (state != SLOT_FREE)
	{
		/* nobody will read what it left; nobody can claim it before it is free */
		service_cache_slot_done(slot_index);
		service_stage_done(slot_index);
		if (service_free_from(slot, state))
			service_wake_slot_waiters();
	}
}

/*
 * The main thread's CPU time on every REQUEST_CPU_EVERY-th request it hands
 * on (a thread's CPU clock is a system call: as long as handing a small
 * request on), for request_cpu_ns.
 */
#define REQUEST_CPU_EVERY 16
#define REQUEST_CPU_PUBLISH_MS 100
static uint64 requests_served = 0;
static uint64 requests_sampled = 0;
static uint64 sampled_cpu_ns = 0;

/*
 * What a request costs the service's threads in CPU time, published at
 * most every REQUEST_CPU_PUBLISH_MS (a moving average over the intervals
 * that served requests): the main thread's share, sampled, and the
 * executors' CPU time over the requests served.  (The executors' counter
 * outlives a worker: a new one starts from where it finds it.)
 */
static void
publish_request_cpu(void)
{
	static double last_ms = 0;
	static uint64 last_served = 0,
				last_sampled = 0,
				last_sampled_ns = 0,
				last_exec_ns = 0;
	double		now = setops_clock_ms(),
				per_ns,
				old;
	uint64		exec_ns;

	if (now - last_ms < REQUEST_CPU_PUBLISH_MS)
		return;
	exec_ns = pg_atomic_read_u64(&setops_service->exec_cpu_ns);
	if (last_ms > 0 && requests_sampled > last_sampled && requests_served > last_served)
	{
		per_ns = (double) (sampled_cpu_ns - last_sampled_ns) / (requests_sampled - last_sampled) +
			(double) (exec_ns - last_exec_ns) / (requests_served - last_served);
		old = (double) pg_atomic_read_u64(&setops_service->request_cpu_ns);
		per_ns = old == 0 ? per_ns : old + 0.3 * (per_ns - old);
		pg_atomic_write_u64(&setops_service->request_cpu_ns, (uint64) Min(per_ns, 1e15));
	}
	last_ms = now;
	last_served = requests_served;
	last_sampled = requests_sampled;
	last_sampled_ns = sampled_cpu_ns;
	last_exec_ns = exec_ns;
}

/* Serve every submitted slot once, starting after the last one served. */
static void
serve_slots(int *next)
{
	int			start = *next,
				k;
	double		t0;
	bool		sample;
	unsigned long long cpu0;

	if (service_exec_reap())
		gpu_still_usable();
	service_stage_sweep();
	/* (from where the last round stopped: *next moves as slots are served) */
	for (k = 0; k < setops_service->nslots; k++)
	{
		int			i = (start + k) % setops_service->nslots;
		ServiceSlot *slot = &setops_service->slots[i];

		if (pg_atomic_read_u32(&slot->state) != SLOT_SUBMITTED)
			continue;
		pg_read_barrier();
		pg_atomic_write_u32(&slot->state, SLOT_RUNNING);
		t0 = setops_clock_ms();
		sample = requests_served++ % REQUEST_CPU_EVERY == 0;
		cpu0 = sample ? setops_thread_cpu_ns() : 0;
		if (pg_atomic_read_u32(&slot->abandoned) == 0)
		{
			MemoryContext cxt = AllocSetContextCreate(TopMemoryContext, "setops request",
													  ALLOCSET_DEFAULT_SIZES);
			MemoryContext old = MemoryContextSwitchTo(cxt);

			/* an ERROR (out of memory, say) fails the request, not the service */
			service_serving = slot;
			request_in_flight = false;
			PG_TRY();
			{
				run_request(slot, i);
			}
			PG_CATCH();
			{
				ErrorData  *edata;

				MemoryContextSwitchTo(cxt);
				edata = CopyErrorData();
				FlushErrorState();
				/* a reduction that failed half-way keeps nothing */
				if (slot->kind == REQ_STAGE_PUT || slot->kind == REQ_REDUCE ||
					slot->kind == REQ_STAGE_GET)
					service_stage_done(i);
				slot->status = SETOPS_GPU_ERROR;
				strlcpy(slot->errmsg, edata->message, sizeof(slot->errmsg));
				request_in_flight = false;
			}
			PG_END_TRY();
			service_serving = NULL;
			MemoryContextSwitchTo(old);
			MemoryContextDelete(cxt);
		}
		*next = (i + 1) % setops_service->nslots;
		/* (an executor answers a request in flight) */
		if (!request_in_flight)
			finish_slot(slot, i);
		request_in_flight = false;
		pg_atomic_fetch_add_u64(&setops_service->dispatch_us,
								(uint64) ((setops_clock_ms() - t0) * 1000));
		if (sample)
		{
			unsigned long long cpu1 = setops_thread_cpu_ns();

			/* (0 where the clock could not be read) */
			sampled_cpu_ns += cpu1 > cpu0 ? cpu1 - cpu0 : 0;
			requests_sampled++;
		}
		CHECK_FOR_INTERRUPTS();
		gpu_still_usable();
	}
}

/* However the worker exits, backends stop waiting for it. */
static void
service_exit(int code, Datum arg)
{
	SpinLockAcquire(&setops_service->mutex);
	setops_service->ready = false;
	service_set_live();
	setops_service->worker_pid = 0;
	setops_service->worker_latch = NULL;
	snprintf(setops_service->unavailable, sizeof(setops_service->unavailable),
			 "the setops GPU service is restarting");
	SpinLockRelease(&setops_service->mutex);
}

void
setops_service_main(Datum arg)
{
	char		errbuf[SETOPS_GPU_ERRLEN];
	int			next = 0,
				i;

	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();

	if (setops_service == NULL)
		elog(FATAL, "setops GPU service: shared memory not set up (not preloaded?)");

	before_shmem_exit(service_exit, (Datum) 0);

	/* the only CUDA context of the cluster, and the pinned arena */
	setops_gpu_set_wait((SetopsGpuWait) setops_service_gpu_wait);
	if (setops_service_emulate && setops_gpu_device.count(errbuf, sizeof(errbuf)) == 0)
		service_device = &setops_emulated_device;
	service_device->set_interrupt_callback(serving_abandoned);
	setops_cpu_set_interrupt_hook(serving_cpu_interrupts);
	publish_devices();
	if (setops_service->ndevices > 0 &&
		service_device->register_host(setops_service->arena,
								 setops_service->slot_bytes * setops_service->nslots,
								 errbuf, sizeof(errbuf)) != SETOPS_GPU_OK)
		ereport(LOG,
				(errmsg("setops GPU service: transfers go through staging: %s", errbuf)));

	service_cache_init();
	service_stage_init();
	/* (jobs an earlier worker left unanswered are no device's load now) */
	for (i = 0; i < SERVICE_MAX_DEVICES; i++)
		pg_atomic_write_u32(&setops_service->load[i].queued, 0);
	service_exec_start();

	SpinLockAcquire(&setops_service->mutex);
	setops_service->generation++;
	setops_service->worker_pid = MyProcPid;
	setops_service->worker_latch = MyLatch;
	setops_service->ready = true;
	pg_write_barrier();
	service_set_live();
	SpinLockRelease(&setops_service->mutex);

	/* what an earlier worker left: fail it, so nobody waits forever */
	for (i = 0; i < setops_service->nslots; i++)
	{
		ServiceSlot *slot = &setops_service->slots[i];
		uint32		state = pg_atomic_read_u32(&slot->state);

		if (state == SLOT_SUBMITTED || state == SLOT_RUNNING)
		{
			slot->status = SETOPS_GPU_ERROR;
			strlcpy(slot->errmsg, "the setops GPU service restarted", sizeof(slot->errmsg));
			pg_atomic_write_u32(&slot->state, SLOT_RUNNING);
			finish_slot(slot, i);
		}
	}
	ereport(LOG,
			(errmsg("setops GPU service started: %d device(s)%s%s", setops_service->ndevices,
					setops_service->ndevices ? "" : ", ",
					setops_service->ndevices ? "" : setops_service->unavailable)));

	while (!ShutdownRequestPending)
	{
		ResetLatch(MyLatch);
		serve_slots(&next);
		publish_request_cpu();
		/* (backends set the latch when they submit: polled, no signal is sent) */
		if (!service_poll(NULL, &MyLatch->is_set))
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 1000L, PG_WAIT_EXTENSION);
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			service_cache_configure();
		}
	}

	proc_exit(1);				/* 1: the postmaster starts it again */
}
