/*
 * worker.h
 *	  The GPU service's worker side: what worker.c, device_cache.c, and the
 *	  worker halves of batches and staged reductions offer one another.
 *	  Uses protocol.h, device_ops.h and engine/ only: never exec/ or funcs/.
 */
#ifndef SETOPS_SERVICE_WORKER_H
#define SETOPS_SERVICE_WORKER_H

#include <signal.h>

#include "service/protocol.h"
#include "service/device_ops.h"
#include "engine/common/count_split.h"

/* worker.c: the device this worker serves with, chosen at its start */
extern const DeviceOps *service_device;

/*
 * Request handlers (worker.c's table): each answers in the slot and
 * returns the status, the message in errbuf.
 */

/* worker.c: each device's weight, from setops.device_weights */
extern void service_device_weights(double *weights, int ndevices);

/* device_cache.c: the worker's cache of stored arrays */
typedef struct ServiceCacheRef
{
	SetopsCacheKey key;
	int64		n;
	uint32		devices;		/* a bit for each device holding a copy */
	/* the entry itself, while no entry has left the cache since (removals) */
	void	   *entry;
	uint64		removals;
	uint64		resets;			/* device resets the cache had seen (a gone entry's cause) */
} ServiceCacheRef;

/* What a request in flight holds of the cache (service_cache_hold). */
typedef struct ServiceCacheHold
{
	bool		pinned;			/* a copy in the cache, pinned */
	SetopsCacheKey key;
	int			device;
	uint64		serial;			/* which copy it pinned */
	void	   *entry;			/* its entry, for the release (serial tells if still so) */
	void	   *temp;			/* else a copy of its own, freed with the hold */
	uint64		epoch;
} ServiceCacheHold;

extern void service_cache_init(void);
extern void service_cache_configure(void);
extern SetopsGpuStatus service_cache_put(ServiceSlot *slot, int slot_index,
										 char *errbuf, size_t errlen);
extern bool service_cache_lookup(const SetopsCacheKey *key, bool count, ServiceCacheRef *ref);
extern bool service_cache_find(const SetopsCacheKey *key, ServiceCacheRef *ref);
extern void service_cache_count(const int64 *hits, int64 misses);
extern void service_cache_hint(const SetopsCacheKey *key, int device);
extern bool service_cache_splits(const ServiceCacheRef *ref, SetopsSplitPoints *splits);
extern void service_cache_touch(const ServiceCacheRef *ref);
extern bool service_cache_on(const ServiceCacheRef *ref, int device);
extern bool service_cache_can_gather(const ServiceCacheRef *a, const ServiceCacheRef *b,
									 int device);
extern SetopsGpuStatus service_cache_hold(const ServiceCacheRef *ref, int device,
										  ServiceCacheHold *hold, const void **keys,
										  char *errbuf, size_t errlen);
extern SetopsGpuStatus service_cache_hold_pair(const ServiceCacheRef *a, const ServiceCacheRef *b,
											   int device, ServiceCacheHold *holds,
											   const void **a_keys, const void **b_keys,
											   char *errbuf, size_t errlen);
extern void service_cache_release(const ServiceCacheHold *hold);
extern void service_cache_slot_done(int slot_index);
extern SetopsGpuStatus service_cache_put_rows(ServiceSlot *slot, int slot_index,
											  char *errbuf, size_t errlen);

/*
 * worker_exec.c: operations run by executor threads, setops.service_streams
 * a device side by side, each on a CUDA stream of its own.  The threads run
 * only device_ops.h calls and the slot's answer (atomics and SetLatch):
 * never palloc, ereport or anything else of PostgreSQL's.
 */
typedef struct ServiceJob
{
	int			slot_index;
	int			device;
	SetopsGpuSetopArgs args;	/* bound to the slot's arena and the cache */
	ServiceCacheHold holds[2];	/* released once the job is reaped */
	uint64		epoch;			/* its device's context when bound to it (service_exec_bind) */
	double		submitted_ms;
	double		ms_queue;		/* its wait for an executor */
	/* set by the thread */
	SetopsGpuStatus status;
	bool		wake_slot_waiters;	/* it freed an abandoned slot */
	struct ServiceJob *next;
	/* a part of a count split over devices (worker_split.c), or NULL */
	struct ServiceSplit *split;
	int			part;
} ServiceJob;

extern int	setops_service_streams;
extern int	setops_service_gpu_wait;	/* SetopsGpuWait */
extern bool setops_service_coalesce;
extern int	setops_service_poll_us;
extern int	setops_service_poll_executors;
extern int	setops_service_count_runners;
extern int	setops_service_count_trips;
extern bool service_poll(void *const volatile *word, const volatile sig_atomic_t *flag);
extern void service_exec_start(void);
extern ServiceJob *service_exec_job(int slot_index);
extern void service_exec_bind(ServiceJob *job, int device);
extern void service_exec_submit(ServiceJob *job);
extern void service_exec_drop(ServiceJob *job);
extern int	service_exec_load(int device);
extern bool service_exec_reap(void);
extern bool service_exec_thread(void);
extern void service_exec_stop(void);

/* a request whose arrays on a device a reset lost (after a device fault) */
#define SERVICE_RESET_MSG "the GPU was reset (a device fault) after this request's arrays were placed on it; run it again"

/* worker.c: how a slot's answer reaches its backend (any thread) */
extern __thread ServiceSlot *service_serving;
extern uint32 service_hand_back(ServiceSlot *slot);

/*
 * setops.service_split_min_elements: operations from this many input keys
 * on are split over the devices, a plain one always (worker.c), a count of
 * cached arrays when every device is idle (worker_split.c); 0: none
 */
extern int	setops_service_split_min_elements;

/*
 * worker_split.c: a count of two large cached arrays cut into parts, one
 * on each idle device (engine/common/count_split.h)
 */
extern bool service_split_count(int slot_index, const SetopsGpuSetopArgs *args,
								const ServiceCacheRef *a, const ServiceCacheRef *b,
								char *errbuf, size_t errlen);
extern bool service_split_part_done(ServiceJob *job, const char *errbuf,
									ServiceJob **parts, int *nparts,
									SetopsGpuSetopArgs *whole, SetopsGpuStatus *status,
									const char **errmsg);

/* worker_batch.c: batches (REQ_BATCH) and count batches (REQ_COUNT_BATCH) */
extern SetopsGpuStatus service_run_batch(ServiceSlot *slot, int slot_index,
										 char *errbuf, size_t errlen);

/* worker_stage.c: staged reductions */
extern void service_stage_init(void);
extern SetopsGpuStatus service_stage_request(ServiceSlot *slot, int slot_index,
											 char *errbuf, size_t errlen);
extern void service_stage_done(int slot_index);
extern void service_stage_sweep(void);

/* worker.c: registration (from _PG_init) and the worker */
extern void setops_service_register(void);
extern PGDLLEXPORT void setops_service_main(Datum arg);

#endif							/* SETOPS_SERVICE_WORKER_H */
