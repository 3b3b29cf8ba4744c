/*
 * protocol.h
 *	  The GPU service's shared memory: the control block, the request slots
 *	  and the transfer arena, as the backends (client*.c) and the worker
 *	  (worker*.c) both see them.
 *
 * With shared_preload_libraries = 'setops' the postmaster reserves a
 * control block and a transfer arena in shared memory and registers the
 * worker.  The worker creates the only CUDA context, registers the arena
 * as pinned memory, and serves requests.  A backend never touches CUDA: it
 * claims a request slot, writes its inputs into the slot's part of the
 * arena (the one CPU pass over them), wakes the worker and sleeps on its
 * latch; the worker's DMA reads the inputs straight from the arena and
 * writes the results back there.  Inputs larger than a slot go through in
 * chunks that end on key-rank-consistent splits.
 *
 * Without the preload there is no service and no GPU: the CPU engine
 * answers, and setops_devices() says why.
 */
#ifndef SETOPS_SERVICE_PROTOCOL_H
#define SETOPS_SERVICE_PROTOCOL_H

#include "postgres.h"

#include "port/atomics.h"
#include "storage/condition_variable.h"
#include "storage/latch.h"
#include "storage/spin.h"

#include "setops.h"

#define SERVICE_MAX_DEVICES SETOPS_MAX_DEVICES

typedef enum ServiceSlotState
{
	SLOT_FREE = 0,
	SLOT_CLAIMED,				/* a backend is writing its request */
	SLOT_SUBMITTED,				/* waiting for the worker */
	SLOT_RUNNING,				/* the worker has it */
	SLOT_DONE					/* the answer is in; the backend frees it */
} ServiceSlotState;

typedef enum ServiceRequestKind
{
	REQ_SETOP,
	REQ_SORT,
	REQ_DEVICES,				/* refresh device info (free memory) */
	REQ_CACHE_PUT,				/* one piece of a stored array for the cache */
	REQ_BATCH,					/* many pairs in one launch (client_batch.c) */
	REQ_STAGE_PUT,				/* one piece of a reduction's runs, kept on the device */
	REQ_REDUCE,					/* reduce the staged runs, keep the result there */
	REQ_STAGE_GET,				/* one piece of the staged result */
	REQ_COUNT_BATCH,			/* many pairs' counts in one launch (client_batch.c) */
	REQ_CACHE_PUT_ROWS			/* whole stored arrays for the cache, many at once */
} ServiceRequestKind;

/* Answers to a REQ_SETOP with cached arguments, besides the status. */
#define CACHE_MISSING_A 1		/* argument 1 is not (or no longer) cached */
#define CACHE_MISSING_B 2

/*
 * The requests, one struct per kind.  Offsets are into the slot's region
 * of the arena; the keys and values are laid out by the backend.
 */

/*
 * REQ_SETOP: op on a and b (or, with count_mode, a count of it).  args is
 * the router's request itself, for this chunk's na and nb; its pointers
 * mean nothing in another process and are cleared (service_args_unbind):
 * the arena's parts are at the offsets below.  The worker hands args to
 * the device with its pointers bound to them, and the answers and timings
 * come back in args.
 */
typedef struct ServiceSetopRequest
{
	SetopsGpuSetopArgs args;
	/*
	 * Arguments by cache key (a stored array the service may hold): the
	 * arena then holds nothing for them.
	 */
	bool		a_cached;
	bool		b_cached;
	SetopsCacheKey a_key;
	SetopsCacheKey b_key;
	bool		cache_retry;	/* resent after a miss: not counted again */
	bool		a_packed;		/* the arena holds packed bytes, not keys */
	bool		b_packed;
	Size		off_a;
	Size		off_b;
	Size		off_a_vals;		/* pairs (args.val_stride > 0) */
	Size		off_b_vals;
	Size		off_out;
	Size		off_out_vals;
	bool		want_packed;	/* pack the result on the device, at off_out */
} ServiceSetopRequest;

