/*
 * service.h
 *	  The GPU service: one background worker per cluster owns the GPUs and
 *	  runs every backend's GPU work.
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
#ifndef SETOPS_SERVICE_H
#define SETOPS_SERVICE_H

#include "postgres.h"

#include "port/atomics.h"
#include "storage/condition_variable.h"
#include "storage/latch.h"
#include "storage/spin.h"

#include "engine/gpu/setops_gpu.h"

#define SERVICE_MAX_DEVICES 8

/*
 * The identity of a stored (TOASTed) array, under which the service caches
 * its keys.  A TOAST value never changes once written, but its value id
 * can be reused after the value is deleted (OID wraparound), and TRUNCATE,
 * VACUUM FULL and CLUSTER rewrite the TOAST table: the first chunk's
 * inserting transaction and place, the TOAST table's current file and the
 * value's sizes tell such values apart.  Padding is zeroed (the key is
 * hashed and compared as bytes).
 */
typedef struct SetopsCacheKey
{
	Oid			toastrelid;
	Oid			relfilenode;	/* of the TOAST table, now */
	Oid			valueid;
	uint32		chunk0_xmin;	/* raw xmin of chunk 0 */
	uint32		chunk0_block;	/* its ctid */
	uint16		chunk0_offset;
	uint8		key_type;		/* SetopsKeyType */
	uint8		packed;			/* a packed_int4/8 value, not an array */
	int32		rawsize;		/* the value's size, untoasted */
	int32		extsize;		/* its stored size */
} SetopsCacheKey;

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
	REQ_BATCH,					/* many pairs in one launch (service_batch.c) */
	REQ_STAGE_PUT,				/* one piece of a reduction's runs, kept on the device */
	REQ_REDUCE,					/* reduce the staged runs, keep the result there */
	REQ_STAGE_GET				/* one piece of the staged result */
} ServiceRequestKind;

/* Answers to a REQ_SETOP with cached arguments, besides the status. */
#define CACHE_MISSING_A 1		/* argument 1 is not (or no longer) cached */
#define CACHE_MISSING_B 2

/*
 * One request and its answer.  Offsets are into the slot's region of the
 * arena; the keys and values are laid out by the backend.
 */
