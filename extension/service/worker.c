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
 * Requests are served one at a time, in slot order starting after the last
 * one served (no slot starves).  A request whose backend stopped waiting
 * (cancel, timeout, exit) is dropped at the next chunk boundary of the GPU
 * work and its slot freed.
 *
 * The worker serves with one device (device_ops.h), chosen at start: the
 * GPUs, or with setops.service_emulate and none the CPU engine standing in
 * for one.  Each request kind has its handler (handlers[] below).
 */
#include "postgres.h"

#include "miscadmin.h"
#include "pgstat.h"
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

ServiceShared *setops_service = NULL;

int			setops_service_memory_mb = 1024;
char	   *setops_device_weights = NULL;
int			setops_service_slots = 8;
bool		setops_service_emulate = false;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* free memory of each device when the service started: the default weights */
static int64 start_free[SERVICE_MAX_DEVICES];

/* what this worker serves with: chosen at start, see the file's header */
const DeviceOps *service_device = &setops_gpu_device;

/* the slot being served, for the interrupt callback */
static ServiceSlot *serving = NULL;

static Size
control_bytes(void)
{
	return TYPEALIGN(8192, offsetof(ServiceShared, slots) +
					 sizeof(ServiceSlot) * setops_service_slots);
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
		pg_atomic_init_u32(&setops_service->nstreams, 0);
		setops_service->nslots = setops_service_slots;
		/* slots of whole pages, each aligned for any key or value */
		slot_bytes = (arena_bytes() / setops_service_slots) & ~(Size) 8191;
		setops_service->slot_bytes = slot_bytes;
		setops_service->arena = (char *) TYPEALIGN(8192, (char *) setops_service + control_bytes());
		snprintf(setops_service->unavailable, sizeof(setops_service->unavailable),
				 "the setops GPU service has not started yet");
		for (i = 0; i < setops_service->nslots; i++)
		{
			ServiceSlot *slot = &setops_service->slots[i];

			memset(slot, 0, sizeof(*slot));
			pg_atomic_init_u32(&slot->state, SLOT_FREE);
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
	return (serving != NULL && pg_atomic_read_u32(&serving->abandoned) != 0) ||
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

/*
 * Cached arguments: their keys from the cache, or the answer says which
 * are missing (the backend sends them and asks again).
 */
static bool
resolve_cached(ServiceSlot *slot, const ServiceSetopRequest *r, const void **a, int64 *na, int *a_device,
			   const void **b, int64 *nb, int *b_device)
{
	bool		count = !r->cache_retry;

	*a = *b = NULL;
	*na = r->args.na;
	*nb = r->args.nb;
	slot->cache_missing = 0;
	if (r->a_cached && !service_cache_lookup(&r->a_key, count, na, a, a_device))
		slot->cache_missing |= CACHE_MISSING_A;
	if (r->b_cached && !service_cache_lookup(&r->b_key, count, nb, b, b_device))
		slot->cache_missing |= CACHE_MISSING_B;
	return slot->cache_missing == 0;
}

/* Plain operations from this many input keys on split over all devices. */
#define SPLIT_MIN_KEYS ((int64) 4 << 20)

/*
 * The operation in args on the GPU(s): split over every device when it is
 * large, plain keys and there are several; else on device (its cached
 * arguments' device, or 0).
 */
static SetopsGpuStatus
run_setop_on_devices(SetopsGpuSetopArgs *args, int device, char *errbuf, size_t errlen)
{
	int			ndev = setops_service->ndevices;
	SetopsGpuStatus status;

	if (ndev > 1 && args->na + args->nb >= SPLIT_MIN_KEYS && args->a && args->b &&
		!args->a_vals && !args->out_packed)
	{
		int			devices[SERVICE_MAX_DEVICES];
		double		weights[SERVICE_MAX_DEVICES];
		int			d;

		for (d = 0; d < ndev; d++)
			devices[d] = d;
		service_device_weights(weights, ndev);
		return service_device->setop_devices(args, ndev, devices, weights, errbuf, errlen);
	}
	status = service_device->use(device, errbuf, errlen);
	if (status != SETOPS_GPU_OK)
		return status;
	return service_device->setop(args, errbuf, errlen);
}

/*
 * The handlers, one per request kind: each answers in the slot (status,
 * errmsg and the kind's results).
 */
static SetopsGpuStatus
handle_setop(ServiceSlot *slot, int slot_index, char *errbuf, size_t errlen)
{
	ServiceSetopRequest *r = &slot->req.setop;
	char	   *base = service_slot_data(slot);
	SetopsGpuStatus status = SETOPS_GPU_OK;
	const void *a_dev = NULL,
			   *b_dev = NULL;
	int			a_device = 0,
				b_device = 0;
	void	   *b_copy = NULL;	/* b's cached keys copied to a's device */
	int64		na,
				nb;
	SetopsGpuSetopArgs args;

	/* cached arguments: the answer may be which are missing */
	if ((r->a_cached || r->b_cached) &&
		!resolve_cached(slot, r, &a_dev, &na, &a_device, &b_dev, &nb, &b_device))
		return SETOPS_GPU_OK;

	/* the request, bound to this slot's arena and the cache's keys */
	args = r->args;
	if (r->a_cached || r->b_cached)
	{
		args.na = na;
		args.nb = nb;
	}
	args.a_dev = a_dev;
	args.b_dev = b_dev;
	if (a_dev)
		 /* in the cache */ ;
	else if (r->a_packed)
		args.a_packed = base + r->off_a;
	else
		args.a = base + r->off_a;
	if (b_dev)
		 /* in the cache */ ;
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
	/* cached arguments on two devices: b's keys come over to a's */
	if (a_dev && b_dev && a_device != b_device)
	{
		size_t		bytes = (size_t) args.nb * setops_key_size(args.key_type);

		status = service_device->use(a_device, errbuf, errlen);
		if (status == SETOPS_GPU_OK)
			status = service_device->buffer_alloc(bytes, &b_copy, errbuf, errlen);
		if (status == SETOPS_GPU_OK)
			status = service_device->buffer_copy_peer(b_copy, a_device, b_dev, b_device, bytes,
													  errbuf, errlen);
		args.b_dev = b_copy;
	}
	if (status == SETOPS_GPU_OK)
		status = run_setop_on_devices(&args, a_dev ? a_device : b_dev ? b_device : 0,
									  errbuf, errlen);
	if (b_copy)
	{
		char		ignore[SETOPS_GPU_ERRLEN];

		if (service_device->use(a_device, ignore, sizeof(ignore)) == SETOPS_GPU_OK)
			service_device->buffer_free(b_copy);
	}
	/* the answers go back in the request */
	r->args = args;
	service_args_unbind(&r->args);
	return status;
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
	slot->status = status;
	strlcpy(slot->errmsg, errbuf, sizeof(slot->errmsg));
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
 * A request is answered: hand the slot back to its backend, or free it if
 * the backend gave up.  The backend may give up at any moment
 * (abandon_slot: it sets abandoned, then frees the slot if it finds it
 * DONE): each side writes, then reads the other's flag behind a full
 * barrier, so at least one of the two sees that it must free the slot,
 * and the compare-and-exchange lets only one do it.
 */
static void
finish_slot(ServiceSlot *slot, int slot_index)
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
	if (pg_atomic_read_u32(&slot->abandoned) != 0)
	{
		/* nobody will read what it left; nobody can claim it before it is free */
		service_cache_slot_done(slot_index);
		service_stage_done(slot_index);
		if (pg_atomic_compare_exchange_u32(&slot->state, &state, SLOT_FREE))
			ConditionVariableBroadcast(&setops_service->slot_freed);
	}
}

/* Serve every submitted slot once, starting after the last one served. */
static void
serve_slots(int *next)
{
	int			k;

	service_stage_sweep();
	for (k = 0; k < setops_service->nslots; k++)
	{
		int			i = (*next + k) % setops_service->nslots;
		ServiceSlot *slot = &setops_service->slots[i];

		if (pg_atomic_read_u32(&slot->state) != SLOT_SUBMITTED)
			continue;
		pg_read_barrier();
		pg_atomic_write_u32(&slot->state, SLOT_RUNNING);
		if (pg_atomic_read_u32(&slot->abandoned) == 0)
		{
			MemoryContext cxt = AllocSetContextCreate(TopMemoryContext, "setops request",
													  ALLOCSET_DEFAULT_SIZES);
			MemoryContext old = MemoryContextSwitchTo(cxt);

			/* an ERROR (out of memory, say) fails the request, not the service */
			serving = slot;
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
			}
			PG_END_TRY();
			serving = NULL;
			MemoryContextSwitchTo(old);
			MemoryContextDelete(cxt);
		}
		*next = (i + 1) % setops_service->nslots;
		finish_slot(slot, i);
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

	SpinLockAcquire(&setops_service->mutex);
	setops_service->generation++;
	setops_service->worker_pid = MyProcPid;
	setops_service->worker_latch = MyLatch;
	setops_service->ready = true;
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