/* Clear the pointers of a request that crosses processes. */
static inline void
service_args_unbind(SetopsGpuSetopArgs *args)
{
	args->a = args->b = NULL;
	args->a_packed = args->b_packed = NULL;
	args->a_dev = args->b_dev = NULL;
	args->a_vals = args->b_vals = NULL;
	args->out_keys = args->out_vals = args->out_packed = NULL;
}

/* REQ_SORT: n keys at off_keys, sorted there (distinct: and unique) */
typedef struct ServiceSortRequest
{
	SetopsKeyType key_type;
	int64		n;
	bool		distinct;
	Size		off_keys;
} ServiceSortRequest;

/* REQ_CACHE_PUT: keys [offset, offset + n) of key's array of total keys */
typedef struct ServiceCachePutRequest
{
	SetopsCacheKey key;
	SetopsKeyType key_type;
	int64		offset;
	int64		n;
	int64		total;
	Size		off_keys;
} ServiceCachePutRequest;

/*
 * REQ_CACHE_PUT_ROWS: nrows whole arrays (ServiceCachePutRow at off_rows,
 * each one's keys at its off_keys), whose order the backend checked as it
 * read them (the count batches check every row): put into the cache
 * together on one device, one trip for them all; each answers kept.
 */
typedef struct ServiceCachePutRow
{
	SetopsCacheKey key;
	int64		n;
	Size		off_keys;
	bool		kept;			/* the answer: the cache holds it */
	bool		put;			/* the worker's: put by this request */
} ServiceCachePutRow;

typedef struct ServiceCachePutRowsRequest
{
	SetopsKeyType key_type;
	int64		nrows;
	Size		off_rows;
} ServiceCachePutRowsRequest;

/*
 * REQ_BATCH: na / nb keys of A / B at off_a / off_b, npairs pairs'
 * a_start, a_len, b_start, b_len (int64 arrays of npairs each) at
 * off_pairs; outputs at off_out, their lengths (int64) at off_lengths,
 * their positions (want_pos) at off_pos.  REQ_COUNT_BATCH: the same
 * inputs, count_mode's answer of each pair (int64) at off_lengths, no
 * outputs; and ncached pairs whose A is a stored row sent by its identity
 * (ServiceCachedRow at off_cached, each pair's start unused, its length
 * the row's count).  Unless the device cache holds every one of them the
 * worker runs nothing: it marks those missing and answers their number in
 * cache_missing.
 */
typedef struct ServiceCachedRow
{
	int64		pair;			/* the pair's index in the request */
	SetopsCacheKey key;
	bool		missing;		/* the answer: not (or no longer) cached */
} ServiceCachedRow;

typedef struct ServiceBatchRequest
{
	SetopsOp	op;
	SetopsKeyType key_type;
	int			count_mode;		/* REQ_COUNT_BATCH: a SetopsGpuCountMode */
	int64		na;
	int64		nb;
	int64		npairs;
	bool		b_shared;		/* every pair's B is the same keys */
	bool		want_pos;
	Size		off_a;
	Size		off_b;
	Size		off_pairs;
	Size		off_out;
	Size		off_lengths;
	Size		off_pos;
	int64		ncached;
	Size		off_cached;
	bool		cache_retry;	/* resent after a miss: not counted again */
} ServiceBatchRequest;

/*
 * REQ_STAGE_PUT: keys [offset, offset + n) of total (a hint when offset is
 * 0) at off_keys, appended to the stage.  REQ_REDUCE: op over the staged
 * keys as nruns runs, their lengths (int64) at off_keys.  REQ_STAGE_GET:
 * keys [offset, offset + n) of the result into off_keys (raw: of the keys
 * as put, an error once reduced); release frees the stage after.
 */
typedef struct ServiceStageRequest
{
	SetopsOp	op;
	SetopsKeyType key_type;
	int64		offset;
	int64		n;
	int64		total;
	int64		nruns;
	bool		release;
	bool		raw;
	Size		off_keys;
} ServiceStageRequest;