typedef struct ServiceSlot
{
	pg_atomic_uint32 state;
	pg_atomic_uint32 abandoned;	/* the backend stopped waiting */
	Latch	   *owner_latch;
	uint64		generation;		/* the worker's generation at submission */

	/* request */
	ServiceRequestKind kind;
	/*
	 * Arguments by cache key (a stored array the service may hold): the
	 * arena then holds nothing for them.  REQ_CACHE_PUT sends the keys of
	 * a_key's array in pieces: put_offset and na keys of put_total.
	 */
	bool		a_cached;
	bool		b_cached;
	SetopsCacheKey a_key;
	SetopsCacheKey b_key;
	int64		put_offset;
	int64		put_total;
	bool		cache_retry;	/* resent after a miss: not counted again */
	SetopsOp	op;
	SetopsKeyType key_type;
	int64		na;
	int64		nb;
	int			inputs_distinct;
	int			count_mode;		/* SetopsGpuCountMode: out_count only */
	int			inputs_sorted;	/* both known to be in order */
	int			val_stride;		/* pairs; 0 for keys only */
	bool		a_packed;		/* the arena holds packed bytes, not keys */
	bool		b_packed;
	Size		a_packed_size;
	Size		b_packed_size;
	bool		distinct;		/* sort */
	Size		off_a;
	Size		off_b;
	Size		off_av;
	Size		off_bv;
	Size		off_out;
	Size		off_outv;
	bool		want_packed;	/* pack the result on the device, at off_out */
	Size		out_packed_cap;
	/*
	 * REQ_BATCH: na / nb keys of A / B at off_a / off_b, npairs pairs'
	 * a_start, a_len, b_start, b_len (int64) at off_av, outputs at off_out,
	 * their lengths (int64) at off_outv, positions (want_pos) at off_bv.
	 * REQ_REDUCE: npairs run lengths at off_a.  REQ_STAGE_*: put_offset,
	 * na keys, put_total in all; stage_release frees the stage after a get.
	 */
	int64		npairs;
	bool		b_shared;
	bool		want_pos;
	bool		stage_release;
	bool		stage_raw;		/* REQ_STAGE_GET of the keys as put: an error once reduced */

	/* answer */
	SetopsGpuStatus status;
	int			cache_missing;	/* CACHE_MISSING_* of a cached REQ_SETOP */
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

/* Each device's cache, as setops_cache_stats() shows it. */
typedef struct ServiceCacheStats
{
	int64		capacity;		/* bytes */
	int64		entries;
	int64		bytes;
	int64		hits;
	int64		misses;
	int64		evictions;
} ServiceCacheStats;

typedef struct ServiceShared
{
	slock_t		mutex;			/* claiming slots; the fields below */
	pid_t		worker_pid;		/* 0 when not running */
	uint64		generation;		/* bumped at every worker start */
	bool		ready;			/* devices known (possibly none) */
	Latch	   *worker_latch;
	int			ndevices;
	SetopsGpuDeviceInfo devices[SERVICE_MAX_DEVICES];
	char		unavailable[SETOPS_GPU_ERRLEN]; /* why no device, when none */
	int			ncaches;		/* devices with a cache (1 when emulating) */
	ServiceCacheStats cache[SERVICE_MAX_DEVICES];
	ConditionVariable slot_freed;	/* backends waiting for a free slot */
	pg_atomic_uint32 nstreams;	/* slots held by streams (fewer than nslots) */
	int			nslots;
	Size		slot_bytes;		/* each slot's part of the arena */
	char	   *arena;			/* nslots * slot_bytes, page aligned */
	ServiceSlot slots[FLEXIBLE_ARRAY_MEMBER];
} ServiceShared;

/* NULL unless setops is in shared_preload_libraries. */
extern ServiceShared *setops_service;

/* Offsets of a request's parts in its slot's arena. */
#define SERVICE_ALIGN(x) TYPEALIGN(64, (x))

/* The slot's part of the transfer arena. */
static inline char *
service_slot_data(ServiceSlot *slot)
{
	return setops_service->arena + (slot - setops_service->slots) * setops_service->slot_bytes;
}

/* A slot became free: wake the backends waiting for one. */
static inline void
service_free_slot(ServiceSlot *slot)
{
	pg_atomic_write_u32(&slot->state, SLOT_FREE);
	ConditionVariableBroadcast(&setops_service->slot_freed);
}

/* GUCs (PGC_POSTMASTER) */
extern int	setops_service_memory_mb;
extern int	setops_service_slots;
extern bool setops_service_emulate;
/* PGC_SIGHUP: MB of device memory for cached arrays; -1 a quarter of it */
extern int	setops_gpu_cache_size_mb;
/* PGC_SIGHUP: relative weights of the devices ("" : their free memory) */
extern char *setops_device_weights;

/* gpu_service.c: each device's weight, from setops.device_weights */
extern void service_device_weights(double *weights, int ndevices);

/* device_cache.c: the worker's cache of stored arrays */
extern void service_cache_init(void);
extern void service_cache_configure(void);
extern void service_cache_put(ServiceSlot *slot, int slot_index);
extern bool service_cache_lookup(const SetopsCacheKey *key, bool count, int64 *n,
								 const void **keys, int *device);
extern void service_cache_slot_done(int slot_index);

/* service_batch.c, the worker's side: batches */
extern void service_run_batch(ServiceSlot *slot, bool emulate);

/* service_stage.c, the worker's side: staged reductions */
extern void service_stage_init(void);
extern void service_stage_request(ServiceSlot *slot, int slot_index, bool emulate);
extern void service_stage_done(int slot_index);
extern void service_stage_sweep(void);

/* service_client.c: slots, for the other request senders */
extern bool service_client_up(char *errbuf, size_t errlen);
extern ServiceSlot *service_claim_slot(void);
extern SetopsGpuStatus service_submit(ServiceSlot *slot, char *errbuf, size_t errlen);
extern void service_release_slot(void);
/* a request whose answer is awaited later, by service_wait */
extern SetopsGpuStatus service_submit_nowait(ServiceSlot *slot, char *errbuf, size_t errlen);
extern SetopsGpuStatus service_wait(ServiceSlot *slot, char *errbuf, size_t errlen);
/* the one slot a backend's stream keeps across calls (service_stage.c) */
extern ServiceSlot *service_claim_stream_slot(uint64 *token);
extern bool service_holds_stream_slot(ServiceSlot *slot, uint64 token);
extern void service_release_stream_slot(ServiceSlot *slot, uint64 token);

/* gpu_service.c: registration (from _PG_init) and the worker */
extern void setops_service_register(void);
extern PGDLLEXPORT void setops_service_main(Datum arg);

/*
 * service_client.c: the backend's side, with the signatures of the GPU
 * interface (engine/gpu/setops_gpu.h), so the dispatcher does not care which.
 * SETOPS_GPU_TOO_LARGE when a request cannot be split to fit a slot
 * (packed values, sorts); SETOPS_GPU_NO_SERVICE when the worker is not
 * running.
 */
extern int	setops_service_device_count(char *errbuf, size_t errlen);
extern SetopsGpuStatus setops_service_device_info(int index, SetopsGpuDeviceInfo *info,
												  char *errbuf, size_t errlen);
extern SetopsGpuStatus setops_service_setop(SetopsGpuSetopArgs *args,
											char *errbuf, size_t errlen);
extern SetopsGpuStatus setops_service_sort(SetopsKeyType key_type, void *keys, int64 *n,
										   int distinct, char *errbuf, size_t errlen);
extern bool setops_service_fits(Size bytes);
extern bool setops_service_caches(void);
extern SetopsGpuStatus setops_service_setop_cached(SetopsGpuSetopArgs *args,
												  const SetopsCacheKey *a_key,
												  const SetopsCacheKey *b_key, bool retry,
												  int *missing, char *errbuf, size_t errlen);
extern SetopsGpuStatus setops_service_cache_put(const SetopsCacheKey *key, const void *keys,
												int64 n, int64 *unsorted_pos,
												char *errbuf, size_t errlen);
extern void setops_service_refresh_devices(void);

/*
 * service_batch.c, the backend's side.  setops_service_batch sends pairs
 * first.. of batch, as many as fit one slot, and sets *next after the last
 * sent (*next == first: that pair alone does not fit a slot); outputs and
 * positions go to out / out_pos, lengths to out_lengths[first..], the
 * count to *n.
 */
struct SetopsBatch;
extern SetopsGpuStatus setops_service_batch(const struct SetopsBatch *batch, int64 first,
											int64 *next, void *out, int64 *out_lengths,
											int64 *out_pos, int64 *n,
											char *errbuf, size_t errlen);

/*
 * service_stage.c, the backend's side.  setops_service_reduce stages the
 * runs on the device, reduces them there and reads the result back into
 * alloc(n)'s buffer (setops_service_reduce_fits says whether it can).
 *
 * A stream stages keys as they come, from one call to the next: open
 * gives NULL when this backend streams already, no slot is free or there
 * is no service (keep the keys in host memory then); its slot is given
 * back by close, by a reset of cxt, or by a transaction abort; it takes
 * what setops_service_reduce_fits allows.  reserve gives room for n keys
 * in the slot, to be written there and counted by commit (NULL when n is
 * more than fits at once: put them instead).  reduce reduces all keys put
 * as the runs of lengths; fetch reads them back as
 * put (into count keys at dst), the rows of a failed put included, as far
 * as the stage is intact.  After a failure, only fetch and close.
 */
typedef struct SetopsStageStream SetopsStageStream;
extern bool setops_service_reduce_fits(SetopsKeyType type, int64 total, int64 nruns);
extern SetopsGpuStatus setops_service_reduce(SetopsOp op, SetopsKeyType type, const void *keys,
											 const int64 *lengths, int64 nruns, int64 total,
											 void *(*alloc) (int64 n, void *arg), void *arg,
											 void **result, int64 *n,
											 char *errbuf, size_t errlen);
extern SetopsStageStream *setops_service_stream_open(SetopsKeyType type, int64 hint,
													 MemoryContext cxt);
extern int64 setops_service_stream_count(const SetopsStageStream *s);
extern SetopsGpuStatus setops_service_stream_put(SetopsStageStream *s, const void *keys,
												 int64 n, char *errbuf, size_t errlen);
extern SetopsGpuStatus setops_service_stream_reserve(SetopsStageStream *s, int64 n,
													 void **room, char *errbuf, size_t errlen);
extern SetopsGpuStatus setops_service_stream_commit(SetopsStageStream *s, int64 n,
													char *errbuf, size_t errlen);
extern SetopsGpuStatus setops_service_stream_reduce(SetopsStageStream *s, SetopsOp op,
													const int64 *lengths, int64 nruns,
													void *(*alloc) (int64 n, void *arg), void *arg,
													void **result, int64 *n,
													char *errbuf, size_t errlen);
extern SetopsGpuStatus setops_service_stream_fetch(SetopsStageStream *s, void *dst,
												   char *errbuf, size_t errlen);
extern void setops_service_stream_close(SetopsStageStream *s);
extern void setops_service_wait_ready(void);

#endif							/* SETOPS_SERVICE_H */