/* One request and its answer. */
typedef struct ServiceSlot
{
	pg_atomic_uint32 state;
	pg_atomic_uint32 abandoned;	/* the backend stopped waiting */
	int			span;			/* slots this request's arena spans (client.c's
								 * claim_span): the next span - 1 are held with it */
	Latch	   *owner_latch;
	uint64		generation;		/* the worker's generation at submission */

	/* request: kind says which member */
	ServiceRequestKind kind;
	union
	{
		ServiceSetopRequest setop;
		ServiceSortRequest sort;
		ServiceCachePutRequest put;
		ServiceCachePutRowsRequest put_rows;
		ServiceBatchRequest batch;
		ServiceStageRequest stage;
	}			req;

	/* answer */
	SetopsGpuStatus status;
	int			cache_missing;	/* CACHE_MISSING_* of a cached REQ_SETOP; REQ_COUNT_BATCH:
								 * its cached rows missing */
	int64		out_count;
	int			unsorted_arg;
	int64		unsorted_pos;
	double		ms_upload;
	double		ms_decode;
	double		ms_kernel;
	double		ms_download;
	double		ms_encode;
	Size		out_packed_size;	/* want_packed: the packed result's bytes */
	char		errmsg[SETOPS_GPU_ERRLEN];
} ServiceSlot;

/*
 * Each device's share of the service's work, for setops_service_stats()
 * and the router: updated by the worker's threads, read by any backend.
 */
/* injected faults: any launch takes one; only shared trips of two or more
 * counts do; any launch, and the device is reset (its memory lost) */
#define SERVICE_FAULT_ANY		0
#define SERVICE_FAULT_SHARED	1
#define SERVICE_FAULT_RESET		2

typedef struct ServiceDeviceStats
{
	pg_atomic_uint32 queued;	/* operations queued or running now */
	pg_atomic_uint64 requests;	/* operations run */
	pg_atomic_uint64 launches;	/* trips to the device: counts that waited together share one */
	pg_atomic_uint64 batched;	/* operations that shared their trip */
	pg_atomic_uint64 wait_us;	/* summed waits for an executor */
	pg_atomic_uint64 run_us;	/* summed time executors ran them */
	pg_atomic_uint64 copies;	/* cached arrays copied to the device for a request */
	/*
	 * Operations the emulated device is to fail next, as a GPU fault would
	 * (set by the tests' setops_test_service_faults; never on a GPU), and
	 * how (SERVICE_FAULT_*).
	 */
	pg_atomic_uint32 injected_faults;
	pg_atomic_uint32 injected_kind;
} ServiceDeviceStats;

typedef SetopsCacheStats ServiceCacheStats;

typedef struct ServiceShared
{
	slock_t		mutex;			/* claiming slots; the fields below */
	pid_t		worker_pid;		/* 0 when not running */
	uint64		generation;		/* bumped at every worker start */
	bool		ready;			/* devices known (possibly none) */
	/*
	 * generation << 1 | ready, and whether a cache takes stored arrays,
	 * written with the fields above under the mutex: every call reads them
	 * without it.  (64 sessions taking the spinlock several times a call
	 * contended it, and s_lock's backoff sleeps a millisecond: with it off
	 * the call path, 20k-key counts on 2x H200 went 1.4x faster and their
	 * p99 from 1.5 to 0.6-0.9 ms.)
	 */
	pg_atomic_uint64 live;
	pg_atomic_uint32 caching;
	pg_atomic_uint64 dispatch_us;	/* the main thread's time handing requests on */
	/*
	 * What the service's threads spend on a request, in CPU time,
	 * smoothed: what a call sent to the GPU costs the host beyond its
	 * backend (setops_service_stats().request_cpu_ms).  The executors add
	 * their jobs' CPU time (a spinning wait for the GPU included; not
	 * their polling for jobs, nor the threads of an operation split over
	 * several GPUs); the main thread measures every 16th request it hands
	 * on (not its polling, nor reaping answered jobs) and publishes the
	 * sum over the requests served.
	 */
	pg_atomic_uint64 exec_cpu_ns;
	pg_atomic_uint64 request_cpu_ns;
	Latch	   *worker_latch;
	int			ndevices;
	SetopsGpuDeviceInfo devices[SERVICE_MAX_DEVICES];
	char		unavailable[SETOPS_GPU_ERRLEN]; /* why no device, when none */
	int			ncaches;		/* devices with a cache (1 when emulating) */
	ServiceCacheStats cache[SERVICE_MAX_DEVICES];
	int			streams;		/* executors a device (0: the worker's thread alone) */
	ServiceDeviceStats load[SERVICE_MAX_DEVICES];
	ConditionVariable slot_freed;	/* backends waiting for a free slot */
	pg_atomic_uint32 slot_waiters;	/* how many: a freed slot wakes them only then */
	pg_atomic_uint32 nstreams;	/* slots held by streams (fewer than nslots) */
	int			nslots;
	Size		slot_bytes;		/* each slot's part of the arena */
	char	   *arena;			/* nslots * slot_bytes, page aligned */
	ServiceSlot slots[FLEXIBLE_ARRAY_MEMBER];
} ServiceShared;

/* NULL unless setops is in shared_preload_libraries. */
extern ServiceShared *setops_service;

/* Whether the worker is ready, and its generation, without the mutex. */
static inline bool
service_live(uint64 *generation)
{
	uint64		word = pg_atomic_read_u64(&setops_service->live);

	/* (what the worker wrote before it was ready is seen after this) */
	pg_read_barrier();
	if (generation != NULL)
		*generation = word >> 1;
	return (word & 1) != 0;
}

/* The worker's ready and generation, published (the mutex held). */
static inline void
service_set_live(void)
{
	pg_atomic_write_u64(&setops_service->live,
						setops_service->generation << 1 | (setops_service->ready ? 1 : 0));
}

/* Offsets of a request's parts in its slot's arena. */
#define SERVICE_ALIGN(x) TYPEALIGN(64, (x))

/* The slot's part of the transfer arena. */
static inline char *
service_slot_data(ServiceSlot *slot)
{
	return setops_service->arena + (slot - setops_service->slots) * setops_service->slot_bytes;
}

/* The bytes of the arena a claimed slot's request may use. */
static inline Size
service_slot_capacity(const ServiceSlot *slot)
{
	return (Size) slot->span * setops_service->slot_bytes;
}

/*
 * Free slot (and the rest of its span) if it is in state expected; false
 * when another did first.  Only the winner of the compare-and-exchange
 * frees the span, which it read before: the span's slots are held until
 * then, so nobody can have claimed them.  Atomics only (executor threads
 * call it); the caller wakes the waiting backends.
 */
static inline bool
service_free_from(ServiceSlot *slot, uint32 expected)
{
	int			span = slot->span;

	if (!pg_atomic_compare_exchange_u32(&slot->state, &expected, SLOT_FREE))
		return false;
	for (int j = 1; j < span; j++)
		pg_atomic_write_u32(&slot[j].state, SLOT_FREE);
	return true;
}

/*
 * A slot was freed: wake the backends waiting for one, if any wait.  (A
 * broadcast takes the condition variable's spinlock even with nobody to
 * wake: on every call's path, one lock all sessions shared, and a holder
 * preempted on a busy host made the others sleep a millisecond.)  The
 * barrier pairs with the waiter's count-then-recheck (client.c): either
 * this sees the waiter counted, or the waiter's recheck sees the slot
 * free.
 */
static inline void
service_wake_slot_waiters(void)
{
	pg_memory_barrier();
	if (pg_atomic_read_u32(&setops_service->slot_waiters) > 0)
		ConditionVariableBroadcast(&setops_service->slot_freed);
}

/* The owner frees its slot: wake the backends waiting for one. */
static inline void
service_free_slot(ServiceSlot *slot)
{
	(void) service_free_from(slot, pg_atomic_read_u32(&slot->state));
	service_wake_slot_waiters();
}

/* GUCs (PGC_POSTMASTER) */
extern int	setops_service_memory_mb;
extern int	setops_service_slots;
extern bool setops_service_emulate;
extern int	setops_service_emulate_devices;
/* PGC_SIGHUP: MB of device memory for cached arrays; -1 a quarter of it */
extern int	setops_gpu_cache_size_mb;
/* PGC_SIGHUP: relative weights of the devices ("" : their free memory) */
extern char *setops_device_weights;

#endif							/* SETOPS_SERVICE_PROTOCOL_H */
